import XDocSource

/// Hand-written JSON output (Foundation's encoder costs start-up time).
///
/// Property-list values map to JSON as `xds show --help` documents: strings, numbers and
/// booleans as themselves, data as a base64 string, dates as ISO-8601 strings, UIDs as
/// `{"CF$UID": n}`, non-finite reals as the strings "NaN", "Infinity", "-Infinity";
/// dictionary keys sorted.
enum JSON {
    /// A JSON string literal: quotes, backslash and every control character escaped.
    static func string(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            // Controls, DEL, and the two separators JavaScript treats as line ends.
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The JSON rendering of a property-list value.
    static func value(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let s): return string(s)
        case .integer(let i): return String(i)
        case .unsignedInteger(let u): return String(u)
        case .real(let r): return real(r)
        case .boolean(let b): return b ? "true" : "false"
        case .date(let d): return string(PlistDate.iso8601(d))
        case .data(let bytes): return string(Base64.encode(bytes))
        case .uid(let u): return "{\"CF$UID\":\(u)}"
        case .array(let items): return "[" + items.map(Self.value).joined(separator: ",") + "]"
        case .dictionary(let entries): return object(entries)
        }
    }

    /// A JSON object of property-list values, keys sorted.
    static func object(_ entries: [String: PropertyListValue]) -> String {
        "{" + entries.sorted { $0.key < $1.key }.map { string($0.key) + ":" + value($0.value) }
            .joined(separator: ",") + "}"
    }

    private static func real(_ r: Double) -> String {
        if r.isNaN { return "\"NaN\"" }
        if r.isInfinite { return r < 0 ? "\"-Infinity\"" : "\"Infinity\"" }
        return String(r)  // Swift's shortest round-trip form ("1.5", "1e+20") is valid JSON
    }
}
