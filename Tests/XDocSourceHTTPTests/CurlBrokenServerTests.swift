import Foundation
import Testing
import XDSTestSupport
import XDocSourceFetch
import XDocSourceHTTP

/// Servers and proxies that answer wrongly or not at all, on loopback raw sockets
/// (Tests/Support/raw_reply_server.py): each is a failed fetch (69) in words that name what
/// failed, never a usage error, never cached (SPEC §3).
@Suite("CurlTransport against broken servers and proxies", .serialized)
final class CurlBrokenServerTests: @unchecked Sendable {
    let raw: TestRawServer

    init() async throws {
        raw = try await TestRawServer.start()
    }

    deinit { raw.stop() }

    /// Connect time-out 1 s, total 5 s: a stalled connection fails at the connect limit.
    static func transport(proxy: String = "", trust: String? = nil) -> CurlTransport {
        CurlTransport(configuration: HTTPTransportConfiguration(
            connectTimeout: .seconds(1), totalTimeout: .seconds(5), allowHTTP: true,
            trustRoots: trust.map { .pemFile($0) } ?? .system, proxy: proxy))
    }

    func failure(_ url: String, transport: CurlTransport = transport(),
                 budget: TimeBudget? = nil) async -> FetchError? {
        await CurlTransportTests.fetchError { () async throws(FetchError) in
            try await transport.get(HTTPRequest(url: url, timeBudget: budget), maximumBodySize: 1 << 20)
        }
    }

    @Test("binary garbage and an HTTP/0.9 reply: a network failure naming the host, not a refused scheme",
          arguments: ["/garbage", "/http09"])
    func notHTTP(path: String) async throws {
        let error = await failure(raw.url(path))
        #expect(error?.kind == .network, "\(String(describing: error))")
        #expect(error?.message == "the reply from 127.0.0.1 is not HTTP: no status line (HTTP/0.9, or another protocol)",
                "\(String(describing: error))")
    }

    @Test("two different Content-Length headers: a failed fetch, also for a redirect")
    func twoLengths() async throws {
        for path in ["/two-lengths", "/two-lengths?redirect=1"] {
            let error = await failure(raw.url(path))
            #expect(error?.kind == .network, "\(path): \(String(describing: error))")
            // libcurl 8 refuses the second value itself ("Invalid Content-Length"); 7.88 keeps
            // the last, and the transport's header check stops it.
            #expect(error?.message.hasPrefix("the reply from 127.0.0.1 is not valid HTTP") == true, "\(String(describing: error))")
        }
    }

    @Test("two different Content-Length headers through the fetcher: nothing is stored in the cache")
    func twoLengthsNeverCached() async throws {
        let cache = try ScratchFolder.make(prefix: "xds-raw-cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        // A budget of minutes: see FetcherNetworkTests.fetcher.
        let fetcher = AppInfoFetcher(transport: Self.transport(), policy: FetchPolicy(allowHTTP: true, timeBudget: .seconds(600)),
                                     cache: CacheSettings(directory: cache.path + "/xds", mode: .normal))
        for _ in 0..<2 {
            do {
                let list = try await fetcher.appInfo(at: .commandLine(raw.url("/two-lengths")))
                Issue.record("expected a failure, got \(list)")
            } catch {
                #expect(error.kind == .network, "\(error)")
            }
        }
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: cache.path + "/xds")) ?? []
        #expect(stored.filter { $0.hasSuffix(".entry") }.isEmpty, "\(stored)")
        #expect(try raw.requests().count == 2, "asked again: nothing was cached")
    }

    @Test("headers over libcurl's limits: the server's headers are too large, not out of memory")
    func hugeHeaders() async throws {
        let line = await failure(raw.url("/huge-header"))
        #expect(line?.kind == .network)
        #expect(line?.message == "the headers from 127.0.0.1 are too large (a line over libcurl's limit of 100 KB)",
                "\(String(describing: line))")
        let many = await failure(raw.url("/many-headers"))
        #expect(many?.kind == .network)
        #expect(many?.message.hasPrefix("the headers from 127.0.0.1 are too large") == true, "\(String(describing: many))")
    }

    @Test("https to a port that never answers the handshake: the TLS handshake did not finish within the connect limit")
    func silentTLS() async throws {
        let error = await failure("https://127.0.0.1:\(raw.silentPort)/x")
        #expect(error?.kind == .timedOut)
        #expect(error?.message == "the TLS handshake with 127.0.0.1 did not finish within 1 s", "\(String(describing: error))")
    }

    @Test("https to a port that answers plain text: the TLS handshake failed, with the server or with the https proxy")
    func plainTextPort() async throws {
        let direct = await failure("https://127.0.0.1:\(raw.plainPort)/x")
        #expect(direct?.kind == .certificate)
        #expect(direct?.message.hasPrefix("the TLS handshake with 127.0.0.1 failed (") == true, "\(String(describing: direct))")
        let proxied = await failure("https://127.0.0.1:\(raw.rawPort)/x",
                                    transport: Self.transport(proxy: "https://127.0.0.1:\(raw.plainPort)"))
        #expect(proxied?.kind == .certificate)
        #expect(proxied?.message.hasPrefix("the TLS handshake with the https proxy 127.0.0.1 port \(raw.plainPort) failed (") == true,
                "\(String(describing: proxied))")
    }

    @Test("a proxy that never answers CONNECT is named, with the connect limit")
    func silentProxy() async throws {
        let error = await failure("https://127.0.0.1:\(raw.rawPort)/x",
                                  transport: Self.transport(proxy: "http://127.0.0.1:\(raw.silentPort)"))
        #expect(error?.kind == .timedOut)
        #expect(error?.message == "the proxy 127.0.0.1 port \(raw.silentPort) did not open a tunnel to 127.0.0.1 within 1 s",
                "\(String(describing: error))")
    }

    @Test("plain http through a proxy that never answers the request: the proxy is named beside the server")
    func silentForwardingProxy() async throws {
        let transport = CurlTransport(configuration: HTTPTransportConfiguration(
            connectTimeout: .seconds(1), totalTimeout: .seconds(2), allowHTTP: true,
            proxy: "http://127.0.0.1:\(raw.silentPort)"))
        let error = await failure(raw.url("/x"), transport: transport)
        #expect(error?.kind == .timedOut)
        #expect(error?.message == "no complete answer from 127.0.0.1 through the proxy 127.0.0.1 port \(raw.silentPort) within 2 s",
                "\(String(describing: error))")
    }

    @Test("a socks proxy that never answers is named, not the server", arguments: ["socks5h", "socks4"])
    func silentSocksProxy(scheme: String) async throws {
        let error = await failure("https://127.0.0.1:\(raw.rawPort)/x",
                                  transport: Self.transport(proxy: "\(scheme)://127.0.0.1:\(raw.silentPort)"))
        #expect(error?.kind == .timedOut)
        #expect(error?.message == "the socks proxy 127.0.0.1 port \(raw.silentPort) did not answer within 1 s (on the way to 127.0.0.1)",
                "\(String(describing: error))")
    }

    @Test("a proxy scheme libcurl does not know: said so, not 'no connection'")
    func unsupportedProxyScheme() async throws {
        let error = await failure("https://127.0.0.1:\(raw.rawPort)/x",
                                  transport: Self.transport(proxy: "gopher://127.0.0.1:\(raw.silentPort)"))
        #expect(error?.kind == .network)
        #expect(error?.message == "the proxy's scheme gopher: is not supported; use http, https, socks4 or socks5",
                "\(String(describing: error))")
    }

    @Test("what is left of the fetch's budget bounds a request, the connect limit included")
    func budgetBoundsTheConnect() async throws {
        let error = await failure("https://127.0.0.1:\(raw.silentPort)/x",
                                  transport: CurlTransport(configuration: HTTPTransportConfiguration(
                                      connectTimeout: .seconds(10), totalTimeout: .seconds(30), proxy: "")),
                                  budget: TimeBudget(remaining: .milliseconds(700), total: .seconds(3)))
        #expect(error?.kind == .timedOut)
        #expect(error?.message == "the TLS handshake with 127.0.0.1 did not finish before the 3 s for the whole fetch ran out",
                "\(String(describing: error))")
    }
}

/// An https proxy (TLS to the proxy itself) with the certificate variables.
@Suite("CurlTransport through an https proxy", .serialized)
struct CurlHTTPSProxyTests {
    @Test("SSL_CERT_FILE's bundle is trusted for an https proxy's certificate too")
    func trustedProxy() async throws {
        let server = try await TestHTTPServer.start(sharing: "CurlHTTPSProxyTests")
        defer { server.stop() }
        let proxy = try await TestProxyServer.start(tls: server.signedCertificate)
        defer { proxy.stop() }
        try server.write("hello.txt", "through an https proxy\n")
        for variable in ["SSL_CERT_FILE", "CURL_CA_BUNDLE"] {
            var configuration = HTTPTransportConfiguration.fromEnvironment([variable: server.caCertificatePath])
            configuration.proxy = proxy.url
            configuration.noProxy = ""
            let response = try await CurlTransport(configuration: configuration).get(
                HTTPRequest(url: server.url("/hello.txt", on: .https)), maximumBodySize: 1024)
            #expect(String(decoding: response.body, as: UTF8.self) == "through an https proxy\n", "\(variable)")
        }
        #expect(try proxy.requests() == Array(repeating: "CONNECT 127.0.0.1:\(server.httpsPort)", count: 2))
    }

    @Test("an https proxy whose certificate is not trusted: the proxy is named, not the server")
    func untrustedProxy() async throws {
        let server = try await TestHTTPServer.start(sharing: "CurlHTTPSProxyTests")
        defer { server.stop() }
        let proxy = try await TestProxyServer.start(tls: server.selfSignedCertificate)
        defer { proxy.stop() }
        let transport = CurlTransport(configuration: HTTPTransportConfiguration(
            trustRoots: .pemFile(server.caCertificatePath), proxy: proxy.url, noProxy: ""))
        let error = await CurlTransportTests.fetchError { () async throws(FetchError) in
            try await transport.get(HTTPRequest(url: server.url("/hello.txt", on: .https)), maximumBodySize: 1024)
        }
        #expect(error?.kind == .certificate)
        #expect(error?.message == "the certificate of the https proxy 127.0.0.1 port \(proxy.port) is self-signed, and not trusted",
                "\(String(describing: error))")
        #expect(try proxy.requests().isEmpty)
    }
}
