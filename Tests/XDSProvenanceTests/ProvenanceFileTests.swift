import Foundation
import Testing
import XDSProvenance
import XDSTestSupport
@testable import XDocSource
@testable import XDSWalk

/// `ProvenanceFile` on real files: real extended attributes on a temporary folder, real
/// AppleDouble sidecars and `NAME:Zone.Identifier` files.
@Suite struct ProvenanceFileTests {
    static let sambaWhereFroms = "user.DosStream.com.apple.metadata\u{F022}kMDItemWhereFroms:$DATA"

    func set(_ path: String, _ name: String, _ value: [UInt8]) {
        try! ExtendedAttributes.setValue(value, named: name, atPath: path, followSymlinks: true)
    }

    /// The attribute names via getfattr (an implementation independent of ours).
    func names(_ path: String) async -> [String] {
        let run = try! await ProcessRunner.run("/usr/bin/getfattr", ["--absolute-names", "-m", "-", path])
        return run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map(String.init).sorted()
    }

    func contents(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    func url(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A file with a mark in every store, and other attributes and entries that are no marks.
    func markedFile(_ folder: TemporaryFolder) -> String {
        let path = folder.file("setup.dmg")
        set(path, "user.com.apple.quarantine", MarkBytes.exiftoolQuarantine)
        set(path, "user.xdg.referrer.url", url("https://example.com/downloads"))
        set(path, "user.xdg.origin.url", url("https://joe:pw@example.com/setup.dmg?token=1"))
        set(path, "user.mime_type", url("application/x-apple-diskimage"))
        set(path, Self.sambaWhereFroms, MarkBytes.exiftoolWhereFroms + [0])
        set(path, "user.DosStream.AFP_AfpInfo:$DATA", [1, 2, 3, 0])
        folder.write("._setup.dmg", bytes: appleDoubleBytes(attributes: [
            ("com.apple.lastuseddate#PS", MarkBytes.exiftoolLastUsedDate),
            ("com.apple.metadata:_kMDItemUserTags", MarkBytes.bplistArray([MarkBytes.string("Red\n6")])),
            ("com.apple.metadata:kMDItemDownloadedDate", MarkBytes.exiftoolDownloadedDate),
        ]))
        folder.write("setup.dmg:Zone.Identifier", bytes: MarkBytes.zoneIdentifier)
        return path
    }

    @Test func readsEveryStoreInOrder() throws {
        let folder = TemporaryFolder()
        let path = markedFile(folder)
        let marks = try ProvenanceFile(path: path).read()
        #expect(marks.map { "\($0.kind) (\($0.store))" } == [
            "quarantine (xattr)", "xdg (xattr)", "where-froms (samba-stream)", "downloaded-date (appledouble)",
            "last-used-date (appledouble)", "zone-identifier (zone-file)",
        ])
        #expect(marks[0].content == ProvenanceDecoder.content(of: .quarantine, MarkBytes.exiftoolQuarantine))
        var origin = XDGOrigin()
        origin.url = "https://joe:pw@example.com/setup.dmg?token=1"  // raw: printers hide the credentials
        origin.referrer = "https://example.com/downloads"
        #expect(marks[1].content == .xdg(origin))
        #expect(marks[1].names == ["user.xdg.origin.url", "user.xdg.referrer.url"])
        #expect(marks[2].content == .whereFroms(["https://exiftool.org/test/sample.jpg"]))
        #expect(marks[2].name == Self.sambaWhereFroms)
        #expect(marks[3].content == .downloadedDate(ProvenanceTime(seconds: 1_605_184_046, nanoseconds: 185_120_000)!))
        #expect(marks[4].content == .lastUsedDate(ProvenanceTime(seconds: 1_605_184_046, nanoseconds: 178_585_052)!))
        #expect(marks[5].name == "setup.dmg:Zone.Identifier")
        if case .zoneIdentifier(let zone) = marks[5].content { #expect(zone.zone == 3) } else { Issue.record("\(marks[5])") }
    }

    @Test func windowsRoadsToLinux() throws {
        // Samba's stream (value and one NUL), ntfs-3g's attribute (raw), Netatalk's Apple name
        // with Samba's NUL (ea = samba): each decodes, in its store.
        let folder = TemporaryFolder()
        let path = folder.file("setup.exe")
        set(path, "user.DosStream.Zone.Identifier:$DATA", MarkBytes.zoneIdentifier + [0])
        set(path, "user.Zone.Identifier", Array("[ZoneTransfer]\r\nZoneId=2\r\n".utf8))
        set(path, "user.com.apple.quarantine", Array("0001;54208977;Google\\x20Chrome;".utf8) + [0])
        let marks = try ProvenanceFile(path: path).read()
        #expect(marks.map { "\($0.kind) (\($0.store))" } == ["quarantine (xattr)", "zone-identifier (xattr)", "zone-identifier (samba-stream)"])
        if case .quarantine(let value) = marks[0].content { #expect(value.agent == "Google Chrome") } else { Issue.record("\(marks[0])") }
        #expect(marks[1].content == .zoneIdentifier(ZoneIdentifier(zone: 2, hostURL: nil, referrerURL: nil)))
        if case .zoneIdentifier(let zone) = marks[2].content { #expect(zone.zone == 3 && zone.zoneName == "internet") } else { Issue.record("\(marks[2])") }
    }

    @Test func documentSourceIsAMarkToo() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        try DocumentSourceFile(path: path).write(DocumentSource(identifier: "com.example.app", name: "Example"))
        let marks = try ProvenanceFile(path: path).read()
        #expect(marks.map(\.kind) == [.xDocumentSource])
        if case .documentSource(let source) = marks[0].content { #expect(source.name == "Example") } else { Issue.record("\(marks)") }
    }

    @Test func noMarksAndMissingFiles() throws {
        let folder = TemporaryFolder()
        let path = folder.file("plain.txt")
        set(path, "user.mime_type", url("text/plain"))
        #expect(try ProvenanceFile(path: path).read().isEmpty)
        #expect(try ProvenanceFile(path: folder.path).read().isEmpty)
        #expect(throws: DocumentSourceFileError.self) { try ProvenanceFile(path: folder.path + "/gone").read() }
        do {
            _ = try ProvenanceFile(path: folder.path + "/gone").read()
        } catch {
            #expect(error.kind == .notFound)
        }
    }

    @Test func hostileValuesAreMarksNotErrors() throws {
        let folder = TemporaryFolder()
        let path = folder.file("f")
        set(path, "user.com.apple.quarantine", url("zz;\u{1B}]0;title\u{7};"))
        set(path, "user.com.apple.lastuseddate#PS", [1, 2, 3])
        set(path, "user.com.apple.metadata:kMDItemDownloadedDate", MarkBytes.bplistArray([]))
        let marks = try ProvenanceFile(path: path).read()
        #expect(marks.map(\.kind) == [.quarantine, .downloadedDate, .lastUsedDate])
        for mark in marks {
            guard case .undecodable(let value) = mark.content else { Issue.record("\(mark)"); continue }
            #expect(!value.reason.unicodeScalars.contains { $0.value < 0x20 })
        }
    }

    @Test func zoneFilesAreBoundedAndNeverFollowed() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.zip")
        // A link named like a zone file is not followed (it points at a valid value).
        let elsewhere = folder.write("elsewhere", bytes: MarkBytes.zoneIdentifier)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/a.zip:Zone.Identifier", withDestinationPath: elsewhere)
        #expect(try ProvenanceFile(path: path).read().isEmpty)
        // A folder of that name is no zone file either.
        let other = folder.file("b.zip")
        folder.folder("b.zip:Zone.Identifier")
        #expect(try ProvenanceFile(path: other).read().isEmpty)
        // Over 64 KiB: damaged, not read whole.
        let big = folder.file("c.zip")
        folder.write("c.zip:zone.identifier", bytes: MarkBytes.zoneIdentifier + [UInt8](repeating: 0x20, count: 1 << 16))
        let marks = try ProvenanceFile(path: big).read()
        #expect(marks.count == 0)  // the name is matched exactly: Explorer writes Zone.Identifier
        folder.write("c.zip:Zone.Identifier", bytes: MarkBytes.zoneIdentifier + [UInt8](repeating: 0x20, count: 1 << 16))
        let damaged = try ProvenanceFile(path: big).read()
        guard case .undecodable(let value) = damaged.first?.content else { Issue.record("\(damaged)"); return }
        #expect(value.reason == "the zone-identifier value is \((1 << 16) + MarkBytes.zoneIdentifier.count) bytes, more than the 64 KiB accepted (damaged data)")
    }

    @Test func sidecarLinksAreNeverFollowed() throws {
        let folder = TemporaryFolder()
        let path = folder.file("doc.pdf")
        let outside = folder.write("outside", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", MarkBytes.exiftoolQuarantine)]))
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/._doc.pdf", withDestinationPath: outside)
        #expect(try ProvenanceFile(path: path).read().isEmpty)
        #expect(try ProvenanceFile(path: path).strip(Set(ProvenanceKind.allCases), dryRun: false).isEmpty)
        #expect(contents(outside) == appleDoubleBytes(attributes: [("com.apple.quarantine", MarkBytes.exiftoolQuarantine)]))
    }

    @Test func malformedSidecarIsAnError() throws {
        let folder = TemporaryFolder()
        let path = folder.file("doc.pdf")
        folder.write("._doc.pdf", bytes: [0, 5, 0x16, 7, 1, 2])
        set(path, "user.com.apple.quarantine", MarkBytes.exiftoolQuarantine)
        do {
            _ = try ProvenanceFile(path: path).read()
            Issue.record("no error")
        } catch {
            #expect(error.kind == .malformedSidecar)
        }
        // Kept as a problem, the other stores' marks are still read.
        var problems: [DocumentSourceFileError] = []
        let marks = try ProvenanceFile(path: path).read(problems: &problems)
        #expect(marks.map(\.kind) == [.quarantine])
        #expect(problems.map(\.kind) == [.malformedSidecar])
    }

    @Test func dryRunChangesNothing() async throws {
        let folder = TemporaryFolder()
        let path = markedFile(folder)
        let before = await (names(path), contents(folder.path + "/._setup.dmg"), try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted())
        let locations = try ProvenanceFile(path: path).strip(Set(ProvenanceKind.allCases), dryRun: true)
        #expect(locations.map { "\($0.kind) (\($0.store)) \($0.names.joined(separator: ","))" } == [
            "quarantine (xattr) user.com.apple.quarantine",
            "xdg (xattr) user.xdg.origin.url,user.xdg.referrer.url",
            "where-froms (samba-stream) \(Self.sambaWhereFroms)",
            "downloaded-date (appledouble) com.apple.metadata:kMDItemDownloadedDate",
            "last-used-date (appledouble) com.apple.lastuseddate#PS",
            "zone-identifier (zone-file) setup.dmg:Zone.Identifier",
        ])
        let after = await (names(path), contents(folder.path + "/._setup.dmg"), try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted())
        #expect(before.0 == after.0 && before.1 == after.1 && before.2 == after.2)
    }

    @Test func stripLeavesEverythingElseByteExact() async throws {
        let folder = TemporaryFolder()
        let path = markedFile(folder)
        let removed = try ProvenanceFile(path: path).strip(Set(ProvenanceKind.allCases), dryRun: false)
        #expect(removed.count == 6)
        #expect(await names(path) == ["user.DosStream.AFP_AfpInfo:$DATA", "user.mime_type"])
        // The sidecar keeps the Finder tags, byte-exact, in the layout macOS writes.
        let tags = MarkBytes.bplistArray([MarkBytes.string("Red\n6")])
        #expect(contents(folder.path + "/._setup.dmg") == appleDoubleBytes(attributes: [("com.apple.metadata:_kMDItemUserTags", tags)]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["._setup.dmg", "setup.dmg"])
        #expect(try ProvenanceFile(path: path).read().isEmpty)
        // Nothing left to strip.
        #expect(try ProvenanceFile(path: path).strip(Set(ProvenanceKind.allCases), dryRun: false).isEmpty)
    }

    @Test func stripOnlySomeKinds() throws {
        let folder = TemporaryFolder()
        let path = markedFile(folder)
        let removed = try ProvenanceFile(path: path).strip([.xdg, .lastUsedDate], dryRun: false)
        #expect(removed.map(\.kind) == [.xdg, .lastUsedDate])
        #expect(try ProvenanceFile(path: path).read().map(\.kind) == [.quarantine, .whereFroms, .downloadedDate, .zoneIdentifier])
    }

    @Test func sidecarHoldingOnlyMarksIsDeleted() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        folder.write("._a.txt", bytes: appleDoubleBytes(attributes: [
            ("com.apple.quarantine", MarkBytes.exiftoolQuarantine), ("com.apple.provenance", [1, 2, 0, 0xD5]),
        ]))
        let removed = try ProvenanceFile(path: path).strip(Set(ProvenanceKind.allCases), dryRun: false)
        #expect(removed == [ProvenanceMarkLocation(kind: .quarantine, store: .appleDouble, names: ["com.apple.quarantine"]),
                            ProvenanceMarkLocation(kind: .macOSProvenance, store: .appleDouble, names: ["com.apple.provenance"])])
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/._a.txt"))
        // Finder info that is not all zero keeps it.
        var withInfo = appleDoubleBytes(attributes: [("com.apple.quarantine", MarkBytes.exiftoolQuarantine)])
        withInfo[50] = 0x54  // the first byte of the Finder info (type code)
        folder.write("._a.txt", bytes: withInfo)
        try ProvenanceFile(path: path).strip([.quarantine], dryRun: false)
        let kept = try #require(contents(folder.path + "/._a.txt"))
        #expect(kept[50] == 0x54)
        #expect(try AppleDouble(bytes: kept).attributes.isEmpty)
    }

    /// A sidecar as Finder makes it (the 286-byte blank resource map, "This resource fork
    /// intentionally left blank") holding only marks is deleted, as the archive cleaner drops
    /// such a `._` entry; one whose resource fork holds a resource is kept, the fork
    /// byte-exact. Before: the blank map kept the sidecar, with nothing in it.
    @Test func sidecarWithFinderBlankResourceForkIsDeleted() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        folder.write("._a.txt", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", MarkBytes.exiftoolQuarantine)],
                                                        resourceFork: finderBlankResourceFork))
        let removed = try ProvenanceFile(path: path).strip([.quarantine], dryRun: false)
        #expect(removed == [ProvenanceMarkLocation(kind: .quarantine, store: .appleDouble, names: ["com.apple.quarantine"])])
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/._a.txt"))
        #expect(try ProvenanceFile(path: path).read().isEmpty)
        folder.write("._a.txt", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", MarkBytes.exiftoolQuarantine)],
                                                        resourceFork: oneResourceFork))
        try ProvenanceFile(path: path).strip([.quarantine], dryRun: false)
        let kept = try #require(contents(folder.path + "/._a.txt"))
        #expect(Array(kept.suffix(oneResourceFork.count)) == oneResourceFork)
        #expect(try AppleDouble(bytes: kept).attributes.isEmpty)
    }
}
