import Foundation
import Testing
import XDSTestSupport
import XDocSourceFetch
import XDocSourceHTTP

/// Proxies through libcurl against a real loopback proxy (Tests/Support/connect_proxy.py): an
/// https GET tunnelled with CONNECT, an http GET forwarded, the no-proxy list, a proxy that is
/// not there. The proxy is given in the configuration (as curl's --proxy and --noproxy), so the
/// test process's environment is left alone; `xds icon` with `https_proxy` and `NO_PROXY` set
/// is tested in IconCommandTests.
@Suite("CurlTransport through a proxy", .serialized)
struct CurlProxyTests {
    static func transport(_ server: TestHTTPServer, proxy: String, noProxy: String = "") -> CurlTransport {
        CurlTransport(configuration: HTTPTransportConfiguration(
            connectTimeout: .seconds(5), totalTimeout: .seconds(10), allowHTTP: true,
            trustRoots: .pemFile(server.caCertificatePath), proxy: proxy, noProxy: noProxy))
    }

    @Test("https through the proxy: one CONNECT tunnel to the server, the body as served; http forwarded")
    func throughProxy() async throws {
        let server = try await TestHTTPServer.start(sharing: "CurlProxyTests")
        defer { server.stop() }
        let proxy = try await TestProxyServer.start()
        defer { proxy.stop() }
        try server.write("hello.txt", "through the tunnel\n")
        let transport = Self.transport(server, proxy: proxy.url)
        let response = try await transport.get(HTTPRequest(url: server.url("/hello.txt", on: .https)), maximumBodySize: 1024)
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "through the tunnel\n")
        let plain = try await transport.get(HTTPRequest(url: server.url("/hello.txt", on: .http)), maximumBodySize: 1024)
        #expect(plain.body == response.body)
        #expect(try proxy.requests() == ["CONNECT 127.0.0.1:\(server.httpsPort)", "GET \(server.url("/hello.txt"))"])
        #expect(try await server.requests(to: "/hello.txt", atLeast: 2).count == 2)
    }

    @Test("a host in the no-proxy list is reached directly")
    func noProxyBypass() async throws {
        let server = try await TestHTTPServer.start(sharing: "CurlProxyTests")
        defer { server.stop() }
        let proxy = try await TestProxyServer.start()
        defer { proxy.stop() }
        try server.write("hello.txt", "direct\n")
        let transport = Self.transport(server, proxy: proxy.url, noProxy: "localhost,127.0.0.1")
        let response = try await transport.get(HTTPRequest(url: server.url("/hello.txt", on: .https)), maximumBodySize: 1024)
        #expect(response.body == Array("direct\n".utf8))
        #expect(try proxy.requests().isEmpty)
    }

    @Test("a proxy that refuses connections: a network failure naming the proxy")
    func refusedProxy() async throws {
        let server = try await TestHTTPServer.start(sharing: "CurlProxyTests")
        defer { server.stop() }
        let port = try FreePort.take()
        let transport = Self.transport(server, proxy: "http://127.0.0.1:\(port)")
        let url = server.url("/hello.txt", on: .https, host: "localhost")
        let error = await CurlTransportTests.fetchError { () async throws(FetchError) in
            try await transport.get(HTTPRequest(url: url), maximumBodySize: 1024)
        }
        #expect(error?.kind == .network)
        #expect(error?.message == "could not connect to the proxy 127.0.0.1 port \(port): connection refused",
                "\(String(describing: error))")
        #expect(try server.requests().isEmpty)
    }

    @Test("a proxy that refuses the tunnel is named, with its answer")
    func refusedTunnel() async throws {
        let server = try await TestHTTPServer.start(sharing: "CurlProxyTests")
        defer { server.stop() }
        let proxy = try await TestProxyServer.start()
        defer { proxy.stop() }
        // The test proxy tunnels to loopback only: any other host is answered 403.
        let transport = Self.transport(server, proxy: proxy.url)
        let error = await CurlTransportTests.fetchError { () async throws(FetchError) in
            try await transport.get(HTTPRequest(url: "https://blocked.example/x"), maximumBodySize: 1024)
        }
        #expect(error?.kind == .network)
        #expect(error?.message.hasPrefix("the proxy 127.0.0.1 port \(proxy.port) did not open a tunnel to blocked.example (") == true,
                "\(String(describing: error))")
        #expect(try proxy.requests() == ["CONNECT blocked.example:443"])
    }
}
