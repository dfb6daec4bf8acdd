internal import XDSSystem

/// Property-list values as JSON text, written by hand (Foundation's encoder costs start-up time).
///
/// The mapping every reader of the attribute uses (`xds show --json` documents it):
/// * strings, integers and booleans as themselves; reals in Swift's shortest round-trip form,
///   and the non-finite ones as the strings "NaN", "Infinity", "-Infinity";
/// * data as a padded base64 string (``Base64/encode(_:)``);
/// * dates as ISO-8601 strings exact to the microsecond (``PropertyListDate/iso8601(_:)``);
///   a date outside years 0001–9999 as its number of seconds since 2001-01-01, written like a
///   real (so a non-finite one as "NaN", "Infinity" or "-Infinity");
/// * UIDs as `{"CF$UID": n}`;
/// * arrays as arrays, dictionaries as objects with their keys sorted.
public enum JSONText {
    /// A JSON string literal: quotes, backslash and every control character escaped, and
    /// U+2028/U+2029 too (JavaScript treats them as line ends).
    public static func string(_ text: String) -> String { JSONString.literal(text) }

    /// The JSON rendering of a property-list value (see the mapping above).
    public static func value(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let s): return string(s)
        case .integer(let i): return String(i)
        case .unsignedInteger(let u): return String(u)
        case .real(let r): return real(r)
        case .boolean(let b): return b ? "true" : "false"
        case .date(let d): return PropertyListDate.iso8601(d).map(string) ?? real(d)
        case .data(let bytes): return string(Base64.encode(bytes))
        case .uid(let u): return "{\"CF$UID\":\(u)}"
        case .array(let items): return "[" + items.map(Self.value).joined(separator: ",") + "]"
        case .dictionary(let entries): return object(entries)
        }
    }

    /// A JSON object of property-list values, keys sorted.
    public static func object(_ entries: [String: PropertyListValue]) -> String {
        "{" + entries.sorted { $0.key < $1.key }.map { string($0.key) + ":" + value($0.value) }
            .joined(separator: ",") + "}"
    }

    private static func real(_ r: Double) -> String {
        if r.isNaN { return "\"NaN\"" }
        if r.isInfinite { return r < 0 ? "\"-Infinity\"" : "\"Infinity\"" }
        return String(r)  // Swift's shortest round-trip form ("1.5", "1e+20") is valid JSON
    }
}

extension PropertyListValue {
    /// The value as JSON text, as ``JSONText/value(_:)`` maps it.
    public var json: String { JSONText.value(self) }
}
