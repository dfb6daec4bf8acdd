import Foundation
import Testing
import XDSTestSupport
import XDocSource
import XDocSourceHTTP

/// The transport against the loopback test server (Tests/Support/http_test_server.py): real
/// sockets, real TLS with a test CA made at test time, nothing beyond 127.0.0.1.
@Suite("AsyncHTTPClientTransport", .serialized)
struct AsyncHTTPClientTransportTests {
    static let megabyte = 1 << 20

    /// Short time-outs so the time-out tests stay quick; the test CA trusted unless told not.
    static func transport(_ server: TestHTTPServer, trustTestCA: Bool = true,
                          total: Duration = .seconds(5)) -> AsyncHTTPClientTransport {
        AsyncHTTPClientTransport(configuration: HTTPTransportConfiguration(
            connectTimeout: .seconds(3), totalTimeout: total,
            trustRoots: trustTestCA ? .pemFile(server.caCertificatePath) : .system))
    }

    /// Runs `body` with a started server and a transport, shutting both down after.
    static func withServer(trustTestCA: Bool = true, total: Duration = .seconds(5),
                           _ body: (TestHTTPServer, AsyncHTTPClientTransport) async throws -> Void) async throws {
        let server = try TestHTTPServer.start()
        defer { server.stop() }
        let transport = transport(server, trustTestCA: trustTestCA, total: total)
        do {
            try await body(server, transport)
        } catch {
            await transport.shutdown()
            throw error
        }
        await transport.shutdown()
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

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
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
            #expect(try server.requests(to: "/hello.txt", atLeast: 2).allSatisfy { $0.listener == "https" })
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
            #expect(error?.message.contains("not trusted") == true)
            #expect(try server.requests().isEmpty)
        }
    }

    @Test("a self-signed certificate is refused at once, naming the host and the reason")
    func selfSigned() async throws {
        try await Self.withServer { server, transport in
            try server.write("hello.txt", "x")
            let url = server.url("/hello.txt", on: .httpsSelfSigned)
            let start = ContinuousClock.now
            let error = await Self.fetchError { () async throws(FetchError) in
                try await transport.get(HTTPRequest(url: url), maximumBodySize: 1024)
            }
            #expect(Self.seconds(since: start) < 2)
            #expect(error?.kind == .certificate)
            #expect(error?.message.contains("127.0.0.1") == true)
            #expect(error?.message.contains("not trusted") == true, "\(String(describing: error))")
            #expect(try server.requests().isEmpty)
        }
    }

    @Test("a refused connection fails at once as a network failure")
    func connectionRefused() async throws {
        let port = try FreePort.take()
        let transport = AsyncHTTPClientTransport(configuration: HTTPTransportConfiguration(connectTimeout: .seconds(5)))
        let url = "http://127.0.0.1:\(port)/x"
        let start = ContinuousClock.now
        let error = await Self.fetchError { () async throws(FetchError) in
            try await transport.get(HTTPRequest(url: url), maximumBodySize: 1024)
        }
        await transport.shutdown()
        #expect(Self.seconds(since: start) < 2)
        #expect(error?.kind == .network)
        #expect(error?.message.contains("refused") == true, "\(String(describing: error))")
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
            let logged = try #require(try server.requests(to: "/big/").first)
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
            let logged = try #require(try server.requests(to: "/big/").first)
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
            let start = ContinuousClock.now
            let error = await Self.fetchError { () async throws(FetchError) in
                try await transport.get(HTTPRequest(url: server.url("/slow/headers?delay=6")), maximumBodySize: 1024)
            }
            let elapsed = Self.seconds(since: start)
            #expect(error?.kind == .timedOut, "\(String(describing: error))")
            #expect(elapsed >= 0.9 && elapsed < 3, "took \(elapsed) s")
        }
    }

    @Test("a body that trickles in: timed out at the total time-out, though bytes keep coming")
    func tricklingBody() async throws {
        try await Self.withServer(total: .seconds(1)) { server, transport in
            let start = ContinuousClock.now
            let error = await Self.fetchError { () async throws(FetchError) in
                try await transport.get(HTTPRequest(url: server.url("/slow/body?size=50&interval=0.2", on: .https)),
                                        maximumBodySize: 1024)
            }
            let elapsed = Self.seconds(since: start)
            #expect(error?.kind == .timedOut, "\(String(describing: error))")
            #expect(elapsed >= 0.9 && elapsed < 3, "took \(elapsed) s")
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
            let logged = try server.requests(to: "/icon.png", atLeast: 3)
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
            let logged = try #require(try server.requests(to: "/gzip").first)
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

    @Test("after shutdown a request fails as a network failure; shutting down twice is fine")
    func afterShutdown() async throws {
        let transport = AsyncHTTPClientTransport(configuration: HTTPTransportConfiguration())
        await transport.shutdown()
        await transport.shutdown()
        let error = await Self.fetchError { () async throws(FetchError) in
            try await transport.get(HTTPRequest(url: "http://127.0.0.1:9/x"), maximumBodySize: 1)
        }
        #expect(error?.kind == .network)
    }

    @Test("a URL that is not http or https is refused as invalid without a connection")
    func invalidURL() async throws {
        let transport = AsyncHTTPClientTransport(configuration: HTTPTransportConfiguration())
        for url in ["ftp://127.0.0.1/x", "127.0.0.1/x", "https:///x"] {
            let error = await Self.fetchError { () async throws(FetchError) in
                try await transport.get(HTTPRequest(url: url), maximumBodySize: 1)
            }
            #expect(error?.kind == .invalidURL, "\(url)")
        }
        await transport.shutdown()
    }

    @Test("a transport dropped without shutdown does not crash")
    func droppedWithoutShutdown() async throws {
        let server = try TestHTTPServer.start()
        defer { server.stop() }
        try server.write("a.txt", "a")
        do {
            let transport = Self.transport(server)
            _ = try await transport.get(HTTPRequest(url: server.url("/a.txt")), maximumBodySize: 10)
        }
        #expect(try server.requests(to: "/a.txt").count == 1)
    }
}

/// A TCP port on 127.0.0.1 that nothing listens on: bound, then closed.
enum FreePort {
    static func take() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
