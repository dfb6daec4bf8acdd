import Foundation
import XDSTestSupport
import Testing

/// Interrupted writers leave no temporary files (SPEC §5): SIGINT, SIGTERM, SIGHUP never;
/// SIGKILL not where Linux has unnamed temporary files (O_TMPFILE); what a killed writer of
/// another kind left is swept by the next writer in the folder.
@Suite("interrupted writes leave nothing behind", .serialized, .timeLimit(.minutes(3)))
struct InterruptedWriteTests {
    /// Starts `xds ARGS` many times in `folder`, each killed with one of `signals` after a
    /// random delay (seeded), and prints the leftover `.xds-*` files and the statuses seen.
    static let killLoop = #"""
        import os, random, signal, subprocess, sys, time
        xds, rounds, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
        signals, args = sys.argv[4].split(','), sys.argv[5:]
        random.seed(seed)
        def reset():
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP): signal.signal(s, signal.SIG_DFL)
        killed = 0
        for name in signals:
            for i in range(rounds):
                p = subprocess.Popen([xds] + args + ['--path', 'p%d' % i], preexec_fn=reset,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(random.uniform(0, 0.25))
                p.send_signal(getattr(signal, 'SIG' + name))
                if p.wait() < 0: killed += 1
        left = [n for n in os.listdir('.') if n.startswith('.xds-')]
        print(len(left), killed, ' '.join(left))
        """#

    @Test("set --sidecar with a 16 MiB resource fork, killed at random points 10 × each of SIGTERM, SIGINT, SIGHUP, SIGKILL, then 20 × SIGKILL: no temporary file left, the sidecar intact")
    func sidecarKillLoop() async throws {
        let folder = TemporaryFolder()
        folder.file("big.txt")
        let value = try await plistlib(#"{"identifier": "com.example.a", "name": "A"}"#)
        let fork = (0..<(16 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let sidecar = RemoveTreeCompleteTests.sidecar([("x-document-source", value), ("org.keep", [1, 2])], fork: fork)
        try Data(sidecar).write(to: URL(fileURLWithPath: folder.path + "/._big.txt"))
        let loop = try await python(Self.killLoop, [xdsPath, "10", "16", "TERM,INT,HUP,KILL", "set", "big.txt", "--sidecar"], in: folder.path)
        #expect(loop.status == 0, "\(loop)")
        let fields = loop.stdout.split(separator: " ", omittingEmptySubsequences: false)
        #expect(fields.first == "0", "leftover temporary files: \(loop.stdout)")
        let more = try await python(Self.killLoop, [xdsPath, "20", "17", "KILL", "set", "big.txt", "--sidecar"], in: folder.path)
        #expect(more.stdout.hasPrefix("0 "), "leftover temporary files after SIGKILL: \(more.stdout)")
        // Some runs were really killed mid-way (not all finished before the signal).
        #expect((Int(fields.dropFirst().first ?? "0") ?? 0) > 0, "\(loop.stdout)")
        // The sidecar is whole: it reads, its fork and other attribute are kept.
        let show = try await xds("show", "--json", "big.txt", in: folder.path)
        #expect(show.status == 0 && show.stdout.contains(#""store":"appledouble""#), "\(show)")
        let check = try await python(#"""
            import struct, sys
            b = open('._big.txt', 'rb').read()
            n, = struct.unpack('>H', b[24:26])
            ents = {struct.unpack('>I', b[26+12*i:30+12*i])[0]: struct.unpack('>II', b[30+12*i:38+12*i]) for i in range(n)}
            fo, fl = ents[2]
            print(fl, all(b[fo + i] == (i * 7) & 255 for i in range(0, fl, 4097)))
            """#, in: folder.path)
        #expect(check.stdout == "\(16 << 20) True\n", "\(check)")
    }

    @Test("mask -o killed with SIGKILL while its output is pending: nothing left in the folder")
    func outputSigkill() async throws {
        let folder = TemporaryFolder()
        let r = try await unblockedShell("""
            RESET='import os, signal, sys
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            os.execv(sys.argv[1], sys.argv[1:])'
            sleep 5 | python3 -c "$RESET" \(xdsPath) mask - -o out.png & pid=$!
            i=0; while [ -z "$(ls -l /proc/$pid/fd 2>/dev/null | grep -e '/#[0-9]* (deleted)' -e '/[.]xds-')" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
            ls -l /proc/$pid/fd | grep -c -e '/#[0-9]* (deleted)' -e '/[.]xds-'
            kill -KILL $pid; wait $pid; echo "status $?"
            ls -A | grep -c xds-
            """, in: folder.path)
        #expect(r.stdout == "1\nstatus 137\n0\n", "\(r)")
    }

    @Test("the next writer sweeps temporary files of writers that are gone (old enough, pid not running); others are kept")
    func sweep() async throws {
        let folder = TemporaryFolder()
        folder.file("a.txt")
        // A pid that is not running: a process that has ended.
        let ended = try await sh("sh -c 'echo $$'")
        let dead = try #require(Int(ended.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let live = Int(getpid())
        let names = [
            ".xds-sidecar-\(dead)-1": true,  // stale: swept
            ".xds-output-\(dead)-2": true,  // stale -o leftover: swept
            ".xds-sidecar-\(live)-3": false,  // its process runs: kept
            ".xds-sidecar-\(dead)-4": false,  // fresh (mtime now): kept, it may be another machine's
            ".xds-notes": false,  // not the pattern: kept
        ]
        for name in names.keys {
            folder.file(name, "partial")
            if name != ".xds-sidecar-\(dead)-4" {
                let old = Date(timeIntervalSinceNow: -3600)
                try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: folder.path + "/" + name)
            }
        }
        let set = try await xds("set", "a.txt", "--sidecar", "--id", "a.b", "--name", "N", in: folder.path)
        #expect(set.status == 0, "\(set)")
        for (name, swept) in names {
            #expect(FileManager.default.fileExists(atPath: folder.path + "/" + name) == !swept, "\(name)")
        }
    }
}

/// Runs a shell script with no signal blocked and SIGCHLD, SIGINT at their defaults: the test
/// runner's threads block signals, which children inherit, and a shell whose SIGCHLD is
/// blocked can wait for `wait` forever.
func unblockedShell(_ script: String, in folder: String? = nil) async throws -> Run {
    try await run("/usr/bin/env", ["python3", "-c", """
        import os, signal, sys
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(s, signal.SIG_DFL)
        os.execv('/bin/sh', ['sh', '-c', sys.argv[1]])
        """, script], in: folder)
}
