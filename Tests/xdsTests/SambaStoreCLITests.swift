import Foundation
import Testing
import XDSTestSupport

/// `xds set` keeps a value in the store it is found in (SPEC §2): never a second copy.
@Suite("set: the store a value is found in, --store for a new value")
struct SambaStoreCLITests {
    static let stream = "user.DosStream.x-document-source:$DATA"

    @Test("a Samba stream value is updated in the stream, with one trailing NUL; no native copy appears")
    func sambaStreamStaysAStream() throws {
        let folder = TemporaryFolder()
        let file = folder.file("notes.md")
        let value = try plistlib(#"{"identifier": "com.example.a", "name": "A", "other": "kept"}"#)
        try folder.setAttribute(file, value + [0], name: Self.stream)
        let set = try xds("set", "notes.md", "--path", "moved/notes.md", in: folder.path)
        #expect(set.status == 0 && set.stderr.isEmpty, "\(set)")
        #expect(try folder.attribute(file) == nil, "no second copy in user.x-document-source")
        let raw = try #require(try folder.attribute(file, name: Self.stream))
        #expect(raw.last == 0)
        let parsed = try pythonReading(raw.dropLast(), """
            import plistlib, sys
            d = plistlib.loads(sys.stdin.buffer.read()); print(d['path'], d['other'], d['name'])
            """, in: folder.path)
        #expect(parsed.stdout == "moved/notes.md kept A\n", "\(parsed)")
        let show = try xds("show", "--json", "notes.md", in: folder.path)
        #expect(show.stdout.contains(#""store":"samba-stream""#))
        // The form without :$DATA (store_stream_type = no) keeps its own name.
        let other = folder.file("other.md")
        try folder.setAttribute(other, value + [0], name: "user.DosStream.x-document-source")
        #expect(try xds("set", "other.md", "--path", "p", in: folder.path).status == 0)
        #expect(try folder.attribute(other) == nil && folder.attribute(other, name: Self.stream) == nil)
        #expect(try folder.attribute(other, name: "user.DosStream.x-document-source")?.last == 0)
    }

    @Test("a sidecar value is updated in the sidecar without --sidecar; no native copy appears")
    func sidecarStaysASidecar() throws {
        let folder = TemporaryFolder()
        let file = folder.file("a.txt")
        let value = try plistlib(#"{"identifier": "com.example.a", "name": "A"}"#)
        try Data(appleDoubleBytes(attributes: [("x-document-source", value)])).write(to: URL(fileURLWithPath: folder.path + "/._a.txt"))
        let set = try xds("set", "a.txt", "--path", "p/a.txt", in: folder.path)
        #expect(set.status == 0, "\(set)")
        #expect(try folder.attribute(file) == nil)
        let show = try xds("show", "--json", "a.txt", in: folder.path)
        #expect(show.stdout.contains(#""path":"p/a.txt""#) && show.stdout.contains(#""store":"appledouble""#), "\(show)")
    }

    @Test("--store samba-stream writes a new value as streams_xattr does; --store and --sidecar are checked")
    func storeOption() throws {
        let folder = TemporaryFolder()
        let file = folder.file("n.md")
        let set = try xds("set", "n.md", "--store", "samba-stream", "--id", "com.example.a", "--name", "A", in: folder.path)
        #expect(set.status == 0, "\(set)")
        #expect(try folder.attribute(file) == nil)
        let raw = try #require(try folder.attribute(file, name: Self.stream))
        #expect(raw.starts(with: Data("bplist00".utf8)) && raw.last == 0)
        #expect(try xds("show", "--json", "n.md", in: folder.path).stdout.contains(#""store":"samba-stream""#))
        // --store sidecar is --sidecar.
        folder.file("s.md")
        #expect(try xds("set", "s.md", "--store", "sidecar", "--id", "a.b", "--name", "B", in: folder.path).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/._s.md"))
        #expect(try xds("set", "s.md", "--store", "xattr", "--sidecar", "--id", "a.b", "--name", "B", in: folder.path).status == 64)
        #expect(try xds("set", "s.md", "--store", "zip", "--id", "a.b", "--name", "B", in: folder.path).status == 64)
        let help = try xds("set", "--help").stdout
        #expect(help.contains("--store") && help.contains("samba-stream") && help.contains("streams_xattr"))
    }
}

/// The Samba stream store against a real `smbd` with `vfs_streams_xattr`, read and written
/// by `smbclient` as an SMB client would (root only: smbd must run as root).
@Suite("Samba streams through a real smbd", .serialized)
struct RealSambaTests {
    /// A running smbd on a free loopback port, with a share in a temporary folder.
    final class Server {
        let folder = TemporaryFolder()
        let port: Int
        let process: ProcessRunner.Running
        var stopped = false
        var share: String { folder.path + "/share" }

        init() throws {
            for sub in ["share", "private", "lock", "state", "cache", "pid", "log"] {
                try FileManager.default.createDirectory(atPath: folder.path + "/" + sub, withIntermediateDirectories: true)
            }
            let free = try python("import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
            port = try #require(Int(free.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
            let t = folder.path
            let conf = """
                [global]
                  smb ports = \(port)
                  interfaces = 127.0.0.1
                  bind interfaces only = yes
                  private dir = \(t)/private
                  lock directory = \(t)/lock
                  state directory = \(t)/state
                  cache directory = \(t)/cache
                  pid directory = \(t)/pid
                  ncalrpc dir = \(t)/lock/ncalrpc
                  log file = \(t)/log/log.%m
                  disable netbios = yes
                  server role = standalone server
                  map to guest = Bad User
                  guest account = root
                  load printers = no
                  printing = bsd
                  printcap name = /dev/null
                  disable spoolss = yes
                [share]
                  path = \(t)/share
                  read only = no
                  guest ok = yes
                  force user = root
                  vfs objects = catia fruit streams_xattr
                  fruit:metadata = stream

                """
            try Data(conf.utf8).write(to: URL(fileURLWithPath: t + "/smb.conf"))
            // Started with the signals at their defaults (smbd waits for its children with
            // them), its output in a log file for failures.
            _ = FileManager.default.createFile(atPath: t + "/smbd.log", contents: nil)
            let logHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: t + "/smbd.log"))
            defer { try? logHandle.close() }
            process = try ProcessRunner.start("/usr/sbin/smbd", ["--foreground", "--no-process-group", "--debug-stdout",
                                                                 "--configfile=" + t + "/smb.conf"],
                                              standardOutput: .file(logHandle), defaultSignals: true)
            // Ready when a client gets an answer (up to 30 s on a busy machine).
            for _ in 0..<150 {
                if try client("ls").status == 0 { return }
                usleep(200_000)
            }
            stop()
            let log = (try? String(contentsOfFile: t + "/smbd.log", encoding: .utf8)) ?? ""
            let last = try client("ls")
            throw CocoaError(.fileReadUnknown, userInfo: [
                NSLocalizedDescriptionKey: "smbd did not answer on port \(port): \(last.stderr) \(last.stdout) smbd: \(log.suffix(1500))",
            ])
        }

        /// Runs smbclient commands on the share as a guest, in the test folder.
        func client(_ commands: String) throws -> Run {
            try run("/usr/bin/smbclient", ["//127.0.0.1/share", "-p", String(port), "-N", "-c", commands], in: folder.path)
        }

        func stop() {
            guard !stopped else { return }
            stopped = true
            process.signal(SIGTERM)
            _ = try? process.wait()
        }

        deinit { stop() }
    }

    static var unavailable: String? {
        if getuid() != 0 { return "not root: smbd must run as root" }
        for tool in ["/usr/sbin/smbd", "/usr/bin/smbclient"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is not installed (apt-get install samba smbclient)"
        }
        return nil
    }

    @Test("set --store samba-stream on the server: the client reads the exact bytes as the stream; a client-written stream is updated in place",
          .enabled(if: unavailable == nil, "\(unavailable ?? "")"), .timeLimit(.minutes(3)))
    func roundTrip() throws {
        let server = try Server()
        defer { server.stop() }
        _ = server.folder.file("share/notes.md", "# notes\n")
        let set = try xds("set", "share/notes.md", "--store", "samba-stream", "--id", "com.example.editor", "--name", "Editor",
                          "--path", "docs/notes.md", in: server.folder.path)
        #expect(set.status == 0, "\(set)")
        let stored = try #require(try server.folder.attribute(server.share + "/notes.md", name: SambaStoreCLITests.stream))
        let info = try server.client("allinfo notes.md")
        #expect(info.stdout.contains("stream: [:x-document-source:$DATA], \(stored.count - 1) bytes"), "\(info)")
        let got = try server.client(#"get "notes.md:x-document-source" got.bin"#)
        #expect(got.status == 0, "\(got)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: server.folder.path + "/got.bin"))
        #expect(bytes == stored.dropLast(), "the client reads the value without the NUL, byte for byte")
        #expect(bytes.starts(with: Data("bplist00".utf8)))

        // The reverse: the client writes the stream, xds set updates it, the client reads it.
        _ = server.folder.file("share/other.md", "other\n")
        let value = try plistlib(#"{"identifier": "com.example.mac", "name": "Mac App", "path": "a/other.md", "theirs": 7}"#)
        try Data(value).write(to: URL(fileURLWithPath: server.folder.path + "/local.bin"))
        let put = try server.client(#"put local.bin "other.md:x-document-source""#)
        #expect(put.status == 0, "\(put)")
        #expect(try server.folder.attribute(server.share + "/other.md", name: SambaStoreCLITests.stream) == Data(value + [0]))
        let update = try xds("set", "share/other.md", "--path", "moved/other.md", in: server.folder.path)
        #expect(update.status == 0, "\(update)")
        #expect(try server.folder.attribute(server.share + "/other.md") == nil, "no native copy")
        let back = try server.client(#"get "other.md:x-document-source" back.bin"#)
        #expect(back.status == 0, "\(back)")
        let read = try pythonReading(try Data(contentsOf: URL(fileURLWithPath: server.folder.path + "/back.bin")), """
            import plistlib, sys
            d = plistlib.loads(sys.stdin.buffer.read()); print(d['path'], d['theirs'], d['name'])
            """, in: server.folder.path)
        #expect(read.stdout == "moved/other.md 7 Mac App\n", "\(read)")
    }
}
