/// Small pieces the text decoders share.
enum TextDecoding {
    /// The value without one trailing NUL byte (Netatalk's and Samba's), if it has one.
    static func droppingOneNUL(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        bytes.last == 0 ? bytes.dropLast() : bytes
    }

    /// UTF-8 text, invalid sequences replaced by U+FFFD (the raw bytes are not text anyone
    /// could act on; printers escape control characters).
    static func text(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }


    /// A short, printable quotation of a field for a reason (at most 24 characters, control
    /// characters and non-ASCII bytes as `\xNN`).
    static func quoted(_ bytes: some Collection<UInt8>) -> String {
        var out = "\""
        for (index, byte) in bytes.enumerated() {
            if index == 24 {
                out += "…"
                break
            }
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16)
                out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out + "\""
    }

    /// The undecodable content of a whole value that holds URLs (a WhereFroms list, a
    /// `Zone.Identifier`): its bytes without the credentials SPEC §6's rule finds in them.
    static func undecodableHidingCredentials(_ bytes: some Collection<UInt8>, _ reason: String) -> ProvenanceMark.Content {
        .undecodable(UndecodableValue(hidingCredentialsIn: bytes, reason: reason, isURL: false))
    }

    /// The undecodable content of `bytes` for `reason`.
    static func undecodable(_ bytes: some Collection<UInt8>, _ reason: String) -> ProvenanceMark.Content {
        .undecodable(UndecodableValue(bytes: bytes, reason: reason))
    }
}
