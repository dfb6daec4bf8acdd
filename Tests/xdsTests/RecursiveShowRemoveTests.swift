import Foundation
import XDSTestSupport
import Testing

/// `xds show -r` and `xds remove -r` on real trees.
@Suite("show -r and remove -r")
struct RecursiveShowRemoveTests {
    /// A tree of `count` files in nested folders, every `every`-th tagged natively, plus one
    /// Samba stream, one sidecar, one tagged folder and a symlink loop.
    func makeTree(_ folder: TemporaryFolder, count: Int = 60, every: Int = 3) async throws -> [String] {
        var tagged: [String] = []
        for dir in ["t/d0", "t/d1", "t/d2", "t/d3"] {  // small trees fill only some of them
            try FileManager.default.createDirectory(atPath: folder.path + "/" + dir, withIntermediateDirectories: true)
        }
        let value = try await plistlib(#"{"identifier": "com.example.app", "name": "Tree"}"#)
        for i in 0..<count {
            let dir = "t/d\(i % 4)/e\(i % 3)"
            try FileManager.default.createDirectory(atPath: folder.path + "/" + dir, withIntermediateDirectories: true)
            let file = folder.file("\(dir)/f\(i).txt")
            try await folder.setAttribute(file, [UInt8]("x".utf8), name: "user.other")
            if i % every == 0 {
                try await folder.setAttribute(file, value)
                tagged.append("t/\(dir.dropFirst(2))/f\(i).txt")
            }
        }
        try await folder.setAttribute(folder.path + "/t/d1", value)
        tagged.append("t/d1")
        try await folder.setAttribute(folder.file("t/d2/samba.txt"), value + [0], name: "user.DosStream.x-document-source:$DATA")
        tagged.append("t/d2/samba.txt")
        folder.file("t/d3/side.txt")
        try Data(appleDoubleBytes(attributes: [("x-document-source", value)])).write(to: URL(fileURLWithPath: folder.path + "/t/d3/._side.txt"))
        tagged.append("t/d3/side.txt")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/t/d0/loop", withDestinationPath: "..")
        return tagged
    }

    @Test func jsonLinesParseAndMatchGetfattr() async throws {
        let folder = TemporaryFolder()
        let tagged = try await makeTree(folder)
        let result = try await xds("show", "-r", "--json", "t", in: folder.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        let parsed = try await pythonReading(result.stdoutBytes, """
            import json, sys
            for line in sys.stdin.read().splitlines():
                print(json.loads(line)["file"])
            """, in: folder.path)
        #expect(Set(parsed.stdout.split(separator: "\n").map(String.init)) == Set(tagged))
        // getfattr sees the native values (not the Samba stream or the sidecar).
        let getfattr = try await sh("getfattr -R -m '^user\\.x-document-source$' t 2>/dev/null | sed -n 's/^# file: //p'", in: folder.path)
        let native = Set(getfattr.stdout.split(separator: "\n").map(String.init))
        #expect(native == Set(tagged.filter { !$0.hasSuffix("samba.txt") && !$0.hasSuffix("side.txt") }))
    }

    @Test func humanOutputAndNothingFound() async throws {
        let folder = TemporaryFolder()
        _ = try await makeTree(folder, count: 3, every: 100)
        let human = try await xds("show", "-r", "t/d0", in: folder.path)
        #expect(human.stdout.hasPrefix("t/d0/e0/f0.txt\n  identifier:"), "\(human)")
        try FileManager.default.createDirectory(atPath: folder.path + "/empty", withIntermediateDirectories: true)
        folder.file("empty/plain")
        let none = try await xds("show", "-r", "empty", in: folder.path)
        #expect(none.status == 1)
        #expect(none.stdout.isEmpty)
        #expect(none.stderr == "xds: empty: no file or folder in it has an x-document-source attribute\n")
    }

    @Test func aFileIsShownAsWithoutR() async throws {
        let folder = TemporaryFolder()
        _ = try await makeTree(folder, count: 3, every: 1)
        for args in [["t/d0/e0/f0.txt"], ["t/d0/e0/f0.txt", "--json"], ["t/d1/e1/nosuch"]] {
            let plain = try await xds(["show"] + args, in: folder.path)
            let recursive = try await xds(["show", "-r"] + args, in: folder.path)
            #expect(plain.status == recursive.status)
            #expect(plain.stdout == recursive.stdout)
            #expect(plain.stderr == recursive.stderr)
        }
    }

    @Test func headEndsCleanly() async throws {
        let folder = TemporaryFolder()
        _ = try await makeTree(folder, count: 400, every: 1)
        // Through Python, which puts SIGPIPE back to its default before bash starts: a shell
        // started with SIGPIPE ignored (as CI may start it) cannot undo that itself.
        let pipeline = "\(xdsPath) show -r --json t | head -1; echo \"status ${PIPESTATUS[0]}\" >&2"
        let result = try await run("/usr/bin/env", ["python3", "-c", """
            import os, signal, sys
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            os.execv("/bin/bash", ["bash", "-c", sys.argv[1]])
            """, pipeline], in: folder.path)
        #expect(result.stdout.split(separator: "\n").count == 1)
        // Ended by SIGPIPE (141) or done before head closed (0): never an error message.
        #expect(result.stderr == "status 141\n" || result.stderr == "status 0\n", "\(result)")
        let full = try await sh("\(xdsPath) show -r t > /dev/full", in: folder.path)
        #expect(full.status == 74)
        #expect(full.stderr == "xds: standard output: no space left on the device\n")
    }

    @Test func oddNamesAreEscapedAndJSONIsExact() async throws {
        let folder = TemporaryFolder()
        let value = try await plistlib(#"{"identifier": "com.example.app", "name": "Odd"}"#)
        let hex = value.map { String(format: "%02x", $0) }.joined()
        let made = try await python("""
            import os, sys
            os.mkdir(b'o')
            for name in [b'o/bad\\xff', b'o/new\\nline']:
                open(name, 'w').close()
                os.setxattr(name, 'user.x-document-source', bytes.fromhex(sys.argv[1]))
            """, [hex], in: folder.path)
        #expect(made.status == 0, "\(made)")
        let human = try await xds("show", "-r", "o", in: folder.path)
        #expect(human.stdout.contains("o/bad\\x{ff}\n"))
        #expect(human.stdout.contains("o/new\\nline\n"))
        let json = try await xds("show", "-r", "--json", "o", in: folder.path)
        let names = try await pythonReading(json.stdoutBytes, """
            import json, os, sys
            print(sorted(os.fsencode(json.loads(l)["file"]) for l in sys.stdin.read().splitlines()))
            """, in: folder.path)
        #expect(names.stdout == "[b'o/bad\\xff', b'o/new\\nline']\n", "\(names)")
    }

    @Test func unreadableFolderIsReportedAndTheWalkGoesOn() async throws {
        let folder = TemporaryFolder()
        _ = try await makeTree(folder, count: 12, every: 1)
        // Root reads every folder; an unprivileged user does not read a mode-000 folder.
        _ = try await sh("chmod -R a+rX . && chmod a+rx \(folder.path) && chmod 000 t/d2/e2", in: folder.path)
        let visible = try await sh("setpriv --reuid=65534 --regid=65534 --clear-groups \(xdsPath) show -r --json t", in: folder.path)
        try #require(!visible.stderr.contains("setpriv:"), "setpriv unavailable: \(visible.stderr)")
        #expect(visible.status == 74, "\(visible)")
        #expect(visible.stderr == "xds: t/d2/e2: cannot read the folder: permission denied\n")
        #expect(visible.stdout.contains("\"file\":\"t/d3/e0/f3.txt\""))
    }

    @Test func removeRecursiveStripsEveryStoreAndNothingElse() async throws {
        let folder = TemporaryFolder()
        var tagged = try await makeTree(folder)
        // A sidecar holding another attribute beside the value: only the value goes.
        let value = try await plistlib(#"{"identifier": "com.example.app", "name": "Tree"}"#)
        folder.file("t/d3/keep.txt")
        let quarantine = [UInt8]("0081;5f0c;Safari;".utf8)
        try Data(appleDoubleBytes(attributes: [("com.apple.quarantine", quarantine), ("x-document-source", value)]))
            .write(to: URL(fileURLWithPath: folder.path + "/t/d3/._keep.txt"))
        tagged.append("t/d3/keep.txt")

        let dump = "getfattr -R -d -m - t 2>/dev/null; ls -R t"
        let before = try await sh(dump, in: folder.path).stdout
        let dry = try await xds("remove", "-r", "-n", "t", in: folder.path)
        #expect(dry.status == 0 && dry.stderr.isEmpty, "\(dry)")
        #expect(try await sh(dump, in: folder.path).stdout == before)
        #expect(Set(dry.stdout.split(separator: "\n").map(String.init)) == Set(tagged))

        let removed = try await xds("remove", "-r", "t", in: folder.path)
        #expect(removed.status == 0 && removed.stdout.isEmpty && removed.stderr.isEmpty, "\(removed)")
        let after = try await sh("getfattr -R -d -m - t 2>/dev/null", in: folder.path).stdout
        #expect(!after.contains("x-document-source"))
        // Every other attribute is still there, untagged files untouched.
        #expect(after.components(separatedBy: "user.other=").count == before.components(separatedBy: "user.other=").count)
        // The sidecar that held only the value is gone; the other keeps its quarantine entry.
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/t/d3/._side.txt"))
        let kept = try #require(FileManager.default.contents(atPath: folder.path + "/t/d3/._keep.txt"))
        #expect(kept.range(of: Data(quarantine)) != nil && kept.range(of: Data("x-document-source".utf8)) == nil)
        let again = try await xds("show", "-r", "--json", "t", in: folder.path)
        #expect(again.status == 1 && again.stdout.isEmpty, "\(again)")
    }

    @Test func dryRunNeedsR() async throws {
        let folder = TemporaryFolder()
        folder.file("a")
        #expect(try await xds("remove", "-n", "a", in: folder.path).status == 64)
    }
}

/// Runs a Python 3 script with `input` on its standard input.
func pythonReading(_ input: Data, _ script: String, in folder: String) async throws -> Run {
    try await run("/usr/bin/env", ["python3", "-c", script], in: folder, input: input)
}
