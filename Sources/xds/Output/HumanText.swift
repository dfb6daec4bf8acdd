import XDSSystem
import XDocSource

/// Readable, terminal-safe text for `xds show` (text is escaped with ``VisibleText``).
enum HumanText {
    /// One-line rendering of any property-list value: strings quoted, dates ISO-8601, data as
    /// its size and first bytes in hex, arrays and dictionaries inline with sorted keys.
    static func value(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let s): return quoted(s)
        case .integer(let i): return String(i)
        case .unsignedInteger(let u): return String(u)
        case .real(let r): return String(r)
        case .boolean(let b): return b ? "true" : "false"
        case .date(let d): return PropertyListDate.text(d)
        case .data(let bytes):
            let hex = Hex.string(bytes.prefix(16))
            return "<\(bytes.count) byte\(bytes.count == 1 ? "" : "s")\(bytes.isEmpty ? "" : ": " + hex)\(bytes.count > 16 ? "…" : "")>"
        case .uid(let u): return "UID(\(u))"
        case .array(let items): return "[" + items.map(Self.value).joined(separator: ", ") + "]"
        case .dictionary(let entries):
            return "{" + entries.sorted { $0.key < $1.key }
                .map { quoted($0.key) + ": " + Self.value($0.value) }.joined(separator: ", ") + "}"
        }
    }

    /// `text` escaped and in double quotes, a `"` inside written `\"` (unambiguous, since a
    /// literal `\` is written `\\`).
    private static func quoted(_ text: String) -> String {
        "\"" + VisibleText.escaped(text).replacingAll("\"", with: "\\\"") + "\""
    }
}

extension String {
    /// Replaces every occurrence of one character (no Foundation needed).
    func replacingAll(_ character: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == character { out += replacement } else { out.append(c) } }
        return out
    }
}
