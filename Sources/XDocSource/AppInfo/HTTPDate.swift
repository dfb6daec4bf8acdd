/// HTTP-date (RFC 9110 §5.6.7) to and from seconds since 1970, without Foundation: the
/// preferred IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two obsolete forms
/// (`Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`) are read.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds since 1970-01-01 00:00:00 UTC, or nil when `text` is not an HTTP-date.
    static func parse(_ text: String) -> Int64? {
        var day: Int64?, month: Int64?, year: Int64?, time: (Int64, Int64, Int64)?
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" })
        for token in tokens {
            if token.contains(":") {
                let parts = token.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 3, let h = number(parts[0], 2), let m = number(parts[1], 2), let s = number(parts[2], 2),
                      h < 24, m < 60, s < 61 else { return nil }
                time = (h, m, s)
            } else if token.contains("-") {
                // rfc850-date: 06-Nov-94
                let parts = token.split(separator: "-", omittingEmptySubsequences: false)
                guard parts.count == 3, let d = number(parts[0], 2), let mo = monthNumber(parts[1]),
                      let y = number(parts[2], 2) ?? number(parts[2], 4) else { return nil }
                day = d; month = mo
                year = parts[2].count == 2 ? (y < 70 ? 2000 + y : 1900 + y) : y
            } else if let mo = monthNumber(token) {
                month = mo
            } else if let n = number(token, 4), token.count == 4 {
                year = n
            } else if let n = number(token, 2) {
                guard day == nil else { return nil }
                day = n
            } else if token.allSatisfy({ $0.isLetter }) {
                continue  // weekday, "GMT"
            } else {
                return nil
            }
        }
        guard let day, let month, let year, let time, day >= 1, day <= 31 else { return nil }
        return CivilCalendar.daysFromCivil(year: year, month: month, day: day) * 86400 + time.0 * 3600 + time.1 * 60 + time.2
    }

    /// `seconds` as an IMF-fixdate.
    static func format(_ seconds: Int64) -> String {
        let days = CivilCalendar.floorDivide(seconds, 86400)
        let rest = seconds - days * 86400
        let (y, m, d) = CivilCalendar.civil(fromDays: days)
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][Int(((days % 7) + 7) % 7)]
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][Int(m - 1)]
        return "\(weekday), \(two(d)) \(month) \(y) \(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60)) GMT"
    }

    private static func number(_ text: Substring, _ maxDigits: Int) -> Int64? {
        guard !text.isEmpty, text.count <= maxDigits, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(text)
    }

    private static func monthNumber(_ text: Substring) -> Int64? {
        guard text.count == 3, let index = months.firstIndex(of: text.lowercased()) else { return nil }
        return Int64(index + 1)
    }
}
