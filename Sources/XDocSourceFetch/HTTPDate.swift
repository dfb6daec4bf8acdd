internal import XDSSystem

/// HTTP-date (RFC 9110 §5.6.7) to and from seconds since 1970, without Foundation.
///
/// Parsing is strict, to the grammar, because a date a server got wrong must not extend how
/// long a cached response is trusted (an invalid `Expires` means "already stale", RFC 9111
/// §5.3). Exactly three forms are read, with single spaces where the grammar has them:
/// - IMF-fixdate, the preferred form: `Sun, 06 Nov 1994 08:49:37 GMT`;
/// - the obsolete rfc850-date: `Sunday, 06-Nov-94 08:49:37 GMT` (a two-digit year more than
///   50 years after the reference time is read as the most recent past year with those
///   digits, RFC 9110 §5.6.7);
/// - the obsolete asctime-date: `Sun Nov  6 08:49:37 1994` (a one-digit day after two spaces).
///
/// Names of days and months are case-sensitive, as the grammar says; the zone is the literal
/// `GMT` (any other zone word, `UTC` or `AEST`, is refused rather than misread as GMT). The
/// day must exist in its month, the hour be 00–23, the minute 00–59 and the second 00–60
/// (a leap second counts as the next second's start). The day name must be the date's real
/// weekday: RFC 9110 lets a recipient be lenient here, but a date that contradicts itself
/// cannot be trusted in either of its parts, and rejecting it only makes a response stale
/// sooner (the safe direction for a cache).
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    /// Short day names, Monday first (RFC 9110 `day-name`).
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    /// Long day names (`day-name-l`, rfc850-date only).
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// Seconds since 1970-01-01 00:00:00 UTC, or nil when `text` is not an HTTP-date.
    /// Leading and trailing spaces and tabs (a field value's optional white space) are ignored.
    /// - Parameter reference: the time, in seconds since 1970, a two-digit rfc850 year is
    ///   interpreted against (normally when the response arrived).
    static func parse(_ text: String, reference: Int64) -> Int64? {
        let bytes = Array(text.httpTrimmed.utf8)
        if let comma = bytes.firstIndex(of: UInt8(ascii: ",")) {
            let name = String(decoding: bytes[..<comma], as: UTF8.self)
            if let weekday = days.firstIndex(of: name) {
                return imfFixdate(bytes[(comma + 1)...], weekday: weekday)
            }
            if let weekday = longDays.firstIndex(of: name) {
                return rfc850(bytes[(comma + 1)...], weekday: weekday, reference: reference)
            }
            return nil
        }
        return asctime(bytes[...])
    }

    /// IMF-fixdate after the comma: ` 06 Nov 1994 08:49:37 GMT`.
    private static func imfFixdate(_ rest: ArraySlice<UInt8>, weekday: Int) -> Int64? {
        var scanner = Scanner(rest)
        guard scanner.literal(" "), let day = scanner.digits(2), scanner.literal(" "), let month = scanner.month(),
              scanner.literal(" "), let year = scanner.digits(4), scanner.literal(" "), let time = scanner.timeOfDay(),
              scanner.literal(" GMT"), scanner.atEnd
        else { return nil }
        return seconds(year: year, month: month, day: day, time: time, weekday: weekday)
    }

    /// rfc850-date after the comma: ` 06-Nov-94 08:49:37 GMT`.
    private static func rfc850(_ rest: ArraySlice<UInt8>, weekday: Int, reference: Int64) -> Int64? {
        var scanner = Scanner(rest)
        guard scanner.literal(" "), let day = scanner.digits(2), scanner.literal("-"), let month = scanner.month(),
              scanner.literal("-"), let twoDigits = scanner.digits(2), scanner.literal(" "), let time = scanner.timeOfDay(),
              scanner.literal(" GMT"), scanner.atEnd
        else { return nil }
        // The most recent year ending in those digits that is not more than 50 years ahead. The
        // reference's year is held to 1…9999 (an HTTP date has four digits): a reference near
        // Int64's ends would otherwise overflow the arithmetic below (found by make fuzz-httpcache).
        let referenceYear = min(max(CivilCalendar.civil(fromDays: CivilCalendar.floorDivide(reference, 86_400)).year, 1), 9999)
        var year = referenceYear - CivilCalendar.floorModulo(referenceYear, 100) + twoDigits
        if year > referenceYear + 50 { year -= 100 } else if year <= referenceYear - 50 { year += 100 }
        return seconds(year: year, month: month, day: day, time: time, weekday: weekday)
    }

    /// asctime-date: `Sun Nov  6 08:49:37 1994`.
    private static func asctime(_ text: ArraySlice<UInt8>) -> Int64? {
        var scanner = Scanner(text)
        guard let name = scanner.letters(3), let weekday = days.firstIndex(of: name), scanner.literal(" "),
              let month = scanner.month(), scanner.literal(" ")
        else { return nil }
        let day: Int64
        if scanner.literal(" ") {
            guard let one = scanner.digits(1) else { return nil }
            day = one
        } else {
            guard let two = scanner.digits(2) else { return nil }
            day = two
        }
        guard scanner.literal(" "), let time = scanner.timeOfDay(), scanner.literal(" "), let year = scanner.digits(4),
              scanner.atEnd
        else { return nil }
        return seconds(year: year, month: month, day: day, time: time, weekday: weekday)
    }

    /// The checked date as seconds since 1970; nil for a day the month does not have or a
    /// weekday that is not the date's.
    private static func seconds(year: Int64, month: Int64, day: Int64, time: Int64, weekday: Int) -> Int64? {
        guard (0...9999).contains(year), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        let dayNumber = CivilCalendar.daysFromCivil(year: year, month: month, day: day)
        // 1970-01-01 was a Thursday (index 3, Monday first).
        guard CivilCalendar.floorModulo(dayNumber + 3, 7) == Int64(weekday) else { return nil }
        return dayNumber * 86_400 + time
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `seconds` as an IMF-fixdate (any `Int64`; years past 9999 or before 0000 are written
    /// with more or fewer digits and do not parse back).
    static func format(_ seconds: Int64) -> String {
        let days = CivilCalendar.floorDivide(seconds, 86_400)
        let rest = CivilCalendar.floorModulo(seconds, 86_400)
        let (y, m, d) = CivilCalendar.civil(fromDays: days)
        let weekday = self.days[Int(CivilCalendar.floorModulo(days + 3, 7))]
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let digits = String(y)
        let year = y >= 0 && digits.count < 4 ? String(repeating: "0", count: 4 - digits.count) + digits : digits
        return "\(weekday), \(two(d)) \(months[Int(m - 1)]) \(year) \(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60)) GMT"
    }

    /// Reads the fixed-width pieces of a date, byte by byte.
    private struct Scanner {
        var bytes: ArraySlice<UInt8>

        init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

        var atEnd: Bool { bytes.isEmpty }

        /// Consumes `text` if the input starts with exactly it.
        mutating func literal(_ text: String) -> Bool {
            let wanted = Array(text.utf8)
            guard bytes.starts(with: wanted) else { return false }
            bytes = bytes.dropFirst(wanted.count)
            return true
        }

        /// Exactly `count` ASCII digits.
        mutating func digits(_ count: Int) -> Int64? {
            guard bytes.count >= count else { return nil }
            var value: Int64 = 0
            for byte in bytes.prefix(count) {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            bytes = bytes.dropFirst(count)
            return value
        }

        /// Exactly `count` ASCII letters.
        mutating func letters(_ count: Int) -> String? {
            let candidate = bytes.prefix(count)
            guard candidate.count == count,
                  candidate.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }) else { return nil }
            bytes = bytes.dropFirst(count)
            return String(decoding: candidate, as: UTF8.self)
        }

        /// A month name (case-sensitive), as 1…12.
        mutating func month() -> Int64? {
            guard let name = letters(3), let index = HTTPDate.months.firstIndex(of: name) else { return nil }
            return Int64(index + 1)
        }

        /// `HH:MM:SS` as seconds into the day.
        mutating func timeOfDay() -> Int64? {
            guard let hour = digits(2), literal(":"), let minute = digits(2), literal(":"), let second = digits(2),
                  hour <= 23, minute <= 59, second <= 60 else { return nil }
            return hour * 3600 + minute * 60 + second
        }
    }
}
