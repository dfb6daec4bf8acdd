import Foundation
import Testing
import XDSTestSupport
import XDocSource
import XDocSourceArchive
@testable import XDSProvenance

/// What one scan of an archive's marks gave.
private struct MarksScan {
    var members: [ProvenanceArchive.Member] = []
    var problems: [ArchiveProblem] = []
    var summary = ArchiveScanner.Summary()

    func member(_ name: String) -> ProvenanceArchive.Member? {
        members.first { $0.name.lossyString == name }
    }
}

private func scanMarks(_ path: String, limits: ArchiveScanner.Limits = .init()) throws(ArchiveError) -> MarksScan {
    var result = MarksScan()
    result.summary = try ProvenanceArchive(path: path, limits: limits)!.scan { event in
        switch event {
        case .member(let member): result.members.append(member)
        case .problem(let problem): result.problems.append(problem)
        }
        return .proceed
    }
    return result
}

private struct Failure: Error, CustomStringConvertible { let description: String }

private func run(_ arguments: [String]) async throws {
    let run = try await ProcessRunner.runOnPath(arguments)
    guard run.status == 0 else { throw Failure(description: "\(arguments.first ?? ""): \(run)") }
}

private func sh(_ command: String) async throws { try await run(["/bin/sh", "-c", command]) }

private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

@Suite("ProvenanceArchive: the marks of archive members, read without extracting")
struct ProvenanceArchiveTests {
    static let quarantine = "0082;5fad2a2e;Safari;"
    static let provenance: [UInt8] = [0x01, 0x02, 0x00, 0xD5, 0xF3, 0x24, 0x7E, 0x64, 0xBD, 0xE9, 0x45]
    static let source = DocumentSource(identifier: "com.example.app", name: "Example", path: "dir/a.txt")

    /// What the decoders make of a value (the test checks the road, not the decoding).
    private func decoded(_ kind: ProvenanceKind, _ bytes: [UInt8]) -> ProvenanceMark.Content {
        ProvenanceDecoder.content(of: kind, bytes)
    }

    /// Real attributes (setfattr), archived by GNU tar `--xattrs` and bsdtar (both pax
    /// spellings): one member, one mark per kind, store tar, names as Linux gives them.
    @Test(arguments: [
        ("gnu.tar", "tar --xattrs --xattrs-include='user.*' -cf"),
        ("gnu.tar.gz", "tar --xattrs --xattrs-include='user.*' -czf"),
        ("bsd.tar", "bsdtar -cf"),
        ("bsd.tar.bz2", "bsdtar -cjf"),
        ("bsd.txz", "bsdtar -cJf"),
        ("bsd.tar.zst", "bsdtar --zstd -cf"),
    ])
    func linuxTarsFromTheRealWriters(name: String, command: String) async throws {
        let tmp = TemporaryFolder()
        let tree = tmp.folder("tree")
        let a = tmp.file("tree/a.txt", "a")
        _ = tmp.file("tree/plain.txt", "p")
        let other = tmp.file("tree/other.txt", "o")
        try await run(["setfattr", "-n", "user.com.apple.quarantine", "-v", Self.quarantine, a])
        try await run(["setfattr", "-n", "user.com.apple.provenance", "-v", "0x" + hex(Self.provenance), a])
        try await run(["setfattr", "-n", "user.xdg.origin.url", "-v", "https://user:pw@example.com/a.txt?sig=1", a])
        try await run(["setfattr", "-n", "user.xdg.referrer.url", "-v", "https://example.com/", a])
        try await run(["setfattr", "-n", "user.mime_type", "-v", "text/plain", a])
        // As ntfs-3g shows a Windows Zone.Identifier stream.
        try await run(["setfattr", "-n", "user.Zone.Identifier", "-v", "[ZoneTransfer]\r\nZoneId=3\r\nHostUrl=https://example.com/a.txt\r\n", a])
        try DocumentSourceFile(path: a).write(Self.source)
        try await run(["setfattr", "-n", "user.mime_type", "-v", "text/plain", other])
        try await sh("cd '\(tree)' && \(command) '\(tmp.path)/\(name)' a.txt plain.txt other.txt")

        let archive = tmp.path + "/" + name
        let result = try scanMarks(archive)
        #expect(result.problems.isEmpty)
        #expect(result.members.map(\.name.lossyString) == ["a.txt"])
        let member = try #require(result.members.first)
        #expect(member.path(in: DocumentSourceTreePath(archive)).string == archive + "!/a.txt")
        #expect(member.marks.map(\.kind) == [.xDocumentSource, .quarantine, .macOSProvenance, .xdg, .zoneIdentifier])
        #expect(member.marks.allSatisfy { $0.store == .tar })
        #expect(member.found.allSatisfy { $0.origin == .paxHeader && $0.entry.lossyString == "a.txt" })
        #expect(member.marks.map(\.names) == [["user.x-document-source"], ["user.com.apple.quarantine"],
                                              ["user.com.apple.provenance"], ["user.xdg.origin.url", "user.xdg.referrer.url"],
                                              ["user.Zone.Identifier"]])
        #expect(member.marks[0].content == .documentSource(Self.source))
        guard case .quarantine(let quarantine) = member.marks[1].content else {
            Issue.record("not a quarantine: \(member.marks[1].content)")
            return
        }
        #expect(quarantine.flags == "0082" && quarantine.flagNames == ["sandbox"] && quarantine.agent == "Safari")
        #expect(quarantine.time?.iso8601 == "2020-11-12T12:27:26Z")
        #expect(member.marks[2].content == .macOSProvenance(Self.provenance))
        var origin = XDGOrigin()
        origin.url = "https://user:pw@example.com/a.txt?sig=1"  // raw: hiding credentials is for output
        origin.referrer = "https://example.com/"
        #expect(member.marks[3].content == .xdg(origin))
        #expect(member.marks[4].content == .zoneIdentifier(ZoneIdentifier(zone: 3, hostURL: "https://example.com/a.txt", referrerURL: nil)))
        #expect(result.summary.tagged == 1)
    }

    /// A zip made by `zip` from Finder's layout: `__MACOSX/DIR/._NAME` (quarantine, WhereFroms,
    /// x-document-source, Finder tags that are no mark), `._NAME` beside its member, and an
    /// AppleDouble entry whose member is not in the archive (listed under its name, as show).
    @Test func finderZip() async throws {
        let tmp = TemporaryFolder()
        let tree = tmp.folder("tree")
        _ = tmp.folder("tree/docs")
        _ = tmp.folder("tree/__MACOSX/docs")
        _ = tmp.file("tree/docs/report.txt", "report")
        _ = tmp.file("tree/notes.md", "notes")
        let whereFroms = Array("bplist00 stands in for an array of URLs".utf8)
        _ = tmp.write("tree/__MACOSX/docs/._report.txt", bytes: appleDoubleBytes(attributes: [
            ("com.apple.metadata:_kMDItemUserTags", [1, 2, 3]),
            ("com.apple.metadata:kMDItemWhereFroms", whereFroms),
            ("com.apple.quarantine", Array(Self.quarantine.utf8)),
            ("x-document-source", try Self.source.binaryPropertyList()),
        ]))
        _ = tmp.write("tree/._notes.md", bytes: appleDoubleBytes(attributes: [("com.apple.provenance", Self.provenance)]))
        _ = tmp.write("tree/__MACOSX/._gone.txt", bytes: appleDoubleBytes(attributes: [("com.apple.lastuseddate#PS", [UInt8](repeating: 1, count: 16))]))
        _ = tmp.write("tree/._tags-only.txt", bytes: appleDoubleBytes(attributes: [("com.apple.metadata:_kMDItemUserTags", [0])]))
        let zip = tmp.path + "/Finder.zip"
        try await sh("cd '\(tree)' && zip -qr '\(zip)' docs notes.md ._notes.md ._tags-only.txt __MACOSX")

        let result = try scanMarks(zip)
        #expect(result.problems.isEmpty)
        #expect(Set(result.members.map(\.name.lossyString)) == ["docs/report.txt", "notes.md", "gone.txt"])
        let report = try #require(result.member("docs/report.txt"))
        #expect(report.marks.map(\.kind) == [.xDocumentSource, .quarantine, .whereFroms])
        #expect(report.marks.allSatisfy { $0.store == .zip })
        #expect(report.found.allSatisfy { $0.origin == .appleDouble && $0.entry.lossyString == "__MACOSX/docs/._report.txt" })
        #expect(report.marks.map(\.name) == ["x-document-source", "com.apple.quarantine", "com.apple.metadata:kMDItemWhereFroms"])
        #expect(report.marks[0].content == .documentSource(Self.source))
        #expect(report.marks[2].content == decoded(.whereFroms, whereFroms))
        #expect(result.member("notes.md")?.marks == [ProvenanceMark(kind: .macOSProvenance, store: .zip, names: ["com.apple.provenance"],
                                                                     content: .macOSProvenance(Self.provenance))])
        #expect(result.member("notes.md")?.found.first?.entry.lossyString == "._notes.md")
        let gone = try #require(result.member("gone.txt"))
        #expect(gone.marks.map(\.kind) == [.lastUsedDate])
        #expect(gone.found.first?.entry.lossyString == "__MACOSX/._gone.txt")
        #expect(gone.path(in: DocumentSourceTreePath(zip)).string == zip + "!/gone.txt")
    }

    /// A tar made on a Mac (pax records written here with Python's tarfile, as libarchive lays
    /// them out: `LIBARCHIVE.xattr.NAME` URL-encoded with a base64 value, no `user.`), with
    /// macOS bsdtar's `._NAME` entry before its member: one record for the member, the first
    /// value of a kind winning, each mark with the entry it came from; the two spellings of one
    /// attribute with different values are two marks, each named by its keyword (SPEC §6).
    @Test func macOSTar() async throws {
        let tmp = TemporaryFolder()
        let tar = tmp.path + "/mac.tgz"
        let double = appleDoubleBytes(attributes: [
            ("com.apple.quarantine", Array(Self.quarantine.utf8)),
            ("com.apple.lastuseddate#PS", [UInt8](repeating: 0, count: 16)),
        ])
        let script = """
        import base64, io, sys, tarfile
        out, double, prov = sys.argv[1], bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3])
        b64 = lambda b: base64.b64encode(b).decode()
        with tarfile.open(out, "w:gz", format=tarfile.PAX_FORMAT) as tar:
            info = tarfile.TarInfo("./._a.txt"); info.size = len(double)
            tar.addfile(info, io.BytesIO(double))
            info = tarfile.TarInfo("./a.txt"); info.size = 1
            info.pax_headers = {
                "LIBARCHIVE.xattr.com.apple.provenance": b64(prov),
                "LIBARCHIVE.xattr.com.apple.quarantine": b64(b"0001;00000000;Later;"),
                "LIBARCHIVE.xattr.user.xdg.origin.url": b64(b"https://example.com/a"),
                "LIBARCHIVE.xattr.com.apple.metadata%3A_kMDItemUserTags": b64(b"x"),
                "SCHILY.xattr.com.apple.provenance": "second spelling, another value",
            }
            tar.addfile(info, io.BytesIO(b"a"))
            info = tarfile.TarInfo("./b.txt"); info.size = 1
            info.pax_headers = {"LIBARCHIVE.xattr.com.apple.metadata%3AkMDItemWhereFroms": b64(b"bplist00"),
                                "SCHILY.xattr.com.apple.quarantine": "0" * 70000}
            tar.addfile(info, io.BytesIO(b"b"))
        """
        try await run(["python3", "-c", script, tar, hex(double), hex(Self.provenance)])

        let result = try scanMarks(tar)
        #expect(result.problems.isEmpty)
        #expect(result.members.map(\.name.lossyString) == ["./a.txt", "./b.txt"])
        let a = try #require(result.member("./a.txt"))
        #expect(a.marks.map(\.kind) == [.quarantine, .lastUsedDate, .macOSProvenance, .macOSProvenance, .xdg])
        #expect(a.marks.allSatisfy { $0.store == .tar })
        #expect(a.found.map(\.entry.lossyString) == ["./._a.txt", "./._a.txt", "./a.txt", "./a.txt", "./a.txt"])
        #expect(a.found.map(\.origin) == [.appleDouble, .appleDouble, .paxHeader, .paxHeader, .paxHeader])
        #expect(a.marks[0].content == decoded(.quarantine, Array(Self.quarantine.utf8)))
        #expect(a.marks[1].content == .lastUsedDate(ProvenanceTime(seconds: 0)!))
        #expect(a.marks[2].content == .macOSProvenance(Self.provenance))
        #expect(a.marks[2].names == ["LIBARCHIVE.xattr.com.apple.provenance"])
        #expect(a.marks[3].content == .macOSProvenance(Array("second spelling, another value".utf8)))
        #expect(a.marks[3].names == ["SCHILY.xattr.com.apple.provenance"])
        #expect(a.marks[4].names == ["user.xdg.origin.url"])
        let b = try #require(result.member("./b.txt"))
        #expect(b.marks.map(\.kind) == [.quarantine, .whereFroms])
        #expect(b.marks.last?.names == ["com.apple.metadata:kMDItemWhereFroms"])
        #expect(b.marks.last?.content == decoded(.whereFroms, Array("bplist00".utf8)))
        // Under the archive's 1 MiB bound but over the kind's: an undecodable mark, as on disk.
        guard case .undecodable(let big) = b.marks.first?.content else {
            Issue.record("not undecodable: \(String(describing: b.marks.first))")
            return
        }
        #expect(big.reason.contains("64 KiB"))
        #expect(big.bytes.count == UndecodableValue.maximumKept)
        #expect(result.summary.tagged == 2)
    }

    /// Bad data: a `._NAME` that is not AppleDouble and a value over the bound are problems
    /// (the scan goes on), an x-document-source that does not parse is an undecodable mark.
    @Test func problemsAndUndecodableValues() async throws {
        let tmp = TemporaryFolder()
        let tree = tmp.folder("tree")
        let a = tmp.file("tree/a.txt", "a")
        let b = tmp.file("tree/b.txt", "b")
        try await run(["setfattr", "-n", "user.xdg.origin.url", "-v", "https://example.com/" + String(repeating: "x", count: 300), a])
        try await run(["setfattr", "-n", "user.com.apple.quarantine", "-v", Self.quarantine, a])
        try await run(["setfattr", "-n", "user.x-document-source", "-v", "not a plist", b])
        _ = tmp.write("tree/._c.txt", bytes: Array("not appledouble".utf8))
        try await sh("cd '\(tree)' && tar --xattrs --xattrs-include='user.*' -cf '\(tmp.path)/bad.tar' ._c.txt a.txt b.txt")

        let result = try scanMarks(tmp.path + "/bad.tar", limits: ArchiveScanner.Limits(maximumAttributeValueSize: 256))
        #expect(result.problems.map(\.kind) == [.malformedAppleDouble, .valueTooLarge])
        #expect(result.problems.map { $0.entry?.lossyString } == ["._c.txt", "a.txt"])
        #expect(result.members.map(\.name.lossyString) == ["a.txt", "b.txt"])
        #expect(result.member("a.txt")?.marks.map(\.kind) == [.quarantine])
        let bad = try #require(result.member("b.txt")?.marks.first)
        #expect(bad.kind == .xDocumentSource)
        guard case .undecodable(let value) = bad.content else {
            Issue.record("not undecodable: \(bad.content)")
            return
        }
        #expect(value.bytes == Array("not a plist".utf8))
    }

    /// Names that are not archives', missing files, and a visitor that stops.
    @Test func namesMissingAndStop() async throws {
        #expect(ProvenanceArchive(path: "/tmp/x.gz") == nil)
        #expect(ProvenanceArchive(path: "notes.txt") == nil)
        let tmp = TemporaryFolder()
        #expect(throws: ArchiveError.self) { try scanMarks(tmp.path + "/missing.zip") }
        do {
            _ = try scanMarks(tmp.path + "/missing.zip")
        } catch {
            #expect(error.kind == .notFound)
        }

        let tree = tmp.folder("tree")
        for name in ["a", "b", "c"] {
            try await run(["setfattr", "-n", "user.com.apple.quarantine", "-v", Self.quarantine, tmp.file("tree/\(name)", name)])
        }
        try await sh("cd '\(tree)' && tar --xattrs --xattrs-include='user.*' -cf '\(tmp.path)/three.tar' a b c")
        var seen: [String] = []
        let summary = try ProvenanceArchive(path: tmp.path + "/three.tar")!.scan { event in
            if case .member(let member) = event { seen.append(member.name.lossyString) }
            return seen.count == 2 ? .stop : .proceed
        }
        #expect(seen == ["a", "b"])
        #expect(summary.stopped && summary.tagged == 2)
    }
}
