import Foundation
import XDSTestSupport
import Testing

/// `show -r` and `remove -r` with `--jobs N` (`-j N`): the same records as one thread, in walk
/// order; every promise of the walk kept with several threads.
@Suite("show -r and remove -r with several threads", .timeLimit(.minutes(3)))
struct ParallelWalkCLITests {
    /// A random tree through Python: nested folders, 10 % of the files tagged (natively, in a
    /// Samba stream, in a sidecar), orphan sidecars, links, values that do not parse.
    func randomTree(_ folder: TemporaryFolder, seed: Int, files: Int = 1500) async throws {
        let value = try await plistlib(#"{"identifier": "com.example.j", "name": "J", "path": "p/x"}"#)
        let hex = value.map { String(format: "%02x", $0) }.joined()
        let made = try await python("""
            import os, random, sys
            rng = random.Random(int(sys.argv[1]))
            value = bytes.fromhex(sys.argv[2])
            n = int(sys.argv[3])
            folders = ["r"]
            os.mkdir("r")
            for i in range(n):
                parent = rng.choice(folders)
                k = rng.randrange(20)
                p = f"{parent}/e{i}"
                if k == 0:
                    os.mkdir(p); folders.append(p)
                    if rng.random() < 0.2: os.setxattr(p, "user.x-document-source", value)
                    continue
                if k == 1:
                    os.symlink("..", p); continue
                open(p, "w").write(f"{i}\\n")
                if k == 2: os.setxattr(p, "user.x-document-source", value)
                elif k == 3: os.setxattr(p, "user.DosStream.x-document-source:$DATA", value + b"\\0")
                elif k == 4: os.setxattr(p, "user.x-document-source", b"\\1\\2\\3")
                elif k == 5: os.setxattr(p, "user.other", b"x")
            """, [String(seed), hex, String(files)], in: folder.path)
        try #require(made.status == 0, "\(made)")
        // Sidecars (one beside a file, one orphan) from the harness's own AppleDouble writer.
        try FileManager.default.createDirectory(atPath: folder.path + "/r/side", withIntermediateDirectories: true)
        folder.file("r/side/kept.txt")
        try Data(appleDoubleBytes(attributes: [("x-document-source", value)])).write(to: URL(fileURLWithPath: folder.path + "/r/side/._kept.txt"))
        try Data(appleDoubleBytes(attributes: [("x-document-source", value)])).write(to: URL(fileURLWithPath: folder.path + "/r/side/._gone.txt"))
    }

    func sortedLines(_ text: String) -> [Substring] { text.split(separator: "\n").sorted() }

    /// Human records (blank lines between them), sorted.
    func humanRecords(_ text: String) -> [String] {
        text.trimmingCharacters(in: .newlines).components(separatedBy: "\n\n").sorted()
    }

    @Test("-j 4 gives the same records, problems and status as -j 1 (compared sorted)", arguments: [1, 2])
    func sameRecords(seed: Int) async throws {
        let folder = TemporaryFolder()
        try await randomTree(folder, seed: seed)
        let one = try await xds("show", "-r", "--json", "-j", "1", "r", in: folder.path)
        #expect(one.status == 65, "\(one.stderr)")  // the values that do not parse
        #expect(one.stdout.split(separator: "\n").count > 100)
        for jobs in ["2", "4", "8"] {
            let many = try await xds("show", "-r", "--json", "--jobs", jobs, "r", in: folder.path)
            #expect(many.status == one.status)
            #expect(sortedLines(many.stdout) == sortedLines(one.stdout), "jobs \(jobs)")
            #expect(sortedLines(many.stderr) == sortedLines(one.stderr), "jobs \(jobs)")
            let human = try await xds("show", "-r", "-j", jobs, "r", in: folder.path)
            let humanOne = try await xds("show", "-r", "-j", "1", "r", in: folder.path)
            #expect(humanRecords(human.stdout) == humanRecords(humanOne.stdout), "jobs \(jobs)")
            #expect(humanRecords(human.stdout).count > 100)
        }
        let dryOne = try await xds("remove", "-r", "-n", "-j", "1", "r", in: folder.path)
        let dryMany = try await xds("remove", "-r", "-n", "-j", "4", "r", in: folder.path)
        #expect(sortedLines(dryMany.stdout) == sortedLines(dryOne.stdout))
        #expect(dryOne.stdout.split(separator: "\n").count > 100)
        let removed = try await xds("remove", "-r", "-j", "4", "r", in: folder.path)
        #expect(removed.status == 0, "\(removed)")
        let after = try await xds("show", "-r", "-j", "4", "r", in: folder.path)
        #expect(after.status == 1 && after.stdout.isEmpty, "\(after)")
    }

    @Test("| head -1 ends a walk with several threads quickly and quietly", arguments: ["2", "4"])
    func headEndsTheWalk(jobs: String) async throws {
        let folder = TemporaryFolder()
        _ = try await python("""
            import os, sys
            value = bytes.fromhex(sys.argv[1])
            for d in range(40):
                os.makedirs(f"t/d{d}")
                for i in range(100):
                    p = f"t/d{d}/f{i}"
                    open(p, "w").close()
                    os.setxattr(p, "user.x-document-source", value)
            """, [try plistlib(#"{"name": "H"}"#).map { String(format: "%02x", $0) }.joined()], in: folder.path)
        let pipeline = "\(xdsPath) show -r --json -j \(jobs) t | head -1; echo \"status ${PIPESTATUS[0]}\" >&2"
        let result = try await run("/usr/bin/env", ["python3", "-c", """
            import os, signal, sys
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            os.execv("/bin/bash", ["bash", "-c", sys.argv[1]])
            """, pipeline], in: folder.path)
        #expect(result.stdout.split(separator: "\n").count == 1)
        #expect(result.stderr == "status 141\n" || result.stderr == "status 0\n", "\(result)")
        let full = try await sh("\(xdsPath) show -r -j \(jobs) t > /dev/full", in: folder.path)
        #expect(full.status == 74)
        #expect(full.stderr == "xds: standard output: no space left on the device\n")
    }

    @Test("an unreadable folder is reported once and the walk goes on, with several threads", arguments: ["1", "4"])
    func unreadableFolder(jobs: String) async throws {
        let folder = TemporaryFolder()
        let value = try await plistlib(#"{"name": "U"}"#)
        for d in 0..<6 {
            for e in 0..<3 {
                try FileManager.default.createDirectory(atPath: folder.path + "/t/d\(d)/e\(e)", withIntermediateDirectories: true)
                for i in 0..<5 { try await folder.setAttribute(folder.file("t/d\(d)/e\(e)/f\(i)"), value) }
            }
        }
        _ = try await sh("chmod -R a+rX . && chmod a+rx \(folder.path) && chmod 000 t/d2/e2 t/d4", in: folder.path)
        let shown = try await sh("setpriv --reuid=65534 --regid=65534 --clear-groups \(xdsPath) show -r --json -j \(jobs) t", in: folder.path)
        try #require(!shown.stderr.contains("setpriv:"), "setpriv unavailable: \(shown.stderr)")
        #expect(shown.status == 74, "\(shown)")
        #expect(sortedLines(shown.stderr) == ["xds: t/d2/e2: cannot read the folder: permission denied",
                                              "xds: t/d4: cannot read the folder: permission denied"])
        let expected = 6 * 3 * 5 - 5 - 15
        #expect(shown.stdout.split(separator: "\n").count == expected)
    }

    @Test("--jobs must be at least 1 (64); the value is not taken for a file", arguments: ["show", "remove"])
    func jobsValidated(command: String) async throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/t", withIntermediateDirectories: true)
        for jobs in ["0", "-1", "x"] {
            let result = try await xds(command, "-r", "--jobs", jobs, "t", in: folder.path)
            #expect(result.status == 64, "\(jobs): \(result)")
            #expect(result.stdout.isEmpty)
        }
        let zero = try await xds(command, "-r", "-j", "0", "t", in: folder.path)
        #expect(zero.status == 64)
        #expect(zero.stderr.contains("--jobs must be at least 1"), "\(zero.stderr)")
        // A folder named like a number after -j is the option's value, not a file.
        try FileManager.default.createDirectory(atPath: folder.path + "/3", withIntermediateDirectories: true)
        let three = try await xds(command, "-r", "-j", "3", "t", in: folder.path)
        #expect(three.status == 1, "\(three)")
        #expect(three.stderr == "xds: t: no file or folder in it has an x-document-source attribute\n")
    }

    @Test("--help of show and remove names --jobs and says records come in walk order", arguments: ["show", "remove"])
    func helpSaysWalkOrder(command: String) async throws {
        let help = try await xds(command, "--help")
        #expect(help.stdout.contains("-j, --jobs <N>"))
        #expect(help.stdout.contains("walk order"))
    }
}
