import Foundation

/// A loopback HTTP and HTTPS server for tests: Tests/Support/http_test_server.py (see its
/// header for the routes), with its own test CA, stopped by ``stop()`` or when the value goes
/// away. It never touches the network beyond 127.0.0.1.
///
/// A suite shares one server process and CA (``start(sharing:)``): each test still gets a
/// value of its own, with its own listeners (ports), served folder, routes and request log, so
/// tests stay independent and may run in parallel, and ``stop()`` closes that test's listeners
/// only. ``start()`` starts a process of its own, for a test that needs one.
///
///     let server = try await TestHTTPServer.start(sharing: "MySuite")
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
    /// The certificate for 127.0.0.1 signed by the test CA and its key (PEM files beside
    /// ``caCertificatePath``), for another test server (an https proxy) to present.
    public var signedCertificate: (certificate: String, key: String) { certificateFiles("server") }
    /// A self-signed certificate for 127.0.0.1 and its key, which nothing trusts.
    public var selfSignedCertificate: (certificate: String, key: String) { certificateFiles("self") }

    private func certificateFiles(_ name: String) -> (certificate: String, key: String) {
        let folder = (caCertificatePath as NSString).deletingLastPathComponent
        return ("\(folder)/\(name).pem", "\(folder)/\(name).key")
    }
    /// The folder whose files the server serves (inside ``folder``); write fixtures here.
    public let root: URL
    /// The scratch folder holding everything (removed by ``stop()``).
    public let folder: URL
    /// The routes file the server reads on every request (see ``setRoutes(_:)``).
    public let routesFile: URL
    /// The JSON Lines request log.
    public let logFile: URL

    private let host: Host
    /// True when this value's host process is its own (``start()``): stopping ends it.
    private let ownsHost: Bool
    private let lock = NSLock()
    private var stopped = false

    /// The server script in the repository.
    public static let script: URL = Repository.url("Tests/Support/http_test_server.py")

    /// How many server processes (each making a CA) this test process has started.
    public static var processesStarted: Int { Host.started.withLock { $0 } }

    /// Starts a server process of its own (python3 and openssl from PATH) and waits until it
    /// listens.
    public static func start() async throws -> TestHTTPServer {
        let (host, first) = try await Host.launch()
        return TestHTTPServer(site: first, host: host, ownsHost: true)
    }

    /// New listeners, with a folder, routes and log of their own, on the one server process of
    /// `suite` (started, with its CA, on the first call).
    public static func start(sharing suite: String) async throws -> TestHTTPServer {
        let host = try await Host.shared(suite)
        return TestHTTPServer(site: try await host.openSite(), host: host, ownsHost: false)
    }

    private init(site: Site, host: Host, ownsHost: Bool) {
        self.ports = site.ports
        self.httpPort = site.ports[.http]!
        self.httpsPort = site.ports[.https]!
        self.selfSignedPort = site.ports[.httpsSelfSigned]!
        self.caCertificatePath = site.ca
        self.root = site.folder.appendingPathComponent("root", isDirectory: true)
        self.folder = site.folder
        self.routesFile = site.folder.appendingPathComponent("routes.json")
        self.logFile = site.folder.appendingPathComponent("requests.jsonl")
        self.host = host
        self.ownsHost = ownsHost
    }

    deinit { stop() }

    /// Stops the server (a shared one: closes this value's listeners) and removes its folder,
    /// on a thread of its own, not waited for (a deinit or a defer cannot); safe to call more
    /// than once.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        // On a thread of its own, not waited for (a deinit or a defer cannot wait).
        let host = self.host, ownsHost = self.ownsHost, httpPort = self.httpPort, folder = self.folder
        Thread.detachNewThread {
            if ownsHost { host.stop() } else { host.closeSite(httpPort: httpPort) }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// One set of listeners as the server reported it.
    struct Site {
        let ports: [Listener: Int]
        let ca: String
        let folder: URL
    }

    /// One server process with its CA, taking `site` and `close` commands on standard input.
    final class Host: @unchecked Sendable {
        /// The shared process of each suite (its start, awaited by every test of the suite).
        static let registry = Locked([String: Task<Host, any Error>]())
        /// The shared processes started so far, stopped at exit.
        static let sharedHosts = Locked([Host]())
        /// How many processes were started (kept apart: ``launch()`` runs inside the registry's lock).
        static let started = Locked(0)

        private let process: ProcessRunner.Running
        private let folder: URL
        private let lock = NSLock()
        private var stopped = false

        private init(process: ProcessRunner.Running, folder: URL) {
            self.process = process
            self.folder = folder
        }

        /// Starts a process; returns it and its first site.
        static func launch() async throws -> (Host, Site) {
            try await offPool { try launchBlocking() }
        }

        /// ``launch()`` on the calling thread, which waits for the server's first line.
        private static func launchBlocking() throws -> (Host, Site) {
            let folder = try ScratchFolder.make(prefix: "xds-http")
            let first = try Host.siteFolder(in: folder)
            let work = folder.appendingPathComponent("work", isDirectory: true)
            let process = try ProcessRunner.start(
                "/usr/bin/env", ["python3", script.path, "--root", first.appendingPathComponent("root").path,
                                 "--work", work.path, "--routes", first.appendingPathComponent("routes.json").path,
                                 "--log", first.appendingPathComponent("requests.jsonl").path],
                holdInput: true, standardOutput: .pipe)
            started.withLock { $0 += 1 }
            let host = Host(process: process, folder: folder)
            // Making the certificates takes well under a second; give up (and kill it) after 30 s.
            let watchdog = DispatchWorkItem { process.signal(SIGTERM) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
            let site = host.readSite(folder: first)
            watchdog.cancel()
            guard let site else {
                process.signal(SIGTERM)
                let run = try? process.waitBlocking()
                try? FileManager.default.removeItem(at: folder)
                throw StartFailure(description: "the test HTTP server did not start: \(run?.stderr ?? "")")
            }
            return (host, site)
        }

        /// The process of `suite`, started on first use and ended when the tests exit.
        static func shared(_ suite: String) async throws -> Host {
            let task = registry.withLock { hosts in
                if let task = hosts[suite] { return task }
                let task = Task {
                    let host = try await launch().0  // its first site stays unused
                    sharedHosts.withLock { $0.append(host) }
                    return host
                }
                hosts[suite] = task
                if hosts.count == 1 { atexit { Host.stopShared() } }
                return task
            }
            return try await task.value
        }

        static func stopShared() {
            registry.withLock { $0 = [:] }
            let hosts = sharedHosts.withLock { hosts in
                defer { hosts = [] }
                return hosts
            }
            for host in hosts { host.stop() }
        }

        /// A fresh folder for one site: root/, an empty request log.
        static func siteFolder(in parent: URL) throws -> URL {
            let folder = parent.appendingPathComponent("site-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("root"), withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("requests.jsonl").path, contents: nil)
            return folder
        }

        /// Asks the process for another site (off the pool: the answer is waited for under the
        /// lock that pairs each command with its answer).
        func openSite() async throws -> Site {
            try await offPool { [self] in try openSiteBlocking() }
        }

        private func openSiteBlocking() throws -> Site {
            lock.lock()
            defer { lock.unlock() }
            let site = try Host.siteFolder(in: folder)
            let command = "site \(site.appendingPathComponent("root").path) \(site.appendingPathComponent("routes.json").path) \(site.appendingPathComponent("requests.jsonl").path)\n"
            guard !stopped, process.send(Data(command.utf8)), let ready = readSite(folder: site) else {
                throw StartFailure(description: "the shared test HTTP server opened no site")
            }
            return ready
        }

        /// Closes the listeners of the site whose http port is `httpPort`.
        func closeSite(httpPort: Int) {
            lock.lock()
            defer { lock.unlock() }
            guard !stopped, process.send(Data("close \(httpPort)\n".utf8)) else { return }
            _ = process.readLineBlocking()  // {"closed": PORT}: the ports no longer answer
        }

        /// Reads the JSON line that lists a site's ports.
        private func readSite(folder: URL) -> Site? {
            guard let line = process.readLineBlocking(),
                  let ready = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let http = ready["http"] as? Int, let https = ready["https"] as? Int,
                  let selfSigned = ready["https_self_signed"] as? Int, let ca = ready["ca"] as? String,
                  let expired = ready["https_expired"] as? Int, let wrongHost = ready["https_wrong_host"] as? Int
            else { return nil }
            return Site(ports: [.http: http, .https: https, .httpsSelfSigned: selfSigned,
                                .httpsExpired: expired, .httpsWrongHost: wrongHost], ca: ca, folder: folder)
        }

        func stop() {
            lock.lock()
            defer { lock.unlock() }
            guard !stopped else { return }
            stopped = true
            process.closeInput()  // the server exits at end of input…
            process.signal(SIGTERM)  // …or at once on SIGTERM
            _ = try? process.waitBlocking()
            try? FileManager.default.removeItem(at: folder)
        }
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
    public func requests(to prefix: String, atLeast count: Int = 1, timeout: Double = 10) async throws -> [LoggedRequest] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let matching = try requests().filter { $0.path.hasPrefix(prefix) }
            if matching.count >= count || Date() > deadline { return matching }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits up to `timeout` seconds until at least `count` requests whose path starts with
    /// `prefix` have come in (logged on arrival, before any answer: a slow response is then
    /// under way); returns whether they did.
    public func requestsStarted(to prefix: String, atLeast count: Int = 1, timeout: Double = 60) async -> Bool {
        let started = URL(fileURLWithPath: logFile.path + ".started")
        return await waitUntil(seconds: timeout) {
            let text = (try? String(contentsOf: started, encoding: .utf8)) ?? ""
            let paths = text.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["path"] as? String
            }
            return paths.filter { $0.hasPrefix(prefix) }.count >= count
        }
    }

    /// The server could not start (python3 or openssl missing, or the script failed).
    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
