/// JSON string literals, written by hand (Foundation's encoder costs start-up time): the one
/// escaper behind every JSON text the modules and `xds` write (XDocSource's `JSONText`,
/// appInfo.json, `xds --json` lines).
package enum JSONString {
    /// A JSON string literal: quotes, backslash and every control character escaped, and
    /// U+2028/U+2029 too (JavaScript treats them as line ends).
    package static func literal(_ text: String) -> String {
        // Most strings need no escape: one pass over the UTF-8 bytes, then one copy.
        if !needsEscape(text) { return "\"" + text + "\"" }
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
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Appends ``literal(_:)`` of `text` to `out` as UTF-8 bytes, without a String in between
    /// for the common string that needs no escape.
    package static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        let plain = text.withUTF8 { bytes in
            guard !needsEscape(bytes) else { return false }
            out.append(0x22)
            out.append(contentsOf: bytes)
            out.append(0x22)
            return true
        }
        if !plain { out.append(contentsOf: literal(text).utf8) }
    }

    /// Whether ``literal(_:)`` must escape something in the UTF-8 bytes `bytes` (as
    /// ``needsEscape(_:)`` for a string).
    package static func needsEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Eight bytes at a time while none is a candidate (below 0x20, `"`, `\`, DEL, or 0xE2
        // that may start U+2028/U+2029); from the first word with one, byte by byte.
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        var index = 0
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                if (word &- ones &* 0x20) & ~word & highs != 0 || hasZero(word ^ (ones &* 0x22))
                    || hasZero(word ^ (ones &* 0x5C)) || hasZero(word ^ (ones &* 0x7F)) || hasZero(word ^ (ones &* 0xE2)) {
                    break
                }
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F { return true }
            if byte == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80,
               bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 { return true }
            index += 1
        }
        return false
    }

    /// Whether ``literal(_:)`` must escape something in `text`: a quote, a backslash, a control
    /// character (C0 or DEL), or U+2028/U+2029 (UTF-8 E2 80 A8/A9).
    package static func needsEscape(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { needsEscape($0) }
    }
}
