internal import XDSSystem

/// A point in time as a mark stores it: seconds since 1970-01-01 UTC and nanoseconds.
public struct ProvenanceTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Whole seconds since 1970-01-01 00:00:00 UTC (negative before).
    public let seconds: Int64
    /// Nanoseconds past ``seconds``, 0 to 999 999 999.
    public let nanoseconds: Int32

    /// Creates one; `nanoseconds` must be in 0..<1 000 000 000 (else nil).
    public init?(seconds: Int64, nanoseconds: Int32 = 0) {
        guard nanoseconds >= 0, nanoseconds < 1_000_000_000 else { return nil }
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// ISO 8601 in UTC: `2020-11-12T12:27:26Z`, with a fraction only when there is one, without
    /// trailing zeros (`…26.185Z`).
    public var iso8601: String {
        let days = CivilCalendar.floorDivide(seconds, 86_400)
        let second = CivilCalendar.floorModulo(seconds, 86_400)
        let date = CivilCalendar.civil(fromDays: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var year = String(date.year)
        if date.year >= 0 && date.year < 1000 { year = String(repeating: "0", count: 4 - year.count) + year }
        var text = "\(year)-\(two(date.month))-\(two(date.day))T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))"
        if nanoseconds != 0 {
            var fraction = String(nanoseconds)
            fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text + "Z"
    }

    /// ``iso8601``.
    public var description: String { iso8601 }

    /// Earlier first.
    public static func < (a: ProvenanceTime, b: ProvenanceTime) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }
}
