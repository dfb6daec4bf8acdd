import Foundation
import Testing
import XDSTestSupport
import XDocSource

/// The last line of `strip -r` and `remove -r` never contradicts the lines above it (SPEC §6,
/// issue 31): when nothing on disk had a mark but archives do, it says so and counts them,
/// status 1; `show -r` and `where -r` count the archives' members and end without a last line.
@Suite("strip -r and remove -r: the last line and the archives above it", .timeLimit(.minutes(3)))
struct StripLastLineTests {
    static let quarantine = Array("0083;5fad2a2e;Safari;5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F".utf8)

    /// `tree/` with `plain.txt` (no mark) and `one.tar` (GNU tar's pax records: a member with a
    /// quarantine and an x-document-source value); with `two`, also `sub/two.tar`, the same.
    func tree(two: Bool) async throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        folder.folder("src")
        folder.folder("tree/sub")
        folder.file("tree/plain.txt")
        let member = folder.file("src/a.bin")
        try await folder.setAttribute(member, Self.quarantine, name: "user.com.apple.quarantine")
        try await folder.setAttribute(member, DocumentSource(identifier: "com.example.a", name: "A").binaryPropertyList())
        for name in two ? ["tree/one.tar", "tree/sub/two.tar"] : ["tree/one.tar"] {
            let tar = try await run("/bin/tar", ["--xattrs", "--xattrs-include=user.*", "-cf", name, "src"], in: folder.path)
            try #require(tar.status == 0, "\(tar)")
        }
        return folder
    }

    @Test("strip -r (and -n): nothing on disk, archives with marks: one last line that counts them, status 1",
          arguments: [false, true])
    func stripLastLine(two: Bool) async throws {
        let folder = try await tree(two: two)
        let hold = two ? "2 archives hold" : "1 archive holds"
        for dryRun in [false, true] {
            let result = try await xds(["strip", "-r", "-j", "1"] + (dryRun ? ["-n"] : []) + ["tree"], in: folder.path)
            #expect(result.status == 1, "\(result)")
            // -n lists what each archive's clean copy would drop (SPEC §6), as the copy reads it.
            let archives = two ? ["tree/one.tar", "tree/sub/two.tar"] : ["tree/one.tar"]
            let listed = archives.flatMap { ["\($0)!/src/a.bin: x-document-source (tar)", "\($0)!/src/a.bin: quarantine (tar)"] }
            #expect(result.stdout.split(separator: "\n").map(String.init) == (dryRun ? listed : []), "\(result)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == (two ? 3 : 2), "\(result.stderr)")
            #expect(lines.dropLast().allSatisfy { $0.hasSuffix("1 member carries marks of where it came from; archives are not rewritten in place (xds strip ARCHIVE -o CLEAN writes a clean copy)") })
            #expect(lines.last == "xds: tree: nothing to remove on disk; \(hold) marks (xds strip ARCHIVE -o CLEAN)")
        }
        // A mark on disk too: removed, status 0, no last line.
        try await folder.setAttribute(folder.path + "/tree/plain.txt", Self.quarantine, name: "user.com.apple.quarantine")
        let stripped = try await xds("strip", "-r", "tree", in: folder.path)
        #expect(stripped.status == 0, "\(stripped)")
        #expect(!stripped.stderr.contains("xds: tree:"))
        // Kinds the archives do not hold: the old line, about those kinds.
        let none = try await xds("strip", "-r", "--only", "xdg", "tree", in: folder.path)
        #expect(none.status == 1)
        #expect(none.stderr == "xds: tree: no file or folder in it has a mark of the kinds asked\n")
    }

    @Test("strip -r: a store that refuses (chattr +i) is the last word, not \"no file or folder in it has a mark\"")
    func refusedStoreIsNotNoMark() async throws {
        let folder = TemporaryFolder()
        folder.folder("t/d")
        let file = folder.file("t/d/f")
        folder.file("t/d/g")
        try await folder.setAttribute(file, Self.quarantine, name: "user.com.apple.quarantine")
        let locked = try await run("/usr/bin/chattr", ["+i", file])
        try #require(locked.status == 0, "chattr +i needs CAP_LINUX_IMMUTABLE and ext4: \(locked)")
        try await withCleanup { () async throws in
            let result = try await xds("strip", "-r", "t", in: folder.path)
            #expect(result.status == 74, "\(result)")
            #expect(result.stderr == "xds: t/d/f: operation not permitted: the file is immutable (chattr +i), so its attributes cannot change\n")
            #expect(try await folder.attribute(file, name: "user.com.apple.quarantine") != nil)
            // With an archive that holds marks too: named, and still no "nothing to remove on disk".
            let tar = try await run("/bin/tar", ["--xattrs", "--xattrs-include=user.*", "-cf", "t/a.tar", "-C", "t/d", "f"], in: folder.path)
            try #require(tar.status == 0, "\(tar)")
            let both = try await xds("strip", "-r", "-j", "1", "t", in: folder.path)
            #expect(both.status == 74, "\(both)")
            #expect(!both.stderr.contains("xds: t:") && both.stderr.contains("xds: t/a.tar: 1 member carries marks"), "\(both.stderr)")
        } cleanup: {
            _ = try? await run("/usr/bin/chattr", ["-i", file])
        }
    }

    @Test("remove -r: nothing on disk, archives with values: one last line that counts them, status 1")
    func removeLastLine() async throws {
        let folder = try await tree(two: true)
        for dryRun in [false, true] {
            let result = try await xds(["remove", "-r", "-j", "1"] + (dryRun ? ["-n"] : []) + ["tree"], in: folder.path)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.split(separator: "\n") == [
                "xds: tree/one.tar: 1 member carries x-document-source; xds does not rewrite archives",
                "xds: tree/sub/two.tar: 1 member carries x-document-source; xds does not rewrite archives",
                "xds: tree: nothing to remove on disk; 2 archives hold x-document-source (xds strip ARCHIVE -o CLEAN --only x-document-source)",
            ])
        }
    }

    @Test("show -r and where -r: the archives' members are listed, no last line, status 0")
    func showAndWhere() async throws {
        let folder = try await tree(two: false)
        for command in ["show", "where"] {
            let result = try await xds(command, "-r", "tree", in: folder.path)
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr.isEmpty, "\(command): \(result.stderr)")
            #expect(result.stdout.hasPrefix("tree/one.tar!/src/a.bin\n"))
        }
    }
}
