import Foundation

/// A real `smbd` on a free loopback port, sharing a folder inside a temporary folder, for
/// tests that let `smbclient` write streams as an SMB client (Windows, a Mac) would and then
/// look at what landed on the server's disk. Root only (smbd runs as root); see
/// ``unavailable``. Stopped by ``stop()`` or when the value goes away.
///
/// The share runs `vfs objects = catia fruit streams_xattr` (what a share for Macs runs) with
/// `fruit:metadata = stream`, Samba's defaults otherwise: `fruit:encoding = private`, so a
/// stream name sent with U+F022 for `:` (as macOS sends it) is stored with U+F022, and
/// streams_xattr keeps a stream `NAME` in `user.DosStream.NAME:$DATA` with one NUL after the
/// value. Checked with getfattr on Samba 4.17 (Debian 12).
///
///     let server = try await TestSambaServer()
///     defer { server.stop() }
///     _ = server.folder.file("share/doc.txt", "text\n")
///     try await server.client(#"put local.bin "doc.txt:Zone.Identifier""#)
public final class TestSambaServer: @unchecked Sendable {
    /// The temporary folder holding the configuration, Samba's state and the share.
    public let folder = TemporaryFolder()
    /// The port smbd listens on (127.0.0.1 only).
    public let port: Int
    /// The shared folder on the server's disk.
    public var share: String { folder.path + "/share" }

    private let process: ProcessRunner.Running
    private let lock = NSLock()
    private var stopped = false

    /// Why no smbd can run here (not root, samba or smbclient not installed), or nil.
    public static var unavailable: String? {
        if getuid() != 0 { return "not root: smbd must run as root" }
        for tool in ["/usr/sbin/smbd", "/usr/bin/smbclient"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is not installed (apt-get install samba smbclient)"
        }
        return nil
    }

    /// Starts smbd and waits (up to 30 s on a busy machine) until a client gets an answer.
    /// - Parameter shareOptions: the share's lines after `path`, `read only`, guest access and
    ///   `force user = root`.
    public init(shareOptions: [String] = ["vfs objects = catia fruit streams_xattr", "fruit:metadata = stream"]) async throws {
        let t = folder.path
        for sub in ["share", "private", "lock", "state", "cache", "pid", "log"] {
            try FileManager.default.createDirectory(atPath: t + "/" + sub, withIntermediateDirectories: true)
        }
        port = try FreePort.take()
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
            \(shareOptions.map { "  " + $0 }.joined(separator: "\n"))

            """
        try Data(conf.utf8).write(to: URL(fileURLWithPath: t + "/smb.conf"))
        // Started with the signals at their defaults (smbd waits for its children with them),
        // its output in a log file for failures.
        _ = FileManager.default.createFile(atPath: t + "/smbd.log", contents: nil)
        let logHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: t + "/smbd.log"))
        defer { try? logHandle.close() }
        process = try ProcessRunner.start("/usr/sbin/smbd", ["--foreground", "--no-process-group", "--debug-stdout",
                                                             "--configfile=" + t + "/smb.conf"],
                                          standardOutput: .file(logHandle), defaultSignals: true)
        for _ in 0..<150 {
            if try await client("ls").status == 0 { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        let last = try await client("ls")
        stop()
        let log = (try? String(contentsOfFile: t + "/smbd.log", encoding: .utf8)) ?? ""
        throw StartFailure(description: "smbd did not answer on port \(port): \(last.stderr) \(last.stdout) smbd: \(log.suffix(1500))")
    }

    /// Runs `smbclient` commands (`-c`, `;`-separated) on the share as a guest, in ``folder``
    /// (so `put local.bin …` reads a file written there). Give a stream as `FILE:STREAM`; a
    /// `:` inside STREAM is refused by smbclient, U+F022 in its place is sent as it is.
    public func client(_ commands: String) async throws -> Run {
        try await ProcessRunner.run("/usr/bin/smbclient", ["//127.0.0.1/share", "-p", String(port), "-N", "-c", commands],
                              in: folder.path, timeLimit: 120)
    }

    /// Stops smbd (SIGTERM) and reaps it on a thread of its own, without waiting for that (a
    /// deinit or a defer cannot); its folder goes once it has exited. Safe to call more than once.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        process.signal(SIGTERM)
        process.finishInBackground { [folder] in _ = folder }  // the folder outlives smbd
    }

    deinit { stop() }

    /// smbd did not start or did not answer.
    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }
}
