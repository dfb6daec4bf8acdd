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
        CivilCalendar.iso8601(secondsSince1970: seconds, fraction: Int64(nanoseconds), fractionDigits: 9)
    }

    /// ``iso8601``.
    public var description: String { iso8601 }

    /// Earlier first.
    public static func < (a: ProvenanceTime, b: ProvenanceTime) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }
}
