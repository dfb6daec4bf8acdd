import Foundation
import Testing
import XDocSource
import XDSTestSupport

/// `xds strip ARCHIVE -o CLEAN|-` (SPEC §6) as a user runs it: the clean copy of a zip and of a
/// compressed tar holds no mark `xds where` finds, standard output only when it is not a
/// terminal, and every refusal is one line with its status and nothing left behind. (What
/// the copy keeps byte for byte is checked in XDSProvenanceTests' ArchiveCleanerTests.)
@Suite("strip ARCHIVE -o CLEAN", .timeLimit(.minutes(3)))
struct StripArchiveCLITests {
    /// A folder `t` whose files carry quarantine and xdg attributes (and a MIME type, not a
    /// mark), with a zip of it holding `__MACOSX/` entries of marks only, and a pax tar.gz.
    static func archives() async throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        let quarantine = appleDoubleBytes(attributes: [("com.apple.quarantine", Array("0081;5f000000;Safari;".utf8))])
        try FileManager.default.createDirectory(atPath: folder.path + "/t", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.path + "/__MACOSX/t", withIntermediateDirectories: true)
        try Data("notes\n".utf8).write(to: URL(fileURLWithPath: folder.path + "/t/notes.md"))
        try Data(quarantine).write(to: URL(fileURLWithPath: folder.path + "/__MACOSX/t/._notes.md"))
        let made = try await sh("""
            setfattr -n user.com.apple.quarantine -v '0081;5f000000;Safari;' t/notes.md \
            && setfattr -n user.xdg.origin.url -v https://example.com/notes t/notes.md \
            && setfattr -n user.mime_type -v text/plain t/notes.md \
            && zip -q -r a.zip t __MACOSX && tar --xattrs --format=posix -czf a.tar.gz t
            """, in: folder.path)
        #expect(made.status == 0, "\(made)")
        return folder
    }

    @Test("the clean copies of a zip and a tar.gz hold no mark where finds; other attributes stay",
          arguments: ["a.zip", "a.tar.gz"])
    func cleanCopy(archive: String) async throws {
        let folder = try await Self.archives()
        #expect(try await xds("where", archive, in: folder.path).status == 0)
        let clean = "clean-" + archive
        let result = try await xds("strip", archive, "-o", clean, in: folder.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        let after = try await xds("where", clean, in: folder.path)
        #expect(after.status == 1, "\(after)")
        #expect(after.stdout.isEmpty)
        // Status 0 when there was nothing to remove, and the copy of a clean copy is the same.
        let again = try await xds("strip", clean, "-o", "again-" + archive, in: folder.path)
        #expect(again.status == 0, "\(again)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/" + clean))
            == Data(contentsOf: URL(fileURLWithPath: folder.path + "/again-" + archive)))
        if archive == "a.tar.gz" {
            let listed = try await sh("mkdir x && tar --xattrs --xattrs-include='*' -xzf clean-a.tar.gz -C x && getfattr -d x/t/notes.md", in: folder.path)
            #expect(listed.stdout.contains("user.mime_type=\"text/plain\""), "\(listed)")
            #expect(!listed.stdout.contains("quarantine") && !listed.stdout.contains("xdg"))
        } else {
            let listed = try await sh("unzip -Z1 clean-a.zip", in: folder.path)
            #expect(listed.stdout == "t/\nt/notes.md\n", "\(listed)")
        }
    }

    @Test("--keep keeps a kind in the copy")
    func keepKind() async throws {
        let folder = try await Self.archives()
        #expect(try await xds("strip", "a.tar.gz", "--keep", "quarantine", "-o", "kept.tar.gz", in: folder.path).status == 0)
        let marks = try await xds("where", "--json", "kept.tar.gz", in: folder.path)
        #expect(marks.status == 0)
        #expect(marks.stdout.contains("\"quarantine\"") && !marks.stdout.contains("\"xdg\""), "\(marks)")
    }

    @Test("-o - writes to standard output, never to a terminal")
    func standardOutput() async throws {
        let folder = try await Self.archives()
        #expect(try await xds("strip", "a.zip", "-o", "file.zip", in: folder.path).status == 0)
        let piped = try await xds("strip", "a.zip", "-o", "-", in: folder.path)
        #expect(piped.status == 0)
        #expect(piped.output == [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.path + "/file.zip"))))
        let terminal = try await run(xdsPath, ["strip", "a.zip", "-o", "-"], in: folder.path, terminal: true)
        #expect(terminal.status == 64, "\(terminal)")
        #expect(terminal.stderr.contains("refusing to write an archive to a terminal") || terminal.stdout.contains("refusing"))
    }

    @Test("refusals: the archive itself (64), a name that is no archive's (64), a missing archive (66), a damaged one (65), the limit (65), a folder that does not exist (74)")
    func refusals() async throws {
        let folder = try await Self.archives()
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder.path + "/notes.txt"))
        _ = try await sh("head -c $(($(stat -c %s a.tar.gz) - 20)) a.tar.gz > cut.tar.gz && ln -s a.zip link.zip && head -c 3000000 /dev/zero > zeros && tar -czf zeros.tar.gz zeros", in: folder.path)
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let cases: [([String], Int32, String)] = [
            (["a.zip", "-o", "a.zip"], 64, "link.zip"),
            (["a.zip", "-o", "link.zip"], 64, "is the archive itself"),
            (["notes.txt", "-o", "clean.tar"], 64, "not named as an archive"),
            (["missing.zip", "-o", "clean.zip"], 66, "missing.zip"),
            (["cut.tar.gz", "-o", "clean.tar.gz"], 65, "(tar, gzip): "),
            (["zeros.tar.gz", "--archive-limit", "1M", "-o", "clean.tar.gz"], 65, "--archive-limit to raise it"),
            (["a.zip", "-o", "nowhere/clean.zip"], 74, "nowhere/clean.zip: cannot write"),
        ]
        for (arguments, status, words) in cases {
            let result = try await xds(["strip"] + arguments, in: folder.path)
            #expect(result.status == status, "\(arguments): \(result)")
            #expect(result.errorLines.count == 1, "\(arguments): \(result)")
            if words != "link.zip" { #expect(result.stderr.contains(words), "\(arguments): \(result)") }
            #expect(result.stdout.isEmpty)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
    }
}
