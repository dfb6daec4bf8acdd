/// Standard base64 with padding (RFC 4648 §4): how property-list data appears in JSON output
/// and in XML `<data>`.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The bytes as one line of padded base64, e.g. `[0, 1, 2]` → "AAEC".
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)]]
            out += rest == 2 ? [alphabet[Int(n >> 6 & 63)], UInt8(ascii: "=")] : [UInt8(ascii: "="), UInt8(ascii: "=")]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes padded base64 text as XML plists hold it: spaces, tabs and line breaks may
    /// stand anywhere (plistlib and CoreFoundation break lines), but every other character
    /// must be of the alphabet, the count a multiple of 4 and `=` only as the last one or two.
    ///
    /// - Returns: The bytes, or nil when the text is not valid base64.
    public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var sextets: [UInt8] = []
        sextets.reserveCapacity(text.count)
        var padding = 0
        for byte in text {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case UInt8(ascii: "="): padding += 1
            default:
                guard padding == 0, let value = sextet(byte) else { return nil }
                sextets.append(value)
            }
        }
        guard padding <= 2, (sextets.count + padding) % 4 == 0,
              padding == 0 || sextets.count % 4 == 4 - padding else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(sextets.count * 3 / 4)
        var i = 0
        while i + 4 <= sextets.count {
            let n = UInt32(sextets[i]) << 18 | UInt32(sextets[i + 1]) << 12 | UInt32(sextets[i + 2]) << 6 | UInt32(sextets[i + 3])
            out += [UInt8(n >> 16), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            i += 4
        }
        let rest = sextets.count - i
        if rest >= 2 {
            let n = UInt32(sextets[i]) << 18 | UInt32(sextets[i + 1]) << 12 | (rest == 3 ? UInt32(sextets[i + 2]) << 6 : 0)
            out.append(UInt8(n >> 16))
            if rest == 3 { out.append(UInt8(n >> 8 & 0xFF)) }
        }
        return out
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
