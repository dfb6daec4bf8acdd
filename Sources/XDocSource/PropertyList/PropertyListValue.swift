/// Any property-list value, kept exactly so other apps' keys round-trip.
///
/// Integers are split the way binary plists store them: ``integer(_:)`` holds every value
/// that fits in `Int64` (negative ones included); ``unsignedInteger(_:)`` only values above
/// `Int64.max`, which binary plists store as 16-byte integers.
public indirect enum PropertyListValue: Sendable, Hashable {
    /// A Unicode string.
    case string(String)
    /// An integer that fits in `Int64`.
    case integer(Int64)
    /// An unsigned integer above `Int64.max` (smaller values are always ``integer(_:)``).
    case unsignedInteger(UInt64)
    /// A floating-point number.
    case real(Double)
    /// A boolean.
    case boolean(Bool)
    /// A date, as seconds since 2001-01-01 00:00:00 UTC (the plist epoch).
    case date(Double)
    /// Raw bytes.
    case data([UInt8])
    /// A keyed-archiver object reference (`CF$UID`).
    case uid(UInt64)
    /// An ordered list of values.
    case array([PropertyListValue])
    /// A dictionary with string keys.
    case dictionary([String: PropertyListValue])

    /// Short type name for messages: "string", "integer", "dictionary", …
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer, .unsignedInteger: "integer"
        case .real: "real"
        case .boolean: "boolean"
        case .date: "date"
        case .data: "data"
        case .uid: "uid"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }

    /// The type name with an article, for sentences: "an integer", "a dictionary", "data".
    public var typeNameInSentence: String {
        switch self {
        case .string: "a string"
        case .integer, .unsignedInteger: "an integer"
        case .real: "a real number"
        case .boolean: "a boolean"
        case .date: "a date"
        case .data: "data"
        case .uid: "a UID"
        case .array: "an array"
        case .dictionary: "a dictionary"
        }
    }

    /// Creates the canonical integer case for an unsigned value: ``integer(_:)`` when it
    /// fits in `Int64`, else ``unsignedInteger(_:)``.
    public static func integer(unsigned value: UInt64) -> PropertyListValue {
        value <= UInt64(Int64.max) ? .integer(Int64(value)) : .unsignedInteger(value)
    }
}
