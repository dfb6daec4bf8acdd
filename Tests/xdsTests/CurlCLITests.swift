import Foundation
import Testing
import XDSTestSupport

/// `xds icon` over the system's libcurl as a user runs it: proxies from the environment, a bad
/// `SSL_CERT_FILE`, and libcurl missing at run time. HOME and the cache are temporary folders.
@Suite("xds icon over libcurl (built binary, real loopback server)", .serialized, .timeLimit(.minutes(3)))
final class CurlCLITests: @unchecked Sendable {
    let server: TestHTTPServer
    let work: URL
    let home: URL

    init() async throws {
        server = try await TestHTTPServer.start(sharing: "CurlCLITests")
        work = try ScratchFolder.make(prefix: "xds-curl-work")
        home = try ScratchFolder.make(prefix: "xds-curl-home")
        try server.write("app/img/icon-58.png", Repository.bytes("img/icon-58.png"))
        try server.write("app/appInfo.json", #"{"icons": [{"width": 58, "height": 58, "src": "img/icon-58.png"}]}"#)
        try server.setRoutes(["headers": ["/app/appInfo.json": ["Cache-Control": "max-age=600"],
                                          "/app/img/icon-58.png": ["Cache-Control": "max-age=600"]]])
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: work)
        try? FileManager.default.removeItem(at: home)
    }

    /// The variables every run gets: a private home and cache, no proxy unless `extra` sets one.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ["SSL_CERT_FILE": server.caCertificatePath, "HOME": home.path,
                           "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
                           "https_proxy": "", "HTTPS_PROXY": "", "http_proxy": "", "all_proxy": "", "ALL_PROXY": "",
                           "no_proxy": "", "NO_PROXY": ""]
        environment.merge(extra) { $1 }
        return environment
    }

    func icon(_ arguments: [String], _ extra: [String: String] = [:]) async throws -> Run {
        try await run(xdsPath, ["icon"] + arguments, in: work.path, environment: environment(extra))
    }

    var listURL: String { server.url("/app/appInfo.json", on: .https) }

    @Test("https_proxy: the list and the icon go through the proxy's CONNECT tunnel; NO_PROXY bypasses it")
    func proxyFromEnvironment() async throws {
        let proxy = try await TestProxyServer.start()
        defer { proxy.stop() }
        let through = try await icon(["--app-info", listURL, "--size", "58", "--no-cache", "-o", "a.png"],
                               ["https_proxy": proxy.url])
        #expect(through.status == 0, "\(through)")
        let tunnelled = try proxy.requests()
        #expect(tunnelled.first == "CONNECT 127.0.0.1:\(server.httpsPort)", "\(tunnelled)")
        let before = try proxy.requests().count
        let direct = try await icon(["--app-info", listURL, "--size", "58", "--no-cache", "-o", "b.png"],
                              ["HTTPS_PROXY": proxy.url, "NO_PROXY": "127.0.0.1"])
        #expect(direct.status == 0, "\(direct)")
        #expect(try proxy.requests().count == before, "NO_PROXY: no request reached the proxy")
        #expect(try Data(contentsOf: work.appendingPathComponent("a.png")) == Data(contentsOf: work.appendingPathComponent("b.png")))
    }

    @Test("a proxy that refuses connections: 69, one line naming the proxy")
    func refusedProxy() async throws {
        let port = try FreePort.take()
        let result = try await icon(["--app-info", listURL, "--size", "58", "--no-cache", "-o", "a.png"],
                              ["https_proxy": "http://127.0.0.1:\(port)"])
        #expect(result.status == 69, "\(result)")
        #expect(result.errorLines.count == 1)
        #expect(result.stderr.contains("could not connect to the proxy 127.0.0.1 port \(port): connection refused"), "\(result)")
    }

    @Test("SSL_CERT_FILE as a FIFO, missing, or garbage: 69 in words naming the variable and the file, no hang")
    func badCertificateFile() async throws {
        let fifo = work.appendingPathComponent("ca.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let garbage = work.appendingPathComponent("garbage.pem").path
        try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: garbage))
        let missing = work.appendingPathComponent("missing.pem").path
        for (path, words) in [(fifo, "is a named pipe"), (missing, "does not exist"), (garbage, "holds no usable certificate")] {
            let result = try await icon(["--app-info", listURL, "--size", "58", "--no-cache", "-o", "a.png"], ["SSL_CERT_FILE": path])
            #expect(result.status == 69, "\(result)")
            #expect(result.stderr == "xds: \(listURL): SSL_CERT_FILE names \(path), which \(words)\(path == fifo ? ", not a file of certificates" : "")\n",
                    "\(result)")
        }
    }

    /// Runs `command` where neither of Debian's libcurl builds is installed (``HiddenLibraries``).
    static func withoutLibcurl(_ command: String, in folder: String, environment: [String: String]) async throws -> Run {
        try await HiddenLibraries.run(hiding: ["libcurl.so", "libcurl-gnutls.so"], command, in: folder, environment: environment)
    }

    @Test("libcurl missing at run time: a request is one line naming the package (69); the cache, --offline and other commands work",
          .enabled("needs root, unshare --mount and overlay mounts") { await HiddenLibraries.isSupported })
    func withoutCurl() async throws {
        // Fill the cache first, with libcurl there.
        let fill = try await icon(["--app-info", listURL, "--size", "58", "-o", "cached.png"])
        try #require(fill.status == 0, "\(fill)")
        let quoted = { (text: String) in "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let other = server.url("/app/appInfo.json?other", on: .https)
        let missing = try await Self.withoutLibcurl("\(quoted(xdsPath)) icon --app-info \(quoted(other)) --size 58 -o n.png",
                                              in: work.path, environment: environment())
        #expect(missing.status == 69, "\(missing)")
        #expect(missing.stderr == "xds: \(other): libcurl is not installed (Debian: apt-get install libcurl4)\n", "\(missing)")
        let offline = try await Self.withoutLibcurl(
            "\(quoted(xdsPath)) icon --app-info \(quoted(listURL)) --size 58 --offline -o o.png && "
            + "\(quoted(xdsPath)) icon --app-info \(quoted(listURL)) --size 58 -o f.png && "
            + ": > doc.txt && \(quoted(xdsPath)) set doc.txt --id com.example.app --name Example 2>&1 && \(quoted(xdsPath)) show doc.txt",
            in: work.path, environment: environment())
        #expect(offline.status == 0, "cache (offline and fresh) and other commands need no libcurl: \(offline)")
        #expect(offline.stdout.contains("com.example.app"), "\(offline)")
        #expect(try Data(contentsOf: work.appendingPathComponent("o.png")) == Data(contentsOf: work.appendingPathComponent("cached.png")))
    }
}
