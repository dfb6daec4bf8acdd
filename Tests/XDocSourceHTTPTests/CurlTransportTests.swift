import Foundation
import Testing
import XDSTestSupport
import XDocSourceFetch
import XDocSourceHTTP

/// The transport against the loopback test server (Tests/Support/http_test_server.py): real
/// sockets, real TLS with a test CA made at test time, nothing beyond 127.0.0.1. Proxies are
/// set to none in the configuration, so the test process's proxy variables play no part.
@Suite("CurlTransport", .serialized)
struct CurlTransportTests {
    static let megabyte = 1 << 20

    /// Short time-outs so the time-out tests stay quick; the test CA trusted unless told not.
    static func transport(_ server: TestHTTPServer, trustTestCA: Bool = true,
                          total: Duration = .seconds(5)) -> CurlTransport {
        CurlTransport(configuration: HTTPTransportConfiguration(
            connectTimeout: .seconds(3), totalTimeout: total, allowHTTP: true,
            trustRoots: trustTestCA ? .pemFile(server.caCertificatePath) : .system, proxy: ""))
    }

    /// Runs `body` with a started server and a transport.
    static func withServer(trustTestCA: Bool = true, total: Duration = .seconds(5),
                           _ body: (TestHTTPServer, CurlTransport) async throws -> Void) async throws {
        let server = try await TestHTTPServer.start(sharing: "CurlTransportTests")
        defer { server.stop() }
        try await body(server, transport(server, trustTestCA: trustTestCA, total: total))
    }

    /// The FetchError `operation` throws (a test failure if it throws none).
    static func fetchError(_ operation: () async throws(FetchError) -> HTTPResponse) async -> FetchError? {
        do {
            let response = try await operation()
            Issue.record("expected a FetchError, got status \(response.status)")
            return nil
        } catch {
            return error
        }
    }

    @Test("GET over http: status, headers and body as served")
    func plainHTTP() async throws {
        try await Self.withServer { server, transport in
            try server.write("hello.txt", "hello over http\n")
            let response = try await transport.get(HTTPRequest(url: server.url("/hello.txt")), maximumBodySize: 1024)
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "hello over http\n")
            #expect(response.header("etag")?.hasPrefix("\"") == true)
            #expect(response.header("Content-Length") == "16")
        }
    }

    @Test("GET over https with the test CA trusted through the configuration")
    func httpsWithTestCA() async throws {
        try await Self.withServer { server, transport in
            try server.write("hello.txt", "hello over https\n")
            for host in ["127.0.0.1", "localhost"] {
                let response = try await transport.get(
                    HTTPRequest(url: server.url("/hello.txt", on: .https, host: host)), maximumBodySize: 1024)
                #expect(response.status == 200)
                #expect(String(decoding: response.body, as: UTF8.self) == "hello over https\n")
            }
            #expect(try await server.requests(to: "/hello.txt", atLeast: 2).allSatisfy { $0.listener == "https" })
        }
    }

    @Test("a server whose CA is not trusted is refused as a certificate failure naming the host")
    func untrustedCA() async throws {
        try await Self.withServer(trustTestCA: false) { server, transport in
            try server.write("hello.txt", "x")
            let url = server.url("/hello.txt", on: .https)
            let error = await Self.fetchError { () async throws(FetchError) in
                try await transport.get(HTTPRequest(url: url), maximumBodySize: 1024)
            }
            #expect(error?.kind == .certificate)
            #expect(error?.url == url)
            #expect(error?.message.contains("127.0.0.1") == true)
            #expect(error?.message == "the certificate of 127.0.0.1 is from an unknown issuer, not trusted (unable to get the local issuer certificate)",
                    "\(String(describing: error))")
            #expect(try server.requests().isEmpty)
        }
    }

    @Test("each certificate failure is named: self-signed, expired, wrong host name",
          arguments: [(TestHTTPServer.Listener.httpsSelfSigned, "is self-signed, and not trusted"),
                      (.httpsExpired, "has expired"),
                      (.httpsWrongHost, "is for another host name")])
    func certificateFailures(listener: TestHTTPServer.Listener, reason: String) async throws {
        try await Self.withServer { server, transport in
            try server.write("hello.txt", "x")
            let url = server.url("/hello.txt", on: listener)
            let error = await Self.fetchError { () async throws(FetchError) in
                try await transport.get(HTTPRequest(url: url), maximumBodySize: 1024)
            }
            #expect(error?.kind == .certificate)
            #expect(error?.url == url)
            #expect(error?.message == "the certificate of 127.0.0.1 \(reason)", "\(String(describing: error))")
            #expect(try server.requests().isEmpty)
        }
    }

    @Test("a refused connection fails at once as a network failure")
    func connectionRefused() async throws {
        let port = try FreePort.take()
        let transport = CurlTransport(configuration: HTTPTransportConfiguration(
            connectTimeout: .seconds(5), allowHTTP: true, proxy: ""))
        for url in ["http://127.0.0.1:\(port)/x", "https://127.0.0.1:\(port)/x"] {
            let error = await Self.fetchError { () async throws(FetchError) in
                try await transport.get(HTTPRequest(url: url), maximumBodySize: 1024)
            }
            #expect(error?.kind == .network)
            #expect(error?.message == "could not connect to 127.0.0.1: connection refused", "\(String(describing: error))")
        }
    }

    @Test("redirects are handed back with their Location, not followed", arguments: [301, 302, 307, 308])
    func redirectsNotFollowed(status: Int) async throws {
        try await Self.withServer { server, transport in
            try server.write("target.txt", "target")
            let response = try await transport.get(
                HTTPRequest(url: server.url("/redirect/2/target.txt?status=\(status)", on: .https)),
                maximumBodySize: 1024)
            #expect(response.status == status)
            #expect(response.header("location") == "/redirect/1/target.txt?status=\(status)")
            #expect(response.body.isEmpty)
            // Only the first hop reached the server.
            try await Task.sleep(for: .milliseconds(200))
            #expect(try server.requests().map(\.path) == ["/redirect/2/target.txt?status=\(status)"])
            // The handle (and its connection) is kept: the next request reuses it.
            let next = try await transport.get(HTTPRequest(url: server.url("/target.txt", on: .https)), maximumBodySize: 1024)
            #expect(next.body == Array("target".utf8))
        }
    }

    @Test("an error status is a response, not a throw")
    func notFound() async throws {
        try await Self.withServer { server, transport in
            let response = try await transport.get(HTTPRequest(url: server.url("/status/404")), maximumBodySize: 1024)
            #expect(response.status == 404)
            #expect(String(decoding: response.body, as: UTF8.self) == "status 404")
        }
    }

    @Test("an oversized Content-Length is refused before the body is read",
          arguments: [TestHTTPServer.Listener.http, .https])
    func oversizedContentLength(listener: TestHTTPServer.Listener) async throws {
        try await Self.withServer { server, transport in
            let size = 256 * Self.megabyte
            let url = server.url("/big/\(size)", on: listener)
            let error = await Self.fetchError { () async throws(FetchError) in
                try await transport.get(HTTPRequest(url: url), maximumBodySize: Self.megabyte)
            }
            #expect(error?.kind == .tooLarge)
            #expect(error?.message.contains("\(size) bytes") == true, "\(String(describing: error))")
            let logged = try #require(try await server.requests(to: "/big/").first)
            #expect(!logged.complete)
            #expect(logged.bodyBytesSent < size / 8, "\(logged)")
        }
    }

    @Test("a body without a length is cut off as soon as it passes the limit",
          arguments: ["chunked", "close"])
    func oversizedStream(mode: String) async throws {
        try await Self.withServer { server, transport in
            let size = 256 * Self.megabyte
            let url = server.url("/big/\(size)?mode=\(mode)")
            let error = await Self.fetchError { () async throws(FetchError) in
                try await transport.get(HTTPRequest(url: url), maximumBodySize: Self.megabyte)
            }
            #expect(error?.kind == .tooLarge)
            let logged = try #require(try await server.requests(to: "/big/").first)
            #expect(!logged.complete)
            #expect(logged.bodyBytesSent < size / 8, "\(logged)")
        }
    }

    @Test("a body exactly at the limit is accepted")
    func bodyAtLimit() async throws {
        try await Self.withServer { server, transport in
            for mode in ["honest", "chunked"] {
                let response = try await transport.get(
                    HTTPRequest(url: server.url("/big/4096?mode=\(mode)")), maximumBodySize: 4096)
                #expect(response.body.count == 4096)
            }
        }
    }

    @Test("a server that sends no headers in time: timed out within the total time-out")
    func slowHeaders() async throws {
        try await Self.withServer(total: .seconds(1)) { server, transport in
            let error = await Self.fetchError { () async throws(FetchError) in
                try await transport.get(HTTPRequest(url: server.url("/slow/headers?delay=6")), maximumBodySize: 1024)
            }
            #expect(error?.kind == .timedOut, "\(String(describing: error))")
            #expect(error?.message == "no complete answer from 127.0.0.1 within 1 s", "\(String(describing: error))")
        }
    }

    @Test("a body that trickles in: timed out at the total time-out, though bytes keep coming")
    func tricklingBody() async throws {
        try await Self.withServer(total: .seconds(1)) { server, transport in
            let error = await Self.fetchError { () async throws(FetchError) in
                try await transport.get(HTTPRequest(url: server.url("/slow/body?size=50&interval=0.2", on: .https)),
                                        maximumBodySize: 1024)
            }
            #expect(error?.kind == .timedOut, "\(String(describing: error))")
            let logged = try #require(try await server.requests(to: "/slow/body").first)
            #expect(logged.bodyBytesSent > 0 && !logged.complete, "bytes kept coming: \(logged)")
        }
    }

    @Test("a conditional request: the headers reach the server and 304 comes back with no body")
    func notModified() async throws {
        try await Self.withServer { server, transport in
            try server.write("icon.png", Data(repeating: 7, count: 5000))
            let first = try await transport.get(HTTPRequest(url: server.url("/icon.png", on: .https)),
                                                maximumBodySize: 10000)
            let etag = try #require(first.header("ETag"))
            let modified = try #require(first.header("Last-Modified"))
            #expect(first.body.count == 5000)
            for header in [HTTPHeader(name: "If-None-Match", value: etag),
                           HTTPHeader(name: "If-Modified-Since", value: modified)] {
                let again = try await transport.get(
                    HTTPRequest(url: server.url("/icon.png", on: .https), headers: [header]), maximumBodySize: 10000)
                #expect(again.status == 304)
                #expect(again.body.isEmpty)
                #expect(again.header("etag") == etag)
            }
            let logged = try await server.requests(to: "/icon.png", atLeast: 3)
            #expect(logged.map(\.status) == [200, 304, 304])
            #expect(logged[1].headers["if-none-match"] == etag)
            #expect(logged[2].headers["if-modified-since"] == modified)
            #expect(logged[1].bodyBytesSent == 0 && logged[2].bodyBytesSent == 0)
        }
    }

    @Test("no decompression: a gzip body comes back as the bytes sent, and none is asked for")
    func noDecompression() async throws {
        try await Self.withServer { server, transport in
            let response = try await transport.get(HTTPRequest(url: server.url("/gzip")), maximumBodySize: 1024)
            #expect(response.header("content-encoding") == "gzip")
            #expect(Array(response.body.prefix(2)) == [0x1f, 0x8b])
            let logged = try #require(try await server.requests(to: "/gzip").first)
            #expect(logged.headers["accept-encoding"] == nil)
        }
    }

    @Test("the request's headers are sent as given")
    func requestHeaders() async throws {
        try await Self.withServer { server, transport in
            let response = try await transport.get(
                HTTPRequest(url: server.url("/echo-headers"), headers: [HTTPHeader(name: "X-Test", value: "one two")]),
                maximumBodySize: 4096)
            let echoed = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String]
            #expect(echoed?["x-test"] == "one two")
        }
    }

    @Test("a URL that is not http or https is refused as invalid without a connection; http only when allowed")
    func invalidURL() async throws {
        let transport = CurlTransport(configuration: HTTPTransportConfiguration(proxy: ""))
        for url in ["ftp://127.0.0.1/x", "file:///etc/passwd", "data:,x", "127.0.0.1/x", "https:///x"] {
            let error = await Self.fetchError { () async throws(FetchError) in
                try await transport.get(HTTPRequest(url: url), maximumBodySize: 1)
            }
            #expect(error?.kind == .invalidURL, "\(url)")
        }
        let http = await Self.fetchError { () async throws(FetchError) in
            try await transport.get(HTTPRequest(url: "http://127.0.0.1:9/x"), maximumBodySize: 1)
        }
        #expect(http?.kind == .refused)
        #expect(http?.message == "plain http is not allowed; use https")
    }

    @Test("a transport dropped after requests does not crash, and concurrent requests each get a handle")
    func concurrentAndDropped() async throws {
        let server = try await TestHTTPServer.start(sharing: "CurlTransportTests")
        defer { server.stop() }
        for index in 0..<8 { try server.write("c\(index).txt", "body \(index)") }
        do {
            let transport = Self.transport(server)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let response = try await transport.get(
                            HTTPRequest(url: server.url("/c\(index).txt", on: index % 2 == 0 ? .https : .http)),
                            maximumBodySize: 100)
                        #expect(response.body == Array("body \(index)".utf8))
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(try await server.requests(to: "/c", atLeast: 8).count == 8)
    }

    @Test("a cancelled task stops its transfer")
    func cancellation() async throws {
        try await Self.withServer(total: .seconds(30)) { server, transport in
            let task = Task { () async throws(FetchError) -> HTTPResponse in
                try await transport.get(HTTPRequest(url: server.url("/slow/headers?delay=20")), maximumBodySize: 1024)
            }
            try await Task.sleep(for: .milliseconds(300))
            task.cancel()
            let result = await task.result
            guard case .failure(let failure) = result, let error = failure as? FetchError else {
                Issue.record("expected a FetchError")
                return
            }
            #expect(error.kind == .network)
            #expect(error.message == "the request was cancelled")
        }
    }

    @Test("SSL_CERT_FILE that is missing, a FIFO, a folder or not certificates: a certificate failure in words, naming the variable and the file")
    func badTrustFile() async throws {
        let server = try await TestHTTPServer.start(sharing: "CurlTransportTests")
        defer { server.stop() }
        try server.write("hello.txt", "x")
        let folder = try ScratchFolder.make(prefix: "xds-trust")
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("fifo.pem").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let garbage = folder.appendingPathComponent("garbage.pem").path
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: garbage))
        let missing = folder.appendingPathComponent("missing.pem").path
        let cases: [(String, String, String)] = [
            ("SSL_CERT_FILE", missing, "SSL_CERT_FILE names \(missing), which does not exist"),
            ("SSL_CERT_FILE", fifo, "SSL_CERT_FILE names \(fifo), which is a named pipe, not a file of certificates"),
            ("CURL_CA_BUNDLE", folder.path, "CURL_CA_BUNDLE names \(folder.path), which is a folder, not a file of certificates"),
            ("SSL_CERT_FILE", garbage, "SSL_CERT_FILE names \(garbage), which holds no usable certificate"),
        ]
        for (variable, path, message) in cases {
            var configuration = HTTPTransportConfiguration.fromEnvironment([variable: path])
            configuration.proxy = ""
            #expect(configuration.trustRootsVariable == variable)
            let transport = CurlTransport(configuration: configuration)
            let url = server.url("/hello.txt", on: .https)
            let error = await Self.fetchError { () async throws(FetchError) in
                try await transport.get(HTTPRequest(url: url), maximumBodySize: 1024)
            }
            #expect(error?.kind == .certificate)
            #expect(error?.url == url)
            #expect(error?.message == message)
        }
    }

    @Test("the configuration from the environment: SSL_CERT_FILE, else CURL_CA_BUNDLE, else the system's store")
    func configurationFromEnvironment() {
        let both = HTTPTransportConfiguration.fromEnvironment(["SSL_CERT_FILE": "/a.pem", "CURL_CA_BUNDLE": "/b.pem"])
        #expect(both.trustRoots == .pemFile("/a.pem") && both.trustRootsVariable == "SSL_CERT_FILE")
        let curl = HTTPTransportConfiguration.fromEnvironment(["SSL_CERT_FILE": "", "CURL_CA_BUNDLE": "/b.pem"], allowHTTP: true)
        #expect(curl.trustRoots == .pemFile("/b.pem") && curl.trustRootsVariable == "CURL_CA_BUNDLE" && curl.allowHTTP)
        let bare = HTTPTransportConfiguration.fromEnvironment(["PATH": "/bin", "https_proxy": "http://p:1"])
        #expect(bare == HTTPTransportConfiguration())
        #expect(bare.trustRoots == .system && bare.proxy == nil && bare.noProxy == nil && !bare.allowHTTP)
    }
}
