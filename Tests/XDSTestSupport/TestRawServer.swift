import Foundation

/// A loopback server of broken replies for tests: Tests/Support/raw_reply_server.py. Its
/// ``rawPort`` answers by path with what no HTTP library sends (binary garbage, an HTTP/0.9
/// reply, two different Content-Length headers, a header line over libcurl's limit); its
/// ``silentPort`` accepts connections and never answers (a stalled server, proxy or TLS
/// handshake); its ``plainPort`` answers plain text at once, to a TLS client too. Stopped by
/// ``stop()`` or when the value goes away.
public final class TestRawServer: @unchecked Sendable {
    /// The port answering broken replies by path (127.0.0.1).
    public let rawPort: Int
    /// The port that accepts and never answers (127.0.0.1).
    public let silentPort: Int
    /// The port that answers every connection at once with plain text, not TLS (127.0.0.1).
    public let plainPort: Int

    private let folder: URL
    private let logFile: URL
    private let process: ProcessRunner.Running
    private let lock = NSLock()
    private var stopped = false

    /// Starts the server (python3 from PATH) and waits until it listens.
    public static func start() async throws -> TestRawServer {
        let folder = try ScratchFolder.make(prefix: "xds-raw")
        let log = folder.appendingPathComponent("requests.txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = try ProcessRunner.start("/usr/bin/env", ["python3", Repository.url("Tests/Support/raw_reply_server.py").path,
                                                               "--log", log.path],
                                              holdInput: true, standardOutput: .pipe)
        guard let line = await process.readLine(),
              let ready = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let raw = ready["raw"] as? Int, let silent = ready["silent"] as? Int,
              let plain = ready["plain"] as? Int else {
            process.signal(SIGTERM)
            let run = try? await process.wait()
            try? FileManager.default.removeItem(at: folder)
            throw TestHTTPServer.StartFailure(description: "the raw reply server did not start: \(run?.stderr ?? "")")
        }
        return TestRawServer(rawPort: raw, silentPort: silent, plainPort: plain, folder: folder, logFile: log, process: process)
    }

    private init(rawPort: Int, silentPort: Int, plainPort: Int, folder: URL, logFile: URL, process: ProcessRunner.Running) {
        self.rawPort = rawPort
        self.silentPort = silentPort
        self.plainPort = plainPort
        self.folder = folder
        self.logFile = logFile
        self.process = process
    }

    deinit { stop() }

    /// "http://127.0.0.1:RAWPORT/path".
    public func url(_ path: String) -> String { "http://127.0.0.1:\(rawPort)\(path)" }

    /// The request lines the raw port got so far ("GET /garbage HTTP/1.1").
    public func requests() throws -> [String] {
        try String(contentsOf: logFile, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// Stops the server (SIGTERM) and removes its folder once it has exited, without waiting
    /// for that (a deinit or a defer cannot); safe to call more than once.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        process.signal(SIGTERM)  // the server exits at once on SIGTERM (or at end of input)
        process.finishInBackground { [folder] in try? FileManager.default.removeItem(at: folder) }
    }
}
