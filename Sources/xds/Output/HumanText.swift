import XDocSource

/// Readable, terminal-safe text for `xds show`.
enum HumanText {
    /// Text with control characters made visible (`\n`, `\u{1B}`, bidi controls such as
    /// `\u{202e}`), so a hostile value cannot move the cursor, recolour the terminal or reorder
    /// what it shows.
    static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where isControl(scalar): out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// One-line rendering of any property-list value: strings quoted, dates ISO-8601, data as
    /// its size and first bytes in hex, arrays and dictionaries inline with sorted keys.
    static func value(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let s): return "\"" + safe(s).replacingAll("\"", with: "\\\"") + "\""
        case .integer(let i): return String(i)
        case .unsignedInteger(let u): return String(u)
        case .real(let r): return String(r)
        case .boolean(let b): return b ? "true" : "false"
        case .date(let d): return PropertyListDate.text(d)
        case .data(let bytes):
            let hex = bytes.prefix(16).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            return "<\(bytes.count) byte\(bytes.count == 1 ? "" : "s")\(bytes.isEmpty ? "" : ": " + hex)\(bytes.count > 16 ? "…" : "")>"
        case .uid(let u): return "UID(\(u))"
        case .array(let items): return "[" + items.map(Self.value).joined(separator: ", ") + "]"
        case .dictionary(let entries):
            return "{" + entries.sorted { $0.key < $1.key }
                .map { "\"" + safe($0.key) + "\": " + Self.value($0.value) }.joined(separator: ", ") + "}"
        }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            || scalar == "\u{2028}" || scalar == "\u{2029}" || isBidiControl(scalar)
    }

    /// Bidi embeddings, overrides and isolates: a hostile value could make a
    /// terminal that does bidi show text in another order than it is ("Trojan Source").
    private static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
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
