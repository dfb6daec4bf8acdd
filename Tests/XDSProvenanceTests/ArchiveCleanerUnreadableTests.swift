import Foundation
import Testing
import XDSTestSupport
import XDocSource
import XDocSourceArchive
@testable import XDSProvenance

/// Issue 31 in the library: `ArchiveCleaner` leaves out every `._` entry it cannot read (and
/// says which, and why), and its dry run reads as the copy does and lists what would go, marks
/// by kind and member as `xds where` names them.
@Suite("ArchiveCleaner: unreadable ._ entries and dry runs", .timeLimit(.minutes(3)))
struct ArchiveCleanerUnreadableTests {
    static let quarantine = Array("0083;5f000000;Safari;".utf8)

    @discardableResult
    static func shell(_ command: String, in folder: String) async throws -> Run {
        let run = try await ProcessRunner.run("/bin/sh", ["-c", command], in: folder)
        try #require(run.status == 0, "\(command): \(run)")
        return run
    }

    /// `z/doc.txt` and its `._doc.txt` (quarantine; with `duplicateEntry` its entry table names
    /// entry 9 twice, which the AppleDouble writer refuses to rewrite).
    static func folder(duplicateEntry: Bool = false) throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/z", withIntermediateDirectories: true)
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: folder.path + "/z/doc.txt"))
        var sidecar = appleDoubleBytes(attributes: [("com.apple.quarantine", quarantine)])
        if duplicateEntry { sidecar.replaceSubrange(38..<42, with: [0, 0, 0, 9]) }  // the second entry's id: 2 → 9
        try Data(sidecar).write(to: URL(fileURLWithPath: folder.path + "/z/._doc.txt"))
        return folder
    }

    @Test("a bzip2 ._ entry: left out, counted, told with its reason; the dry run says the same")
    func bzip2() async throws {
        let tmp = try Self.folder()
        try await Self.shell("cd z && zip -q -Z bzip2 ../a.zip doc.txt ._doc.txt", in: tmp.path)
        let cleaner = ArchiveCleaner(archive: tmp.path + "/a.zip")!
        var events: [ArchiveCopy.Event] = []
        let report = try cleaner.write(to: tmp.path + "/clean.zip") { events.append($0) }
        #expect(report.unreadableEntries == 1 && report.changed)
        #expect(events == [.unreadable(entry: DocumentSourceTreePath("._doc.txt"), reason: .compressionMethod(12))])
        #expect(try await Self.shell("unzip -Z1 clean.zip", in: tmp.path).stdout == "doc.txt\n")
        var findings: [ArchiveCleaner.Finding] = []
        try cleaner.dryRun { findings.append($0) }
        #expect(findings == [.unreadable(entry: DocumentSourceTreePath("._doc.txt"), reason: .compressionMethod(12))])
    }

    @Test("a ._ entry holding marks that cannot be rewritten (an entry id twice) is left out as damaged, not copied",
          arguments: ["zip", "tar"])
    func unrewritable(format: String) async throws {
        let tmp = try Self.folder(duplicateEntry: true)
        try await Self.shell(format == "zip" ? "cd z && zip -q ../a.zip doc.txt ._doc.txt" : "cd z && tar -cf ../a.tar doc.txt ._doc.txt",
                       in: tmp.path)
        var events: [ArchiveCopy.Event] = []
        let report = try ArchiveCleaner(archive: tmp.path + "/a." + format)!.write(to: tmp.path + "/clean." + format) {
            events.append($0)
        }
        #expect(report.unreadableEntries == 1)
        #expect(events == [.unreadable(entry: DocumentSourceTreePath("._doc.txt"), reason: .damaged)])
        let copy = try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/clean." + format))
        #expect(copy.range(of: Data("com.apple.quarantine".utf8)) == nil)
    }

    @Test("the dry run of a tar: one finding per kind and member, a ._ entry and the member's pax records together, kinds narrowed")
    func dryRunTar() async throws {
        let tmp = try Self.folder()
        try await Self.shell("""
            setfattr -n user.com.apple.quarantine -v '0083;5f000000;Safari;' z/doc.txt \
            && setfattr -n user.xdg.origin.url -v https://example.com/doc.txt z/doc.txt \
            && cd z && tar --xattrs --xattrs-include='*' --format=posix -cf ../a.tar ._doc.txt doc.txt
            """, in: tmp.path)
        var findings: [ArchiveCleaner.Finding] = []
        try ArchiveCleaner(archive: tmp.path + "/a.tar")!.dryRun { findings.append($0) }
        let member = DocumentSourceTreePath("doc.txt")
        #expect(findings == [.mark(member: member, kind: .quarantine, store: .tar), .mark(member: member, kind: .xdg, store: .tar)])
        findings = []
        try ArchiveCleaner(archive: tmp.path + "/a.tar", kinds: [.xdg])!.dryRun { findings.append($0) }
        #expect(findings == [.mark(member: member, kind: .xdg, store: .tar)])
        // Nothing is written anywhere by a dry run.
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path).sorted() == ["a.tar", "z"])
    }
}
