internal import XDSSystem

/// Property-list dates as text, exact to the microsecond, without Foundation (it costs
/// start-up time).
///
/// A date is a `Double` of seconds since 2001-01-01 00:00:00 UTC. plistlib and
/// CoreFoundation store the double nearest to the real time, so the time is that double
/// rounded to the nearest microsecond (halves to even, as Python's `timedelta` does). The
/// rounding is done in integers on the double's exact binary value, and the calendar maths
/// (proleptic Gregorian, UTC, no leap seconds) in integers too, so no epoch is ever added in
/// floating point.
///
/// Dates that do not fall in years 0001–9999 once rounded, and non-finite ones, have no
/// ISO-8601 form here; they are shown as the number of seconds since 2001-01-01 (see
/// ``text(_:)`` and ``JSONText/value(_:)``).
public enum PropertyListDate {
    /// Seconds from 1970-01-01 to 2001-01-01, the property-list epoch.
    public static let epochOffset: Int64 = 978_307_200

    /// The date's time in whole microseconds since 2001-01-01, rounded to the nearest
    /// (halves to even); nil for non-finite values and those beyond ±4×10^11 s (±12 000 years).
    public static func microseconds(_ secondsSince2001: Double) -> Int64? {
        guard secondsSince2001.isFinite, secondsSince2001.magnitude < 4e11 else { return nil }
        let magnitude = secondsSince2001.magnitude
        // Below 2^-21 s (0.48 µs) everything rounds to zero; this also covers subnormals.
        guard magnitude >= 0x1p-21 else { return 0 }
        // magnitude = significand × 2^(exponent − 52) exactly, significand a 53-bit integer.
        let significand = magnitude.significandBitPattern | 1 << 52
        let shift = 52 - Int(magnitude.exponent)  // 14…73 fractional bits in this range
        let (high, low) = significand.multipliedFullWidth(by: 1_000_000)
        // (high, low) >> shift, rounded half to even.
        var quotient = shift >= 64 ? high >> (shift - 64) : high << (64 - shift) | low >> shift
        let roundBit = bit(high, low, shift - 1)
        let sticky = lowerBitsNonzero(high, low, below: shift - 1)
        if roundBit && (sticky || quotient & 1 == 1) { quotient += 1 }
        let micros = Int64(quotient)
        return secondsSince2001 < 0 ? -micros : micros
    }

    /// The broken-down UTC time of a date, or nil outside years 0001–9999.
    public static func components(_ secondsSince2001: Double) -> Components? {
        guard let micros = microseconds(secondsSince2001) else { return nil }
        let seconds = CivilCalendar.floorDivide(micros, 1_000_000) + epochOffset
        let fraction = micros - CivilCalendar.floorDivide(micros, 1_000_000) * 1_000_000
        let days = CivilCalendar.floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        guard (1...9999).contains(year) else { return nil }
        return Components(year: Int(year), month: Int(month), day: Int(day), hour: Int(secondOfDay / 3600),
                          minute: Int(secondOfDay / 60 % 60), second: Int(secondOfDay % 60),
                          microsecond: Int(fraction))
    }

    /// "2024-05-01T12:30:00Z", with a fraction of up to six digits (trailing zeros dropped)
    /// only when the microseconds are not zero; nil outside years 0001–9999 and for
    /// non-finite values.
    public static func iso8601(_ secondsSince2001: Double) -> String? {
        guard components(secondsSince2001) != nil, let micros = microseconds(secondsSince2001) else { return nil }
        let seconds = CivilCalendar.floorDivide(micros, 1_000_000)
        return CivilCalendar.iso8601(secondsSince1970: seconds + epochOffset, fraction: micros - seconds * 1_000_000,
                                     fractionDigits: 6)
    }

    /// The date for people: its ISO-8601 form, or outside years 0001–9999 (and for
    /// non-finite values) the seconds since the epoch, e.g. "1e+20 s since 2001-01-01".
    public static func text(_ secondsSince2001: Double) -> String {
        iso8601(secondsSince2001) ?? "\(secondsSince2001) s since 2001-01-01"
    }

    /// Seconds since 2001-01-01 of a UTC date and time, which must be valid (month 1–12,
    /// day within the month, hour 0–23, minute and second 0–59); nil otherwise.
    public static func secondsSince2001(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int64? {
        // Years beyond ±10^9 are not dates this calendar arithmetic (or Int64 seconds) can hold.
        guard (-1_000_000_000...1_000_000_000).contains(year),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        let days = CivilCalendar.daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day))
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - epochOffset
    }

    /// A date broken down in UTC.
    public struct Components: Sendable, Hashable {
        /// The year, 1–9999.
        public var year: Int
        /// The month, 1–12.
        public var month: Int
        /// The day of the month, 1–31.
        public var day: Int
        /// The hour, 0–23.
        public var hour: Int
        /// The minute, 0–59.
        public var minute: Int
        /// The second, 0–59.
        public var second: Int
        /// The microsecond, 0–999 999.
        public var microsecond: Int
    }

    // MARK: Integer helpers

    private static func bit(_ high: UInt64, _ low: UInt64, _ index: Int) -> Bool {
        (index >= 64 ? high >> (index - 64) : low >> index) & 1 == 1
    }

    /// Whether any of the bits below `index` is set.
    private static func lowerBitsNonzero(_ high: UInt64, _ low: UInt64, below index: Int) -> Bool {
        if index <= 0 { return false }
        if index >= 64 { return low != 0 || high & ((1 << (index - 64)) - 1) != 0 }
        return low & ((1 << index) - 1) != 0
    }


    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
