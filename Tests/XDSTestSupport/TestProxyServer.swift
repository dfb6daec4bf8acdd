import Foundation

/// A loopback HTTP proxy for tests: Tests/Support/connect_proxy.py (CONNECT tunnels and plain
/// GETs to 127.0.0.1 only), started with a request log in a scratch folder, stopped by
/// ``stop()`` or when the value goes away.
public final class TestProxyServer: @unchecked Sendable {
    /// The port it listens on (127.0.0.1).
    public let port: Int
    /// Whether clients speak TLS to it (an https proxy).
    public let isHTTPS: Bool
    /// "http://127.0.0.1:PORT" (or "https://…"), as `https_proxy` takes it.
    public var url: String { "\(isHTTPS ? "https" : "http")://127.0.0.1:\(port)" }

    private let folder: URL
    private let logFile: URL
    private let process: ProcessRunner.Running
    private let lock = NSLock()
    private var stopped = false

    /// Starts the proxy (python3 from PATH) and waits until it listens; with `tls` (a PEM
    /// certificate and its key) it is an https proxy.
    public static func start(tls: (certificate: String, key: String)? = nil) async throws -> TestProxyServer {
        let folder = try ScratchFolder.make(prefix: "xds-proxy")
        let log = folder.appendingPathComponent("requests.jsonl")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        var arguments = [Repository.url("Tests/Support/connect_proxy.py").path, "--log", log.path]
        if let tls { arguments += ["--tls", tls.certificate, tls.key] }
        let process = try ProcessRunner.start("/usr/bin/env", ["python3"] + arguments,
                                              holdInput: true, standardOutput: .pipe)
        // Ready: one JSON line with the port.
        guard let line = await process.readLine(),
              let ready = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let port = ready["port"] as? Int else {
            process.signal(SIGTERM)
            let run = try? await process.wait()
            try? FileManager.default.removeItem(at: folder)
            throw TestHTTPServer.StartFailure(description: "the test proxy did not start: \(run?.stderr ?? "")")
        }
        return TestProxyServer(port: port, isHTTPS: tls != nil, folder: folder, logFile: log, process: process)
    }

    private init(port: Int, isHTTPS: Bool, folder: URL, logFile: URL, process: ProcessRunner.Running) {
        self.port = port
        self.isHTTPS = isHTTPS
        self.folder = folder
        self.logFile = logFile
        self.process = process
    }

    deinit { stop() }

    /// Stops the proxy (SIGTERM) and removes its folder once it has exited, without waiting
    /// for that (a deinit or a defer cannot); safe to call more than once.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        process.signal(SIGTERM)  // the server exits at once on SIGTERM (or at end of input)
        process.finishInBackground { [folder] in try? FileManager.default.removeItem(at: folder) }
    }

    /// Every request line the proxy got so far, as "METHOD TARGET" ("CONNECT 127.0.0.1:4433").
    public func requests() throws -> [String] {
        let text = try String(contentsOf: logFile, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return "\(object["method"] as? String ?? "") \(object["target"] as? String ?? "")"
        }
    }
}
