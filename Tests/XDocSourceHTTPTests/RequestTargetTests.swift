import Testing
import XDocSourceFetch
@testable import XDocSourceHTTP

/// The parts of a request's URL and of a proxy setting the transport reads for its messages,
/// from URLReference (the one parser), and the refusals made before libcurl is asked.
@Suite("Request targets and proxy settings, read by URLReference")
struct RequestTargetTests {
    @Test("scheme, host and port of a request: IPv6 without brackets, default ports, user information dropped")
    func target() throws {
        let v6 = try #require(RequestTarget("https://user:pw@[2001:db8::1]:8443/a.json?x#f"))
        #expect(v6.scheme == "https" && v6.host == "2001:db8::1" && v6.port == 8443)
        let upper = try #require(RequestTarget("HTTPS://Files.Example.COM/a.json"))
        #expect(upper.scheme == "https" && upper.host == "Files.Example.COM" && upper.port == 443)
        #expect(RequestTarget("http://[::1]/")?.port == 80)
        #expect(RequestTarget("http://a:/")?.port == 80)
        #expect(RequestTarget("http://127.0.0.1:8080")?.host == "127.0.0.1")
        for refused in ["ftp://a/", "https:///x", "https:x", "appInfo.json", "https://a:99999/", "https://a:x/",
                        "https://[::1/", "https://a b/", "https://u:p@ss@h/"] {
            #expect(RequestTarget(refused) == nil, "\(refused)")
        }
    }

    @Test("proxy settings: scheme given or http, IPv6, credentials dropped, libcurl's default proxy ports")
    func proxies() {
        #expect(CurlProxy.parse("HTTPS://user:secret@[::1]/", variable: nil)
                == CurlProxy(scheme: "https", host: "::1", port: 443, variable: nil))
        #expect(CurlProxy.parse("proxy.example:3128", variable: "https_proxy")
                == CurlProxy(scheme: "http", host: "proxy.example", port: 3128, variable: "https_proxy"))
        #expect(CurlProxy.parse("user:pw@proxy.example", variable: nil)
                == CurlProxy(scheme: "http", host: "proxy.example", port: 1080, variable: nil))
        #expect(CurlProxy.parse("http://p", variable: nil)?.port == 1080, "libcurl's proxy default, not http's 80")
        #expect(CurlProxy.parse("socks5h://[fe80::2]:9050", variable: nil)
                == CurlProxy(scheme: "socks5h", host: "fe80::2", port: 9050, variable: nil))
        #expect(CurlProxy.parse("", variable: nil) == nil)
        #expect(CurlProxy.parse("http://", variable: nil) == nil)
        #expect(CurlProxy.givenScheme("Gopher://127.0.0.1:70") == "gopher")
        #expect(CurlProxy.givenScheme("proxy.example:3128") == nil)
    }

    @Test("refused before libcurl is asked: another scheme, no host, plain http, a URL RFC 3986 refuses")
    func refusals() async {
        func error(_ url: String, allowHTTP: Bool = false) async -> FetchError? {
            let transport = CurlTransport(configuration: HTTPTransportConfiguration(allowHTTP: allowHTTP))
            do throws(FetchError) {
                _ = try await transport.get(HTTPRequest(url: url), maximumBodySize: 10)
                return nil
            } catch {
                return error
            }
        }
        let ftp = await error("ftp://127.0.0.1/x")
        #expect(ftp?.kind == .invalidURL && ftp?.message == "not an absolute http or https URL")
        let hostless = await error("https:///x")
        #expect(hostless?.kind == .invalidURL && hostless?.message == "not an absolute http or https URL")
        let http = await error("HTTP://127.0.0.1:1/x")
        #expect(http?.kind == .refused && http?.message == "plain http is not allowed; use https")
        let spaced = await error("https://127.0.0.1:1/a b")
        #expect(spaced?.kind == .invalidURL && spaced?.message == "not a URL libcurl can fetch")
        let spacedHTTP = await error("http://127.0.0.1:1/a b")
        #expect(spacedHTTP?.kind == .refused, "the scheme rule first, as before")
        let badPort = await error("http://127.0.0.1:99999/", allowHTTP: true)
        #expect(badPort?.kind == .invalidURL && badPort?.message == "not a URL libcurl can fetch")
    }
}
