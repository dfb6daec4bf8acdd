/// Windows' `Zone.Identifier` stream (MS-FSCC §5.6.1; Chromium's
/// components/services/quarantine/quarantine_win.cc writes it): INI text with a `[ZoneTransfer]` section
/// holding `ZoneId` (optional: curl writes none), `HostUrl` and `ReferrerUrl`. UTF-8 (a BOM
/// allowed) or UTF-16 with a BOM, CRLF or LF lines; keys and the section name in any case, the
/// first of a repeated key wins, other keys and sections are ignored. Without the section, or
/// with a `ZoneId` that is not a number, it is undecodable.
enum ZoneIdentifierDecoding {
    static func decode(_ raw: [UInt8]) -> ProvenanceMark.Content {
        guard let text = decodeText(raw) else {
            return TextDecoding.undecodableHidingCredentials(raw, "the Zone.Identifier value is UTF-16 of an odd number of bytes")
        }
        var inSection = false
        var sawSection = false
        var zone: Int?
        var zoneText: Substring?
        var host: String?
        var referrer: String?
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            if line.first == "[" {
                let name = line.dropFirst().prefix { $0 != "]" }
                inSection = name.lowercased() == "zonetransfer"
                sawSection = sawSection || inSection
                continue
            }
            guard inSection, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingSpaces.lowercased()
            let value = line[line.index(after: equals)...].trimmingSpaces
            switch key {
            case "zoneid" where zoneText == nil: zoneText = value
            case "hosturl" where host == nil: host = String(value)
            case "referrerurl" where referrer == nil: referrer = String(value)
            default: break
            }
        }
        guard sawSection else {
            return TextDecoding.undecodableHidingCredentials(raw, "the Zone.Identifier value has no [ZoneTransfer] section")
        }
        if let zoneText {
            guard zoneText.count <= 9, !zoneText.isEmpty, let number = Int(zoneText) else {
                return TextDecoding.undecodableHidingCredentials(raw, "the ZoneId \(TextDecoding.quoted(zoneText.utf8)) is not a number")
            }
            zone = number
        }
        return .zoneIdentifier(ZoneIdentifier(zone: zone, hostURL: host, referrerURL: referrer))
    }

    /// The text of the value: UTF-16 LE or BE after its BOM, else UTF-8 (after a BOM if any),
    /// trailing NULs dropped; nil for UTF-16 of an odd length.
    private static func decodeText(_ raw: [UInt8]) -> String? {
        if raw.count >= 2, (raw[0] == 0xFF && raw[1] == 0xFE) || (raw[0] == 0xFE && raw[1] == 0xFF) {
            let little = raw[0] == 0xFF
            var body = raw.dropFirst(2)
            // One NUL character (two bytes) at the end, as a stream may keep one, or Samba's one byte.
            if body.count % 2 == 1, body.last == 0 { body = body.dropLast() }
            guard body.count % 2 == 0 else { return nil }
            var units: [UInt16] = []
            units.reserveCapacity(body.count / 2)
            var index = body.startIndex
            while index < body.endIndex {
                let (a, b) = (UInt16(body[index]), UInt16(body[index + 1]))
                units.append(little ? b << 8 | a : a << 8 | b)
                index += 2
            }
            while units.last == 0 { units.removeLast() }
            return String(decoding: units, as: UTF16.self)
        }
        var body = raw[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        while body.last == 0 { body = body.dropLast() }
        return TextDecoding.text(body)
    }
}

extension Substring {
    /// Without spaces and tabs at either end.
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
