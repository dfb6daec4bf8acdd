import Testing
import XDSProvenance

/// The decoders of every kind, on bytes built from the documented layouts and on hostile ones.
@Suite struct ProvenanceDecoderTests {
    private func quarantine(_ text: String) -> Quarantine? {
        if case .quarantine(let value) = ProvenanceDecoder.content(of: .quarantine, Array(text.utf8)) { return value }
        return nil
    }

    private func reason(_ content: ProvenanceMark.Content) -> String? {
        if case .undecodable(let value) = content { return value.reason }
        return nil
    }

    @Test func quarantineOfSafari() throws {
        #expect(MarkBytes.exiftoolQuarantine.count == 21)
        let content = ProvenanceDecoder.content(of: .quarantine, MarkBytes.exiftoolQuarantine)
        guard case .quarantine(let value) = content else { Issue.record("\(content)"); return }
        #expect(value.flags == "0082")
        #expect(value.flagBits == 0x82)
        #expect(value.flagNames == ["sandbox"])
        #expect(value.time?.iso8601 == "2020-11-12T12:27:26Z")
        #expect(value.agent == "Safari")
        #expect(value.eventID == nil)
    }

    @Test func quarantineEscapesFieldsAndOldForms() throws {
        let chrome = try #require(quarantine("0001;54208977;Google\\x20Chrome;6450771A-1F5B-4C05-9F2B-6D1C11D0E0C5"))
        #expect(chrome.agent == "Google Chrome")
        #expect(chrome.flagNames == ["download"])
        #expect(chrome.eventID == "6450771A-1F5B-4C05-9F2B-6D1C11D0E0C5")
        #expect(try #require(quarantine("00c1;58371e3c;Safari.app;")).flagNames == ["download", "user-approved"])
        #expect(try #require(quarantine("0047;0;a")).flagNames == ["download", "sandbox", "hard", "user-approved"])
        // Trailing fields missing, an escape that is not one, 10.5's form, Netatalk's NUL.
        let bare = try #require(quarantine("0083"))
        #expect(bare.time == nil && bare.agent == nil && bare.eventID == nil)
        #expect(try #require(quarantine("0000;4727bb8d")).agent == nil)
        #expect(try #require(quarantine("0000;;A\\x2;")).agent == "A\\x2")
        #expect(try #require(quarantine("0000;4727bb8d;Minefield;|org.mozilla.firefox")).eventID == "|org.mozilla.firefox")
        #expect(try #require(quarantine("0082;5fad2a2e;Safari;\u{0}")).eventID == nil)
        // An escaped control character is unescaped in the library (printers escape it again).
        #expect(try #require(quarantine("0000;0;Evil\\x1b[31m")).agent == "Evil\u{1B}[31m")
    }

    @Test func quarantineThatDoesNotDecode() {
        let cases = ["008;5fad2a2e;Safari;", "00x2;5fad2a2e;", "", "00820;1;", "0082;zz;Safari", "0082;10000000000000000;"]
        for text in cases {
            let content = ProvenanceDecoder.content(of: .quarantine, Array(text.utf8))
            #expect(reason(content) != nil, "\(text)")
        }
        #expect(reason(ProvenanceDecoder.content(of: .quarantine, Array("\u{1B}[2J;1;".utf8)))
            == "the quarantine flags \"\\x1b[2J\" are not 4 hex digits")
    }

    @Test func whereFromsOfExifTool() {
        #expect(MarkBytes.exiftoolWhereFroms.count == 83)
        #expect(ProvenanceDecoder.content(of: .whereFroms, MarkBytes.exiftoolWhereFroms)
            == .whereFroms(["https://exiftool.org/test/sample.jpg"]))
        let mail = MarkBytes.bplistArray([MarkBytes.string("Joe <joe@example.com>"), MarkBytes.string("Re: hi"),
                                          MarkBytes.string("<1@example.com>")])
        #expect(ProvenanceDecoder.content(of: .whereFroms, mail) == .whereFroms(["Joe <joe@example.com>", "Re: hi", "<1@example.com>"]))
    }

    @Test func whereFromsThatDoNotDecode() {
        // A date where a string belongs, a root that is a string, text, an empty value.
        let wrong = MarkBytes.bplistArray([MarkBytes.string("https://a.example/"), MarkBytes.date(0)])
        #expect(reason(ProvenanceDecoder.content(of: .whereFroms, wrong)) == "item 2 of the WhereFroms list is a date, not a string")
        #expect(reason(ProvenanceDecoder.content(of: .whereFroms, Array("https://a.example/".utf8)))?.hasPrefix("malformed WhereFroms list") == true)
        #expect(reason(ProvenanceDecoder.content(of: .whereFroms, [])) != nil)
        // A list that claims 1 001 strings is refused from its header, before any parse.
        let claims = Array("bplist00".utf8) + [0xAF, 0x11, 0x03, 0xE9] + [8]  // 0x03E9 = 1001, then the offset table
            + [0, 0, 0, 0, 0, 0, 1, 1] + MarkBytes.be64(1) + MarkBytes.be64(0) + MarkBytes.be64(12)
        let reasonText = reason(ProvenanceDecoder.content(of: .whereFroms, claims))
        #expect(reasonText == "the WhereFroms list holds 1001 strings, more than the 1000 accepted (damaged data)")
        // Over 1 MiB: damaged, whatever it holds.
        let huge = [UInt8](repeating: 0x41, count: (1 << 20) + 1)
        #expect(reason(ProvenanceDecoder.content(of: .whereFroms, huge))?.contains("more than the 1 MiB accepted") == true)
        if case .undecodable(let value) = ProvenanceDecoder.content(of: .whereFroms, huge) {
            #expect(value.bytes.count == UndecodableValue.maximumKept)
        }
    }

    @Test func whereFromsOfAThousandStrings() {
        // 1 000 strings decode; 1 001 real ones do not (built with 2-byte offsets).
        func list(_ count: Int) -> [UInt8] {
            var out = Array("bplist00".utf8)
            var offsets = [out.count]
            out += [0xAF, 0x11, UInt8(count >> 8), UInt8(count & 255)]
            for index in 1...count { out += [UInt8(index >> 8), UInt8(index & 255)] }
            for _ in 0..<count {
                offsets.append(out.count)
                out += [0x51, 0x61]
            }
            let table = out.count
            for offset in offsets { out += [UInt8(offset >> 8), UInt8(offset & 255)] }
            out += [0, 0, 0, 0, 0, 0, 2, 2] + MarkBytes.be64(offsets.count) + MarkBytes.be64(0) + MarkBytes.be64(table)
            return out
        }
        #expect(ProvenanceDecoder.content(of: .whereFroms, list(1000)) == .whereFroms([String](repeating: "a", count: 1000)))
        #expect(reason(ProvenanceDecoder.content(of: .whereFroms, list(1001)))?.contains("1001 strings") == true)
    }

    @Test func downloadedDateOfExifTool() {
        #expect(MarkBytes.exiftoolDownloadedDate.count == 53)
        #expect(ProvenanceDecoder.content(of: .downloadedDate, MarkBytes.exiftoolDownloadedDate)
            == .downloadedDate(ProvenanceTime(seconds: 1_605_184_046, nanoseconds: 185_120_000)!))
        #expect(ProvenanceTime(seconds: 1_605_184_046, nanoseconds: 185_120_000)!.iso8601 == "2020-11-12T12:27:26.18512Z")
        #expect(reason(ProvenanceDecoder.content(of: .downloadedDate, MarkBytes.bplistArray([]))) == "the downloaded-date list holds no date")
        #expect(reason(ProvenanceDecoder.content(of: .downloadedDate, MarkBytes.bplistArray([MarkBytes.string("x")])))
            == "the downloaded-date value holds a string, not a date")
        // NaN (0x7ff8…) has no time.
        #expect(reason(ProvenanceDecoder.content(of: .downloadedDate, MarkBytes.bplistArray([MarkBytes.date(0x7FF8_0000_0000_0000)]))) != nil)
    }

    @Test func lastUsedDate() {
        #expect(ProvenanceDecoder.content(of: .lastUsedDate, MarkBytes.exiftoolLastUsedDate)
            == .lastUsedDate(ProvenanceTime(seconds: 1_605_184_046, nanoseconds: 178_585_052)!))
        #expect(ProvenanceDecoder.content(of: .lastUsedDate, MarkBytes.exiftoolLastUsedDate + [0])
            == .lastUsedDate(ProvenanceTime(seconds: 1_605_184_046, nanoseconds: 178_585_052)!))
        #expect(reason(ProvenanceDecoder.content(of: .lastUsedDate, Array(MarkBytes.exiftoolLastUsedDate.prefix(4))))
            == "a last-used date is 16 bytes, this one is 4 bytes")
        #expect(reason(ProvenanceDecoder.content(of: .lastUsedDate, MarkBytes.exiftoolLastUsedDate + [1])) != nil)
        var badNanos = MarkBytes.exiftoolLastUsedDate
        badNanos[15] = 0x80
        #expect(reason(ProvenanceDecoder.content(of: .lastUsedDate, badNanos)) != nil)
    }

    @Test func extremeTimesStillPrint() throws {
        let far = try #require(quarantine("0000;7fffffffffffffff;"))
        #expect(far.time?.seconds == Int64.max)
        #expect(far.time?.iso8601.hasSuffix("Z") == true)
        // Int64.min seconds and 999 999 999 ns in a last-used date.
        let bytes: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0x80, 0xFF, 0xC9, 0x9A, 0x3B, 0, 0, 0, 0]
        guard case .lastUsedDate(let time) = ProvenanceDecoder.content(of: .lastUsedDate, bytes) else {
            Issue.record("not a date"); return
        }
        #expect(time.seconds == Int64.min && time.nanoseconds == 999_999_999)
        #expect(time.iso8601.hasSuffix(".999999999Z"))
    }

    @Test func macOSProvenanceIsKeptAsBytes() {
        let bytes: [UInt8] = [0x01, 0x02, 0x00, 0xD5, 0xF3, 0x24, 0x7E, 0x64, 0xBD, 0xE9, 0x45]
        #expect(ProvenanceDecoder.content(of: .macOSProvenance, bytes) == .macOSProvenance(bytes))
    }

    @Test func zoneIdentifiers() {
        let expected = ZoneIdentifier(zone: 3, hostURL: "https://mirrors.ocf.berkeley.edu/gnu/make/make-4.2.tar.bz2",
                                      referrerURL: "https://mirrors.ocf.berkeley.edu/gnu/make/")
        #expect(ProvenanceDecoder.content(of: .zoneIdentifier, MarkBytes.zoneIdentifier) == .zoneIdentifier(expected))
        // LF lines, a UTF-8 BOM, Samba's NUL.
        let lf = Array(String(decoding: MarkBytes.zoneIdentifier, as: UTF8.self).replacingOccurrences("\r\n", "\n").utf8)
        #expect(ProvenanceDecoder.content(of: .zoneIdentifier, [0xEF, 0xBB, 0xBF] + lf + [0]) == .zoneIdentifier(expected))
        // UTF-16 little- and big-endian with a BOM.
        let utf16 = Array(String(decoding: MarkBytes.zoneIdentifier, as: UTF8.self).utf16)
        let little: [UInt8] = [0xFF, 0xFE] + utf16.flatMap { (unit: UInt16) -> [UInt8] in [UInt8(unit & 255), UInt8(unit >> 8)] }
        let big: [UInt8] = [0xFE, 0xFF] + utf16.flatMap { (unit: UInt16) -> [UInt8] in [UInt8(unit >> 8), UInt8(unit & 255)] }
        #expect(ProvenanceDecoder.content(of: .zoneIdentifier, little) == .zoneIdentifier(expected))
        #expect(ProvenanceDecoder.content(of: .zoneIdentifier, big) == .zoneIdentifier(expected))
        #expect(ProvenanceDecoder.content(of: .zoneIdentifier, Array(little.dropLast())) != .zoneIdentifier(expected))
        // curl's form without ZoneId; MS-FSCC's minimal form; keys in any case.
        let curl = Array("[ZoneTransfer]\r\nHostUrl=https://example.com/f.zip\r\nReferrerUrl=https://example.com/\r\n".utf8)
        #expect(ProvenanceDecoder.content(of: .zoneIdentifier, curl)
            == .zoneIdentifier(ZoneIdentifier(zone: nil, hostURL: "https://example.com/f.zip", referrerURL: "https://example.com/")))
        let minimal = ProvenanceDecoder.content(of: .zoneIdentifier, Array("[zonetransfer]\r\nzoneid=4".utf8))
        #expect(minimal == .zoneIdentifier(ZoneIdentifier(zone: 4, hostURL: nil, referrerURL: nil)))
        if case .zoneIdentifier(let value) = minimal { #expect(value.zoneName == "restricted") }
        // Keys of other sections do not count.
        let other = Array("[Other]\nZoneId=1\n[ZoneTransfer]\nZoneId=2\n".utf8)
        #expect(ProvenanceDecoder.content(of: .zoneIdentifier, other) == .zoneIdentifier(ZoneIdentifier(zone: 2, hostURL: nil, referrerURL: nil)))
    }

    @Test func zoneIdentifiersThatDoNotDecode() {
        #expect(reason(ProvenanceDecoder.content(of: .zoneIdentifier, Array("ZoneId=3\r\n".utf8)))
            == "the Zone.Identifier value has no [ZoneTransfer] section")
        #expect(reason(ProvenanceDecoder.content(of: .zoneIdentifier, Array("[ZoneTransfer]\r\nZoneId=three\r\n".utf8)))
            == "the ZoneId \"three\" is not a number")
        let huge = Array("[ZoneTransfer]\r\nZoneId=3\r\n".utf8) + [UInt8](repeating: 0x20, count: 1 << 16)
        #expect(reason(ProvenanceDecoder.content(of: .zoneIdentifier, huge))?.contains("more than the 64 KiB accepted") == true)
    }

    @Test func xdgFieldsOfOneStore() {
        let content = ProvenanceDecoder.xdg([(.url, Array("https://example.com/a".utf8)), (.referrer, Array("https://example.com/".utf8)),
                                             (.emailFrom, Array("joe@example.com\u{0}".utf8)), (.emailFrom, Array("second".utf8))])
        var expected = XDGOrigin()
        expected.url = "https://example.com/a"
        expected.referrer = "https://example.com/"
        expected.emailFrom = "joe@example.com"
        #expect(content == .xdg(expected))
        #expect(reason(ProvenanceDecoder.xdg([(.url, [0x68, 0xFF, 0x3A])])) == "the xdg url is not UTF-8 text")
    }

    @Test func marksOfOneStoreInTableOrder() throws {
        func value(_ name: String, _ bytes: [UInt8]) throws -> ProvenanceValue {
            ProvenanceValue(name: name, match: try #require(ProvenanceNames.match(attributeName: Array(name.utf8))), bytes: bytes)
        }
        let marks = ProvenanceDecoder.marks(store: .xattr, values: [
            try value("user.Zone.Identifier", MarkBytes.zoneIdentifier),
            try value("user.xdg.referrer.url", Array("https://example.com/".utf8)),
            try value("user.com.apple.quarantine", MarkBytes.exiftoolQuarantine),
            try value("user.xdg.origin.url", Array("https://example.com/a".utf8)),
        ])
        #expect(marks.map(\.kind) == [.quarantine, .xdg, .zoneIdentifier])
        #expect(marks[1].names == ["user.xdg.origin.url", "user.xdg.referrer.url"])
        #expect(marks.allSatisfy { $0.store == .xattr })
        // Samba's NUL is taken off; a value refused as too large is an undecodable mark.
        let samba = ProvenanceValue(name: "user.DosStream.com.apple.lastuseddate#PS:$DATA",
                                    match: try #require(ProvenanceNames.match(attributeName: Array("user.DosStream.com.apple.lastuseddate#PS:$DATA".utf8))),
                                    bytes: MarkBytes.exiftoolLastUsedDate + [0])
        let tooLarge = ProvenanceValue(name: "user.com.apple.quarantine", match: try #require(ProvenanceNames.match(attributeName: Array("user.com.apple.quarantine".utf8))),
                                       bytes: [], tooLarge: true)
        #expect(ProvenanceDecoder.marks(store: .sambaStream, values: [samba]).first?.content
            == .lastUsedDate(ProvenanceTime(seconds: 1_605_184_046, nanoseconds: 178_585_052)!))
        #expect(reason(ProvenanceDecoder.marks(store: .xattr, values: [tooLarge])[0].content)
            == "the quarantine value is larger than the filesystem's limit, more than the 64 KiB accepted (damaged data)")
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
