import Testing
import XDSProvenance

/// The one name table: every road's spelling of a mark's name maps to its kind and store.
@Suite struct ProvenanceNamesTests {
    private func match(_ name: String) -> ProvenanceNames.Match? {
        ProvenanceNames.match(attributeName: Array(name.utf8))
    }

    @Test func linuxNamesOfEveryKind() {
        #expect(match("user.x-document-source")?.kind == .xDocumentSource)
        #expect(match("user.com.apple.quarantine")?.kind == .quarantine)
        #expect(match("osx.com.apple.lastuseddate#PS")?.kind == .lastUsedDate)
        #expect(match("user.com.apple.metadata:kMDItemWhereFroms")?.kind == .whereFroms)
        #expect(match("user.com.apple.metadata:kMDItemDownloadedDate")?.kind == .downloadedDate)
        #expect(match("user.com.apple.provenance")?.kind == .macOSProvenance)
        #expect(match("user.Zone.Identifier")?.kind == .zoneIdentifier)
        #expect(match("user.xdg.origin.url") == .init(kind: .xdg, field: .url, isSambaStream: false))
        #expect(match("user.xdg.origin.email.sender")?.field == .emailSender)
        #expect(match("user.creator")?.field == .creator)
    }

    @Test func otherAttributesAreNotMarks() {
        for name in ["user.mime_type", "user.xdg.tags", "user.com.apple.FinderInfo", "user.org.netatalk.Metadata",
                     "user.DosStream.AFP_AfpInfo:$DATA", "user.", "user.DosStream.", "security.selinux",
                     "user.com.apple.metadata:_kMDItemUserTags", "trusted.x-document-source"] {
            #expect(match(name) == nil, "\(name)")
        }
    }

    @Test func sambaStreamsWithPrivateColon() {
        let whereFroms = Array("user.DosStream.com.apple.metadata".utf8) + ProvenanceNames.sambaColon
            + Array("kMDItemWhereFroms:$DATA".utf8)
        #expect(ProvenanceNames.match(attributeName: whereFroms) == .init(kind: .whereFroms, field: nil, isSambaStream: true))
        #expect(match("user.DosStream.Zone.Identifier:$DATA")?.isSambaStream == true)
        #expect(match("user.DosStream.com.apple.quarantine")?.kind == .quarantine)
        #expect(match("user.DosStream.com.apple.metadata:kMDItemWhereFroms:$DATA")?.kind == .whereFroms)
    }

    @Test func paxKeywordsInBothSpellings() {
        #expect(ProvenanceNames.match(paxKeyword: Array("SCHILY.xattr.user.com.apple.provenance".utf8))?.kind == .macOSProvenance)
        #expect(ProvenanceNames.match(paxKeyword: Array("LIBARCHIVE.xattr.com.apple.quarantine".utf8))?.kind == .quarantine)
        #expect(ProvenanceNames.match(paxKeyword: Array("LIBARCHIVE.xattr.com.apple.metadata%3AkMDItemWhereFroms".utf8))?.kind == .whereFroms)
        #expect(ProvenanceNames.match(paxKeyword: Array("SCHILY.xattr.user.mime_type".utf8)) == nil)
        #expect(ProvenanceNames.match(paxKeyword: Array("LIBARCHIVE.xattr.bad%4".utf8)) == nil)
        #expect(ProvenanceNames.match(paxKeyword: Array("path".utf8)) == nil)
    }

    /// Issue 31: Samba streams archived from a `streams_xattr` share, as GNU tar (raw) and
    /// bsdtar (NAME URL-encoded in both spellings) write them, are marks whose value ends in
    /// Samba's NUL; both spellings of one attribute give one name.
    @Test func paxKeywordsOfSambaStreams() {
        let samba = ProvenanceNames.Match(kind: .zoneIdentifier, field: nil, isSambaStream: true)
        #expect(ProvenanceNames.match(paxKeyword: Array("SCHILY.xattr.user.DosStream.Zone.Identifier:$DATA".utf8)) == samba)
        #expect(ProvenanceNames.match(paxKeyword: Array("LIBARCHIVE.xattr.user.DosStream.Zone.Identifier:$DATA".utf8)) == samba)
        let raw = Array("SCHILY.xattr.user.DosStream.com.apple.metadata\u{F022}kMDItemWhereFroms:$DATA".utf8)
        let encoded = Array("user.DosStream.com.apple.metadata%EF%80%A2kMDItemWhereFroms:$DATA".utf8)
        for keyword in [raw, Array("SCHILY.xattr.".utf8) + encoded, Array("LIBARCHIVE.xattr.".utf8) + encoded] {
            let found = ProvenanceNames.paxAttribute(keyword)
            #expect(found?.match == .init(kind: .whereFroms, field: nil, isSambaStream: true), "\(String(decoding: keyword, as: UTF8.self))")
            #expect(found?.name == Array("user.DosStream.com.apple.metadata\u{F022}kMDItemWhereFroms:$DATA".utf8))
        }
        #expect(ProvenanceNames.match(paxKeyword: Array("SCHILY.xattr.user.DosStream.com.apple.quarantine:$DATA".utf8))?.kind == .quarantine)
        #expect(ProvenanceNames.match(paxKeyword: Array("SCHILY.xattr.user.DosStream.user.mime_type:$DATA".utf8)) == nil)
        #expect(ProvenanceNames.match(paxKeyword: Array("SCHILY.xattr.user.xdg.origin.email.sender".utf8))?.field == .emailSender)
    }

    @Test func zoneFiles() {
        #expect(ProvenanceNames.zoneFileOwner(Array("report.pdf:Zone.Identifier".utf8)) == Array("report.pdf".utf8))
        // Exactly as Explorer writes it and zoneFileName(for:) makes it (ProvenanceFile opens that name).
        #expect(ProvenanceNames.zoneFileOwner(Array("a:zone.identifier".utf8)) == nil)
        #expect(ProvenanceNames.zoneFileOwner(Array("a:ZONE.IDENTIFIER".utf8)) == nil)
        #expect(ProvenanceNames.zoneFileOwner(ProvenanceNames.zoneFileName(for: Array("a".utf8))) == Array("a".utf8))
        #expect(ProvenanceNames.zoneFileOwner(Array(":Zone.Identifier".utf8)) == nil)
        #expect(ProvenanceNames.zoneFileOwner(Array("report.pdf".utf8)) == nil)
    }

    @Test func sambaTrailingNUL() {
        #expect(Array(ProvenanceNames.storedValue([1, 2, 0], kind: .quarantine, isSambaStream: true)) == [1, 2])
        #expect(Array(ProvenanceNames.storedValue([1, 2, 0], kind: .quarantine, isSambaStream: false)) == [1, 2, 0])
        let sixteen = [UInt8](repeating: 0, count: 16)
        #expect(ProvenanceNames.storedValue(sixteen, kind: .lastUsedDate, isSambaStream: true).count == 16)
        #expect(ProvenanceNames.storedValue(sixteen + [0], kind: .lastUsedDate, isSambaStream: true).count == 16)
    }

    @Test func timesInISO8601() {
        #expect(ProvenanceTime(seconds: 0x5fad2a2e)?.iso8601 == "2020-11-12T12:27:26Z")
        #expect(ProvenanceTime(seconds: 1_605_184_046, nanoseconds: 178_585_052)?.iso8601 == "2020-11-12T12:27:26.178585052Z")
        #expect(ProvenanceTime(seconds: -1, nanoseconds: 500_000_000)?.iso8601 == "1969-12-31T23:59:59.5Z")
        #expect(ProvenanceTime(seconds: 0, nanoseconds: 1_000_000_000) == nil)
    }
}

/// The walk's prefilter lets every mark name through and stops the usual others.
@Suite struct ProvenanceNamesPrefilterTests {
    private func may(_ name: [UInt8]) -> Bool {
        name.withUnsafeBufferPointer { ProvenanceNames.mayMatch(attributeName: $0) }
    }

    @Test func everyKnownNamePasses() {
        var names = ProvenanceNames.table.map { Array($0.name.utf8) }
        for entry in ProvenanceNames.table {
            let plain = Array(entry.name.utf8)
            names += [Array("user.".utf8) + plain, Array("osx.".utf8) + plain, Array("user.DosStream.".utf8) + plain,
                      Array("user.DosStream.".utf8) + plain + Array(":$DATA".utf8)]
        }
        names.append(Array("user.DosStream.com.apple.metadata".utf8) + ProvenanceNames.sambaColon + Array("kMDItemWhereFroms:$DATA".utf8))
        names.append(Array("user.ZONE.IDENTIFIER".utf8))
        for name in names where ProvenanceNames.match(attributeName: name) != nil {
            #expect(may(name), "\(String(decoding: name, as: UTF8.self))")
        }
        #expect(!may(Array("security.selinux".utf8)))
        #expect(!may(Array("user.mime_type".utf8)))
        #expect(!may(Array("abc".utf8)))
    }
}
