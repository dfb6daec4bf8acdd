/// Calendar arithmetic in integers for the proleptic Gregorian calendar (Howard Hinnant's
/// algorithms), shared by property-list dates and HTTP dates: no floating point, so no date
/// can be off by a rounding step.
package enum CivilCalendar {
    /// `a / b` rounded towards minus infinity (`b` > 0); defined for every `a`, `Int64.min`
    /// included (no negation that could overflow).
    package static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return a % b < 0 ? quotient - 1 : quotient
    }

    /// `a` modulo `b` in 0..<b (`b` > 0), for every `a`.
    package static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
        let remainder = a % b
        return remainder < 0 ? remainder + b : remainder
    }

    /// Days since 1970-01-01 of the date `year`-`month`-`day` (month 1…12). Exact for years
    /// within ±10^12 (callers keep to that; HTTP dates have four-digit years).
    package static func daysFromCivil(year y0: Int64, month m: Int64, day d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = floorDivide(y, 400)
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date (year, month 1…12, day 1…31) that is `days` days after 1970-01-01. Exact for
    /// `days` within ±2^52, which covers `floorDivide(seconds, 86_400)` of every `Int64`.
    package static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// ISO 8601 in UTC, `2020-11-12T12:27:26Z`: the one writer (property-list dates, marks'
    /// times). `fraction` counts units of 10^-`fractionDigits` s past `secondsSince1970`
    /// (0 ≤ fraction < 10^fractionDigits) and is written only when not zero, without trailing
    /// zeros (`…26.185Z`). Years 0–999 get four digits; other years are written as they are.
    package static func iso8601(secondsSince1970 seconds: Int64, fraction: Int64 = 0, fractionDigits: Int = 9) -> String {
        let second = floorModulo(seconds, 86_400)
        let date = civil(fromDays: floorDivide(seconds, 86_400))
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let year = date.year >= 0 ? padded(date.year, 4) : String(date.year)
        var text = "\(year)-\(padded(date.month, 2))-\(padded(date.day, 2))T\(padded(second / 3600, 2)):"
            + "\(padded(second / 60 % 60, 2)):\(padded(second % 60, 2))"
        if fraction != 0 {
            var digits = padded(fraction, fractionDigits)
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text + "Z"
    }
}
