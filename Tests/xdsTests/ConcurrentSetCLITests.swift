import Foundation
import XDSTestSupport
import Testing

/// Concurrent `xds set` processes on one file, sidecars in deep trees, and what `remove`
/// says about values it leaves behind.
@Suite("Concurrent writers and sidecars through xds")
struct ConcurrentSetCLITests {
    /// 8 processes per round (each of the four keys `set` writes, set by two processes at
    /// once) × 50 rounds, with a barrier between rounds: after every round each key holds that
    /// round's value, so no run lost another's key. A `show` loop runs all the while and never
    /// exits with anything but 0 (never 65: no half-written value).
    @Test func eightConcurrentSetsPerRoundKeepEveryKey() async throws {
        let folder = TemporaryFolder()
        folder.file("shared.txt")
        let rounds = 50
        let script = #"""
            set -u
            XDS="$1"; ROUNDS="$2"; F=shared.txt
            "$XDS" set "$F" --id com.example.base --name Base || exit 9
            : > reads; : > set.err; : > rounds.jsonl
            ( while [ ! -e stop ]; do "$XDS" show "$F" > /dev/null 2>> reader.err; echo $? >> reads; done ) &
            reader=$!
            r=0
            while [ "$r" -lt "$ROUNDS" ]; do
              pids=""
              for copy in 1 2; do
                "$XDS" set "$F" --path "p$r" 2>> set.err & pids="$pids $!"
                "$XDS" set "$F" --name "Name $r" 2>> set.err & pids="$pids $!"
                "$XDS" set "$F" --id "com.example.r$r" 2>> set.err & pids="$pids $!"
                "$XDS" set "$F" --app-info-url "https://example.com/r$r.json" 2>> set.err & pids="$pids $!"
              done
              for p in $pids; do wait "$p" || echo "round $r: a set exited $?" >> set.err; done
              "$XDS" show --json "$F" >> rounds.jsonl || echo "round $r: show exited $?" >> set.err
              r=$((r + 1))
            done
            touch stop
            wait "$reader"
            """#
        let started = Date()
        let result = try await run("/bin/sh", ["-c", script, "sh", xdsPath, String(rounds)], in: folder.path)
        let seconds = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result)")
        let errors = try String(contentsOfFile: folder.path + "/set.err", encoding: .utf8)
        #expect(errors.isEmpty, "\(errors)")

        let lines = try String(contentsOfFile: folder.path + "/rounds.jsonl", encoding: .utf8)
            .split(separator: "\n")
        #expect(lines.count == rounds)
        for (round, line) in lines.enumerated() {
            let value = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(value["identifier"] as? String == "com.example.r\(round)", "round \(round): \(line)")
            #expect(value["name"] as? String == "Name \(round)", "round \(round): \(line)")
            #expect(value["path"] as? String == "p\(round)", "round \(round): \(line)")
            #expect(value["appInfoURL"] as? String == "https://example.com/r\(round).json", "round \(round): \(line)")
        }
        let reads = try String(contentsOfFile: folder.path + "/reads", encoding: .utf8).split(separator: "\n")
        #expect(!reads.isEmpty)
        #expect(reads.allSatisfy { $0 == "0" }, "reader statuses: \(Set(reads))")
        print("concurrent set: \(rounds) rounds x 8 processes in \(String(format: "%.1f", seconds)) s, \(reads.count) concurrent reads, all exit 0")
    }

    /// A working folder whose absolute path is longer than PATH_MAX (made one level at a time
    /// with relative chdir): `show` still finds the sidecar beside a file named relatively,
    /// and `remove` says the sidecar still holds a value after clearing the native attribute.
    @Test func sidecarInAFolderDeeperThanPATH_MAX() async throws {
        let folder = TemporaryFolder()
        let sidecar = await appleDoubleBytes(attributes: [("x-document-source", try plistlib(#"{"identifier": "a.b", "name": "Deep"}"#))])
        try Data(sidecar).write(to: URL(fileURLWithPath: folder.path + "/sidecar.bin"))
        // Python's os.chdir goes one relative level at a time; sh's cd and mkdir -p give up
        // at PATH_MAX.
        let script = #"""
            import os, subprocess, sys
            xds, base, level = sys.argv[1], os.getcwd(), "d" * 200
            for _ in range(25):
                os.mkdir(level)
                os.chdir(level)
            with open("a.txt", "w") as f: f.write("x")
            with open(os.path.join(base, "sidecar.bin"), "rb") as f: data = f.read()
            with open("._a.txt", "wb") as f: f.write(data)
            for args in (["show", "--json"], ["set", "--path", "p"], ["remove"], ["show", "--json"]):
                done = subprocess.run([xds] + args + ["a.txt"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                sys.stdout.write(done.stdout.decode() + "%s %d\n" % (args[0], done.returncode))
            os.chdir(base)
            subprocess.run(["rm", "-rf", level], check=True)
            """#
        let result = try await python(script, [xdsPath], in: folder.path)
        #expect(result.status == 0, "\(result)")
        let shown = #"{"file":"a.txt","identifier":"a.b","name":"Deep","store":"appledouble","other":{}}"#
        // set updates the value in the sidecar, where it is (SPEC §2): no native copy.
        let updated = #"{"file":"a.txt","identifier":"a.b","name":"Deep","path":"p","store":"appledouble","other":{}}"#
        #expect(result.stdout.split(separator: "\n").map(String.init) == [
            shown, "show 0",
            "set 0",
            "xds: a.txt: the attribute is only in the AppleDouble sidecar ._a.txt; xds remove --sidecar removes it",
            "remove 1",
            updated, "show 0",
        ], "\(result)")
    }

    /// `remove` names the sidecar it leaves behind, with status 0 when it removed something
    /// and 1 when the sidecar was all there was.
    @Test func removeSaysASidecarStillHoldsAValue() async throws {
        let folder = TemporaryFolder()
        folder.file("Report.pdf")
        let sidecar = folder.path + "/._Report.pdf"
        try await Data(appleDoubleBytes(attributes: [("x-document-source", try plistlib(#"{"identifier": "a.b", "name": "N"}"#))]))
            .write(to: URL(fileURLWithPath: sidecar))
        // A native value beside it (set would update the sidecar itself: SPEC §2).
        try await folder.setAttribute(folder.path + "/Report.pdf", try plistlib(#"{"identifier": "a.b", "name": "N", "path": "x"}"#))
        let resolved = URL(fileURLWithPath: sidecar).resolvingSymlinksInPath().path
        let first = try await xds("remove", "Report.pdf", in: folder.path)
        #expect(first.status == 0, "\(first)")
        #expect(first.stderr == "xds: Report.pdf: removed from xattr, but the AppleDouble sidecar \(resolved) still holds a value (xds show will find it; xds remove --sidecar removes it too)\n")
        let second = try await xds("remove", "Report.pdf", in: folder.path)
        #expect(second.status == 1, "\(second)")
        #expect(second.stderr == "xds: Report.pdf: the attribute is only in the AppleDouble sidecar \(resolved); xds remove --sidecar removes it\n")
        #expect(try await xds("show", "--json", "Report.pdf", in: folder.path).stdout.contains(#""store":"appledouble""#))
    }

    /// A FIFO can carry no user attribute on Linux: `show` and `remove` agree that it has
    /// none (1, same words), neither blocks on it, and `set` refuses it in words (74).
    @Test func showAndRemoveOfAFIFOAgree() async throws {
        let folder = TemporaryFolder()
        #expect(mkfifo(folder.path + "/pipe", 0o600) == 0)
        let show = try await xds("show", "pipe", in: folder.path)
        let remove = try await xds("remove", "pipe", in: folder.path)
        #expect(show.status == 1, "\(show)")
        #expect(remove.status == 1, "\(remove)")
        #expect(show.stderr == "xds: pipe: no x-document-source attribute\n")
        #expect(remove.stderr == show.stderr)
        let set = try await xds("set", "pipe", "--id", "a.b", "--name", "N", in: folder.path)
        #expect(set.status == 74, "\(set)")
        #expect(set.stderr == "xds: pipe: Linux allows user extended attributes only on regular files and folders\n")
    }
}
