internal import XDSSystem

/// `com.apple.quarantine`: `FLAGS;HEXTIME;AGENT;UUID` (exiftool's
/// lib/Image/ExifTool/MacOS.pm reads HEXTIME so). FLAGS is 4 hex digits
/// (xnu parses `%04x;`); HEXTIME hex seconds since 1970; AGENT the app's name with bytes that
/// are not safe escaped as `\xNN` (`Google\x20Chrome`); UUID the key of the Mac's
/// quarantine-events database. Trailing fields may be missing; everything after the third `;`
/// is the event id (10.5's `|org.mozilla.firefox` form included).
enum QuarantineDecoding {
    static func decode(_ raw: [UInt8]) -> ProvenanceMark.Content {
        let bytes = TextDecoding.droppingOneNUL(raw[...])
        var fields: [ArraySlice<UInt8>] = []
        var rest = bytes
        while fields.count < 3, let semicolon = rest.firstIndex(of: UInt8(ascii: ";")) {
            fields.append(rest[..<semicolon])
            rest = rest[(semicolon + 1)...]
        }
        fields.append(rest)
        let flagField = fields[0]
        guard flagField.count == 4, flagField.allSatisfy({ Hex.value($0) != nil }) else {
            return TextDecoding.undecodable(raw, "the quarantine flags \(TextDecoding.quoted(flagField)) are not 4 hex digits")
        }
        let flagBits = flagField.reduce(UInt32(0)) { $0 << 4 | UInt32(Hex.value($1)!) }
        var time: ProvenanceTime?
        if fields.count > 1, !fields[1].isEmpty {
            let field = fields[1]
            guard field.count <= 16, field.allSatisfy({ Hex.value($0) != nil }) else {
                return TextDecoding.undecodable(raw, "the quarantine time \(TextDecoding.quoted(field)) is not a hex number")
            }
            let value = field.reduce(UInt64(0)) { $0 << 4 | UInt64(Hex.value($1)!) }
            guard value <= UInt64(Int64.max), let parsed = ProvenanceTime(seconds: Int64(value)) else {
                return TextDecoding.undecodable(raw, "the quarantine time \(TextDecoding.quoted(field)) is out of range")
            }
            time = parsed
        }
        var agent: String?
        if fields.count > 2, !fields[2].isEmpty {
            agent = TextDecoding.text(unescaped(fields[2]))
        }
        var eventID: String?
        if fields.count > 3, !fields[3].isEmpty {
            eventID = TextDecoding.text(fields[3])
        }
        return .quarantine(Quarantine(
            flags: TextDecoding.text(flagField), flagBits: flagBits, time: time, agent: agent, eventID: eventID))
    }

    /// `\xNN` escapes undone (two hex digits, either case); a backslash not followed by them is
    /// kept as it is.
    static func unescaped(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\"), bytes.endIndex - index >= 4, bytes[index + 1] == UInt8(ascii: "x"),
                let high = Hex.value(bytes[index + 2]), let low = Hex.value(bytes[index + 3])
            {
                out.append(high << 4 | low)
                index += 4
            } else {
                out.append(byte)
                index += 1
            }
        }
        return out
    }
}
