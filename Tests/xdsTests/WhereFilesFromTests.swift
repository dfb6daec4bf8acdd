import Foundation
import Testing
import XDSTestSupport

/// `xds where --files-from FILE|-` and `--no-archives` (SPEC §6b): the names a program that
/// shows files hands over, NUL-separated, and archives read as plain files.
@Suite("xds where --files-from, --no-archives")
struct WhereFilesFromTests {
    /// A folder with a downloaded file, a labelled file, a file without marks, and a zip
    /// with a mark of its own and a member with one.
    static func fixture() async throws -> URL {
        let folder = try await ScratchFolder.make(prefix: "xds-files-from")
        for name in ["dl.txt", "label d.txt", "plain.txt", "-dash.txt"] {
            FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: Data("x".utf8))
        }
        let setup = try await sh("""
            setfattr -n user.xdg.origin.url -v 'https://alice:secret@h.example/f?token=t' dl.txt &&
            setfattr -n user.xdg.origin.url -v 'https://h.example/dash' ./-dash.txt &&
            \(xdsPath) set 'label d.txt' --id com.example.app --name Example >/dev/null &&
            mkdir z && echo m > z/m.txt && \(xdsPath) set z/m.txt --sidecar --id com.example.zip --name Zipped >/dev/null &&
            (cd z && zip -q ../a.zip m.txt ._m.txt) && rm -r z &&
            setfattr -n user.xdg.origin.url -v 'https://h.example/a.zip' a.zip
            """, in: folder.path)
        try await #require(setup.status == 0, "\(setup)")
        return folder
    }

    func whereRun(_ arguments: [String], input: Data? = nil, in folder: URL) async throws -> Run {
        try await run(xdsPath, ["where"] + arguments, in: folder.path, input: input)
    }

    @Test("Names from standard input after the FILE arguments, empty names skipped, the last NUL optional")
    func standardInput() async throws {
        let folder = try await Self.fixture()
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = Data("\0label d.txt\0\0-dash.txt\0plain.txt".utf8)
        let listed = try await whereRun(["--json", "dl.txt", "--files-from", "-"], input: list, in: folder)
        #expect(listed.status == 1, "plain.txt has no mark: \(listed)")
        let files = listed.stdout.split(separator: "\n").map { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["file"] as? String
        }
        #expect(files == ["dl.txt", "label d.txt", "-dash.txt"])
        #expect(!listed.stdout.contains("secret"))
        #expect(listed.stderr == "xds: plain.txt: no mark of where it came from\n")
        // The same as naming them.
        let named = try await whereRun(["--json", "dl.txt", "label d.txt", "--", "-dash.txt", "plain.txt"], in: folder)
        #expect(named.stdoutBytes == listed.stdoutBytes && named.status == listed.status)
    }

    @Test("From a file; an empty list is 0; a missing list 66, an unreadable one 74")
    func listFile() async throws {
        let folder = try await Self.fixture()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Data("dl.txt\0".utf8).write(to: folder.appendingPathComponent("list"))
        let one = try await whereRun(["--files-from", "list"], in: folder)
        #expect(one.status == 0 && one.stdout.hasPrefix("dl.txt\n"), "\(one)")
        let empty = try await whereRun(["--files-from", "-"], input: Data("\0\0".utf8), in: folder)
        #expect(empty.status == 0 && empty.stdout.isEmpty && empty.stderr.isEmpty, "\(empty)")
        let missing = try await whereRun(["--files-from", "nope"], in: folder)
        #expect(missing.status == 66 && missing.stdout.isEmpty, "\(missing)")
        let unreadable = try await whereRun(["--files-from", "."], in: folder)
        #expect(unreadable.status == 74, "\(unreadable)")
        let none = try await whereRun([], in: folder)
        #expect(none.status == 64, "\(none)")
    }

    @Test("With -r, --summary (still needs -r) and -j")
    func recursive() async throws {
        let folder = try await Self.fixture()
        defer { try? FileManager.default.removeItem(at: folder) }
        let summary = try await whereRun(["-r", "-j", "2", "--summary", "--no-archives", "--files-from", "-"],
                                   input: Data(".\0".utf8), in: folder)
        #expect(summary.status == 0, "\(summary)")
        #expect(summary.stdout.hasPrefix("4  files\n"), "dl.txt, -dash.txt, label d.txt, a.zip: \(summary.stdout)")
        let noR = try await whereRun(["--summary", "--files-from", "-"], input: Data(".\0".utf8), in: folder)
        #expect(noR.status == 64, "\(noR)")
        let withMembers = try await whereRun(["-r", "--summary", "--files-from", "-"], input: Data(".".utf8), in: folder)
        #expect(withMembers.stdout.hasPrefix("5  files\n"), "the zip's member too: \(withMembers.stdout)")
    }

    @Test("--no-archives: an archive's own marks only, no member")
    func noArchives() async throws {
        let folder = try await Self.fixture()
        defer { try? FileManager.default.removeItem(at: folder) }
        let members = try await whereRun(["--json", "a.zip"], in: folder)
        #expect(members.stdout.contains("a.zip!/m.txt"), "\(members)")
        let plain = try await whereRun(["--json", "--no-archives", "a.zip"], in: folder)
        #expect(plain.status == 0, "\(plain)")
        #expect(plain.stdout == "{\"file\":\"a.zip\",\"marks\":[{\"kind\":\"xdg\",\"store\":\"xattr\",\"name\":\"user.xdg.origin.url\",\"url\":\"https://h.example/a.zip\"}]}\n")
        let tree = try await whereRun(["-r", "-j", "1", "--json", "--no-archives", "."], in: folder)
        #expect(!tree.stdout.contains("!/"), "\(tree)")
        #expect(tree.stdout.contains("\"./a.zip\""), "\(tree)")
    }

    @Test("Many names through the list (more than a command line's long-list threshold)")
    func manyNames() async throws {
        let folder = try await ScratchFolder.make(prefix: "xds-files-from-many")
        defer { try? FileManager.default.removeItem(at: folder) }
        var list = Data()
        for index in 0..<600 {
            let name = "f\(index).txt"
            FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: nil)
            list += Data((name + "\0").utf8)
        }
        let mark = try await sh("for i in 7 300 599; do setfattr -n user.xdg.origin.url -v https://h.example/$i f$i.txt; done",
                          in: folder.path)
        try await #require(mark.status == 0, "\(mark)")
        let listed = try await whereRun(["--json", "--no-archives", "--files-from", "-"], input: list, in: folder)
        #expect(listed.status == 1)
        #expect(listed.stdout.split(separator: "\n").count == 3, "\(listed.stdout)")
        #expect(listed.stderr.split(separator: "\n").count == 597)
    }

    @Test("A name that is not UTF-8: read by its bytes, in its place, named as where -r names it")
    func notUTF8() async throws {
        let folder = try await Self.fixture()
        defer { try? FileManager.default.removeItem(at: folder) }
        // caf\xe9.txt (Latin-1, not UTF-8), downloaded: an xdg URL with a password and a quarantine.
        let setup = try await sh("""
            n=$(printf 'caf\\351.txt') && echo x > "$n" &&
            setfattr -n user.xdg.origin.url -v 'https://alice:pw@h.example/caf?token=t' "$n" &&
            setfattr -n user.com.apple.quarantine -v '0083;5fad2a4e;Safari;F643CD5F-6071-46AB-83AB-390BA944DEC5' "$n"
            """, in: folder.path)
        try await #require(setup.status == 0, "\(setup)")
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".txt".utf8)
        let list = Data("dl.txt\0".utf8) + Data(name) + Data("\0label d.txt\0".utf8)
        let json = try await whereRun(["--json", "--redact", "--no-archives", "--files-from", "-"], input: list, in: folder)
        #expect(json.status == 0, "\(json)")
        let lines = json.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 3, "\(json)")
        #expect(lines[0].hasPrefix("{\"file\":\"dl.txt\""))
        #expect(lines[2].hasPrefix("{\"file\":\"label d.txt\""))
        // SPEC §6b: each byte that is not UTF-8 is \udcXX, so a caller matches the record to its name.
        #expect(lines[1].hasPrefix("{\"file\":\"caf\\udce9.txt\",\"marks\":[{\"kind\":\"quarantine\""), "\(lines[1])")
        #expect(lines[1].contains("\"url\":\"https://***@h.example/caf\""), "\(lines[1])")
        #expect(!json.stdout.contains("pw") && !json.stdout.contains("token"))
        // The same record as where -r gives the file (there under ./).
        let tree = try await whereRun(["-r", "-j", "1", "--json", "--redact", "--no-archives", "."], in: folder)
        #expect(tree.stdout.contains(lines[1].replacingOccurrences(of: "{\"file\":\"", with: "{\"file\":\"./")), "\(tree)")
        // For people: \x{e9}, as every name xds shows.
        let text = try await whereRun(["--files-from", "-"], input: Data(name), in: folder)
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.hasPrefix("caf\\x{e9}.txt\n  quarantine (xattr)\n"), "\(text)")
        #expect(text.stdout.contains("https://***@h.example/caf?token=t"))
        // One that is not there, or has no mark: said in those words, under the same spelling.
        let missing = try await whereRun(["--files-from", "-"], input: Data(Array("nope".utf8) + [0xFF]), in: folder)
        #expect(missing.status == 66 && missing.stderr == "xds: nope\\x{ff}: no such file or folder\n", "\(missing)")
        try await #require(sh("echo y > \"$(printf 'plain\\377')\"", in: folder.path).status == 0)
        let plain = try await whereRun(["--json", "--files-from", "-"], input: Data(Array("plain".utf8) + [0xFF]), in: folder)
        #expect(plain.status == 1 && plain.stdout.isEmpty, "\(plain)")
        #expect(plain.stderr == "xds: plain\\x{ff}: no mark of where it came from\n", "\(plain)")
        // A folder of such a name: its own marks without -r (none here), what is in it with -r.
        try await #require(sh("""
            d=$(printf 'd\\377') && mkdir "$d" && echo q > "$d/in" && setfattr -n user.xdg.origin.url -v https://h.example/in "$d/in"
            """, in: folder.path).status == 0)
        let folderName = Data(Array("d".utf8) + [0xFF])
        let alone = try await whereRun(["--json", "--files-from", "-"], input: folderName, in: folder)
        #expect(alone.status == 1 && alone.stdout.isEmpty, "\(alone)")
        #expect(alone.stderr == "xds: d\\x{ff}: no mark of where it came from\n", "\(alone)")
        let walked = try await whereRun(["-r", "--json", "--files-from", "-"], input: folderName, in: folder)
        #expect(walked.status == 0, "\(walked)")
        #expect(walked.stdout == "{\"file\":\"d\\udcff/in\",\"marks\":[{\"kind\":\"xdg\",\"store\":\"xattr\",\"name\":\"user.xdg.origin.url\",\"url\":\"https://h.example/in\"}]}\n", "\(walked)")
    }
}
