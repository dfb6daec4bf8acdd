import Foundation
import Testing
import XDSTestSupport
import XDocSource

/// SPEC §5: output that cannot be written is an error (74), results leave per file, and
/// usage mistakes at the top level exit 64.
@Suite("Standard output, streaming and top-level exit status")
struct OutputAndStatusTests {
    /// Runs xds with standard output sent to `/dev/full` (every write fails with ENOSPC).
    func runToFull(_ arguments: [String], in folder: String) async throws -> Run {
        let full = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        defer { try? full.close() }
        return try await ProcessRunner.start(xdsPath, arguments, in: folder, standardOutput: .file(full)).wait()
    }

    @Test("a failed write to standard output exits 74 with a message", arguments: [
        ["show", "a.txt"], ["show", "--json", "a.txt"], ["show", "a.txt", "a.txt"],
        ["show", "--json", "--", "a.txt"],  // through ArgumentParser, not the fast path
        ["show", "--", "a.txt"],
    ])
    func fullDisk(arguments: [String]) async throws {
        // Without /dev/full there is no way to make every write fail: nothing to test here.
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let folder = TemporaryFolder()
        folder.file("a.txt")
        #expect(try await xds("set", "a.txt", "--id", "com.example.app", "--name", "N", in: folder.path).status == 0)
        let result = try await runToFull(arguments, in: folder.path)
        #expect(result.status == 74, "\(result)")
        // One line only: the run stops at the first failed write.
        #expect(result.stderr == "xds: standard output: no space left on the device\n")
    }

    /// Runs `xds show --json` on many files into `head -1` from Python, with SIGPIPE at its
    /// default (as shells leave it) or ignored; returns xds's return code, the line head
    /// printed and xds's standard error.
    func showIntoHead(ignoreSIGPIPE: Bool, files: Int, in folder: String) async throws -> (code: Int, line: String, stderr: String) {
        let script = """
            import json, signal, subprocess, sys
            xds, n, ignore = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
            pre = (lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN)) if ignore else None
            p = subprocess.Popen([xds, "show", "--json"] + ["a.txt"] * n, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, preexec_fn=pre)
            head = subprocess.run(["head", "-1"], stdin=p.stdout, capture_output=True)
            p.stdout.close()
            err = p.stderr.read().decode()
            print(json.dumps({"code": p.wait(), "line": head.stdout.decode(), "stderr": err}))
            """
        let result = try await python(script, [xdsPath, String(files), ignoreSIGPIPE ? "1" : "0"], in: folder)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        return (object["code"] as! Int, object["line"] as! String, object["stderr"] as! String)
    }

    @Test("a closed pipe ends xds on SIGPIPE, quietly; with SIGPIPE ignored it is a failed write (74)")
    func closedPipe() async throws {
        let folder = TemporaryFolder()
        folder.file("a.txt")
        #expect(try await xds("set", "a.txt", "--id", "com.example.app", "--name", "N", in: folder.path).status == 0)
        // 20 000 lines of about 80 bytes: far more than a pipe holds, so head has closed it
        // before xds is done.
        let quiet = try await showIntoHead(ignoreSIGPIPE: false, files: 20_000, in: folder.path)
        #expect(quiet.code == -13, "\(quiet)")  // killed by SIGPIPE
        #expect(quiet.stderr.isEmpty)
        let line = try #require(try JSONSerialization.jsonObject(with: Data(quiet.line.utf8)) as? [String: Any])
        #expect(line["file"] as? String == "a.txt")

        let ignored = try await showIntoHead(ignoreSIGPIPE: true, files: 20_000, in: folder.path)
        #expect(ignored.code == 74, "\(ignored)")
        #expect(ignored.stderr == "xds: standard output: the reader closed the pipe\n")
    }

    /// The first result must be readable while xds is still working: the test reads the first
    /// line, then removes the attribute of the last file; xds, blocked on a full pipe before it
    /// gets there, must then find that file without the attribute. A run that buffered its
    /// output would have read the last file before writing anything.
    @Test("show writes each result as soon as it has it", arguments: [["--json"], []])
    func streaming(flags: [String]) async throws {
        let folder = TemporaryFolder()
        folder.file("a.txt")
        folder.file("last.txt")
        for file in ["a.txt", "last.txt"] {
            #expect(try await xds("set", file, "--id", "com.example.app", "--name", "N", in: folder.path).status == 0)
        }
        // Well over a megabyte of output before last.txt (a pipe holds 64 KiB by default).
        let running = try ProcessRunner.start(xdsPath, ["show"] + flags + Array(repeating: "a.txt", count: 20_000) + ["last.txt"],
                                              in: folder.path, standardOutput: .pipe)
        // Read byte by byte up to the first newline, so the pipe stays nearly full.
        let first = await running.readLine() ?? ""
        #expect(!first.isEmpty)
        #expect(try DocumentSourceFile(path: folder.path + "/last.txt").remove().removed.isEmpty == false)

        let rest = try await running.wait()  // its output is what was left in the pipe
        #expect(rest.status == 1, "\(rest.stderr)")
        #expect(rest.stderr == "xds: last.txt: no x-document-source attribute\n")
        #expect(!rest.stdout.contains("last.txt"))
    }

    @Test("xds without a command and help of an unknown command exit 64", arguments: [
        [String](), ["help", "nosuch"], ["help", "show", "nosuch"],
    ])
    func usageErrors(arguments: [String]) async throws {
        let result = try await xds(arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains("set, show, remove, where, strip, check, icon, mask") || result.stderr.contains("'nosuch'"))
        #expect(result.stdout.isEmpty)
    }

    @Test("help itself exits 0", arguments: [
        ["help"], ["help", "show"], ["--help"], ["show", "--help"], ["set", "--help"], ["remove", "-h"],
        ["--version"],
    ])
    func helpSucceeds(arguments: [String]) async throws {
        let result = try await xds(arguments)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.isEmpty)
    }
}
