import Foundation

/// A loopback HTTP and HTTPS server for tests: Tests/Support/http_test_server.py (see its
/// header for the routes), started in a scratch folder with its own test CA, stopped by
/// ``stop()`` or when the value goes away. It never touches the network beyond 127.0.0.1.
///
///     let server = try TestHTTPServer.start()
///     defer { server.stop() }
///     try server.write("appInfo.json", "{\"icons\": []}")
///     let url = server.url("/appInfo.json", on: .https)   // trust server.caCertificatePath
public final class TestHTTPServer: @unchecked Sendable {
    /// Which of the three listeners a URL points at.
    public enum Listener: String, Sendable {
        /// Plain HTTP.
        case http
        /// HTTPS with a certificate for 127.0.0.1 and localhost signed by the test CA.
        case https
        /// HTTPS with a self-signed certificate nothing trusts.
        case httpsSelfSigned = "https_self_signed"
        /// HTTPS with an expired certificate for 127.0.0.1 signed by the test CA.
        case httpsExpired = "https_expired"
        /// HTTPS with a certificate for wrong.example only, signed by the test CA.
        case httpsWrongHost = "https_wrong_host"
    }

    /// One line of the server's request log.
    public struct LoggedRequest: Sendable, CustomStringConvertible {
        /// "http", "https" or "https_self_signed".
        public var listener: String
        /// "GET" or "HEAD".
        public var method: String
        /// The request target as sent: path and query.
        public var path: String
        /// The request headers, names in lower case.
        public var headers: [String: String]
        /// The status sent, or nil if none was.
        public var status: Int?
        /// How many body bytes the socket accepted.
        public var bodyBytesSent: Int
        /// False when the client went away before the whole response was written.
        public var complete: Bool

        public var description: String {
            "\(method) \(path) [\(listener)] → \(status.map(String.init) ?? "none"), \(bodyBytesSent) body bytes\(complete ? "" : ", cut short")"
        }
    }

    /// The ports of the three listeners.
    public let httpPort: Int, httpsPort: Int, selfSignedPort: Int
    /// Every listener's port.
    public let ports: [Listener: Int]
    /// The test CA's certificate (PEM); trust it to reach ``Listener/https``.
    public let caCertificatePath: String
    /// The folder whose files the server serves (inside ``folder``); write fixtures here.
    public let root: URL
    /// The scratch folder holding everything (removed by ``stop()``).
    public let folder: URL
    /// The routes file the server reads on every request (see ``setRoutes(_:)``).
    public let routesFile: URL
    /// The JSON Lines request log.
    public let logFile: URL

    private let process: ProcessRunner.Running
    private let lock = NSLock()
    private var stopped = false

    /// The server script in the repository.
    public static let script: URL = Repository.url("Tests/Support/http_test_server.py")

    /// Starts the server (python3 and openssl from PATH) and waits until it listens.
    public static func start() throws -> TestHTTPServer {
        let folder = try ScratchFolder.make(prefix: "xds-http")
        let root = folder.appendingPathComponent("root", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let work = folder.appendingPathComponent("work", isDirectory: true)
        let routes = folder.appendingPathComponent("routes.json")
        let log = folder.appendingPathComponent("requests.jsonl")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)

        let process = try ProcessRunner.start("/usr/bin/env", ["python3", script.path, "--root", root.path, "--work", work.path,
                                                               "--routes", routes.path, "--log", log.path],
                                              holdInput: true, standardOutput: .pipe)
        // Ready: one JSON line with the ports. Making the certificates takes well under a
        // second; give up (and kill it) after 30 s.
        let watchdog = DispatchWorkItem { process.signal(SIGTERM) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        let line = process.readLine()
        watchdog.cancel()
        guard let line, let ready = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let http = ready["http"] as? Int, let https = ready["https"] as? Int,
              let selfSigned = ready["https_self_signed"] as? Int, let ca = ready["ca"] as? String,
              let expired = ready["https_expired"] as? Int, let wrongHost = ready["https_wrong_host"] as? Int
        else {
            process.signal(SIGTERM)
            let run = try? process.wait()
            try? FileManager.default.removeItem(at: folder)
            throw StartFailure(description: "the test HTTP server did not start: \(run?.stderr ?? "")")
        }
        return TestHTTPServer(ports: [.http: http, .https: https, .httpsSelfSigned: selfSigned,
                                      .httpsExpired: expired, .httpsWrongHost: wrongHost], ca: ca,
                              root: root, folder: folder, routes: routes, log: log,
                              process: process)
    }

    private init(ports: [Listener: Int], ca: String, root: URL, folder: URL,
                 routes: URL, log: URL, process: ProcessRunner.Running) {
        self.ports = ports
        self.httpPort = ports[.http]!
        self.httpsPort = ports[.https]!
        self.selfSignedPort = ports[.httpsSelfSigned]!
        self.caCertificatePath = ca
        self.root = root
        self.folder = folder
        self.routesFile = routes
        self.logFile = log
        self.process = process
    }

    deinit { stop() }

    /// Stops the server and removes its folder; safe to call more than once.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        process.closeInput()  // the server exits at end of input…
        process.signal(SIGTERM)  // …or at once on SIGTERM
        _ = try? process.wait()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The URL of `path` (starting with "/") on `listener`, with host 127.0.0.1.
    public func url(_ path: String, on listener: Listener = .http, host: String = "127.0.0.1") -> String {
        "\(listener == .http ? "http" : "https")://\(host):\(ports[listener]!)\(path)"
    }

    /// Writes a file to serve at `/relative`.
    public func write(_ relative: String, _ bytes: some DataProtocol) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    /// Writes a text file to serve at `/relative`.
    public func write(_ relative: String, _ text: String) throws {
        try write(relative, Data(text.utf8))
    }

    /// Replaces the routes file: `["routes": ["/path": ["status": 200, "body": "…", "etag": "\"v1\""]],
    /// "headers": ["/file.json": ["Cache-Control": "max-age=60"]]]`; read on the next request.
    public func setRoutes(_ routes: [String: Any]) throws {
        let data = try JSONSerialization.data(withJSONObject: routes, options: [.sortedKeys])
        let temporary = routesFile.appendingPathExtension("tmp")
        try data.write(to: temporary)
        // rename(2): atomic, so the server never reads half a file (FileManager.replaceItemAt
        // fails on Linux when the target does not exist yet).
        guard rename(temporary.path, routesFile.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: routesFile.path])
        }
    }

    /// Every request logged so far, oldest first. A request appears once its response is over.
    public func requests() throws -> [LoggedRequest] {
        let text = try String(contentsOf: logFile, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw Run.NotAnObject(line: String(line))
            }
            return LoggedRequest(
                listener: object["server"] as? String ?? "",
                method: object["method"] as? String ?? "",
                path: object["path"] as? String ?? "",
                headers: object["headers"] as? [String: String] ?? [:],
                status: object["status"] as? Int,
                bodyBytesSent: object["body_bytes_sent"] as? Int ?? 0,
                complete: object["complete"] as? Bool ?? false)
        }
    }

    /// The logged requests whose path starts with `prefix`, waiting up to `timeout` seconds
    /// for at least `count` of them (the server logs a request when its response is over).
    public func requests(to prefix: String, atLeast count: Int = 1, timeout: Double = 10) throws -> [LoggedRequest] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let matching = try requests().filter { $0.path.hasPrefix(prefix) }
            if matching.count >= count || Date() > deadline { return matching }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// The server could not start (python3 or openssl missing, or the script failed).
    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }
}
