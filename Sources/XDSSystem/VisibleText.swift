/// The one escaper for text shown to people (human `show` output, `xds: FILE: reason` lines,
/// values quoted in error messages): everything that could hide, reorder or restyle text on a
/// terminal is written as a visible escape, and `\` itself is doubled so an escape in the
/// output can always be told from the same characters typed literally in the value.
///
/// Escaped: C0 and C1 controls and DEL (`\n`, `\r`, `\t`, else `\u{1b}`), U+2028/U+2029,
/// zero-width and directional marks (U+200B–U+200F, U+061C), bidi embeddings, overrides and
/// isolates (U+202A–U+202E, U+2066–U+2069), the soft hyphen U+00AD and U+FEFF.
package enum VisibleText {
    /// `text` with every invisible or terminal-driving character escaped.
    package static func escaped(_ text: some StringProtocol) -> String {
        escapedScalars(text)
    }

    /// ``escaped(_:)`` of a String: printable ASCII without `\` (most names) is asked about in
    /// one pass over its bytes. The generic form ran unspecialised from other modules, scalar
    /// by scalar: a third of `check`'s work a record (issue 35).
    package static func escaped(_ text: String) -> String {
        var copy = text
        let plain = copy.withUTF8 { bytes in !bytes.contains { $0 < 0x20 || $0 >= 0x7F || $0 == 0x5C } }
        return plain ? text : escapedScalars(text)
    }

    private static func escapedScalars(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return String(text) }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars { append(scalar, to: &out) }
        return out
    }

    /// `text` with the same characters escaped as ``escaped(_:)`` except `\`, which is left as
    /// it is: for messages (error reasons) whose quoted input the libraries have already passed
    /// through ``quoted(_:limit:)``, so their escapes are not escaped a second time. Whatever
    /// else such a message holds raw still cannot break the line or drive the terminal.
    package static func escapedMessage(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: { $0 != "\\" && needsEscape($0) }) else { return String(text) }
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar == "\\" { out += "\\" } else { append(scalar, to: &out) }
        }
        return out
    }

    /// `text` quoted in single quotes for a one-line message, escaped as ``escaped(_:)`` and
    /// cut after `limit` characters with "…".
    package static func quoted(_ text: some StringProtocol, limit: Int = 60) -> String {
        var out = "'"
        for (count, scalar) in text.unicodeScalars.enumerated() {
            if count == limit {
                out += "…"
                break
            }
            append(scalar, to: &out)
        }
        return out + "'"
    }

    /// Whether `scalar` is written as an escape.
    package static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x5C, 0x7F...0x9F, 0xAD, 0x061C, 0x200B...0x200F, 0x2028, 0x2029,
             0x202A...0x202E, 0x2066...0x2069, 0xFEFF:
            true
        default:
            false
        }
    }

    /// Whether `scalar` shows nothing by itself: white space, controls, zero-width, format and
    /// directional marks (a name made only of these is no name).
    package static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.isWhitespace || needsEscape(scalar) && scalar != "\\" { return true }
        switch scalar.properties.generalCategory {
        case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .unassigned,
             .surrogate, .privateUse:
            return true
        case .nonspacingMark, .enclosingMark:
            return true
        default:
            // U+3164 HANGUL FILLER, U+115F/U+1160 and U+FFA0 render blank though they are letters.
            return [0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800].contains(scalar.value)
        }
    }

    private static func append(_ scalar: Unicode.Scalar, to out: inout String) {
        switch scalar {
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where needsEscape(scalar): out += "\\u{" + String(scalar.value, radix: 16) + "}"
        default: out.unicodeScalars.append(scalar)
        }
    }
}
