import Testing
import XDocSourceHTTP

/// NO_PROXY matching, proxy parsing and the environment, with curl's rules.
@Suite("ProxySettings")
struct ProxySettingsTests {
    @Test("NO_PROXY: an entry matches the host itself and names under it, not look-alikes",
          arguments: [
              ("example.com", "example.com", true),
              ("example.com", "a.example.com", true),
              ("example.com", "a.b.example.com", true),
              (".example.com", "example.com", true),
              (".example.com", "a.example.com", true),
              ("example.com", "badexample.com", false),
              ("example.com", "example.com.evil.org", false),
              ("a.example.com", "example.com", false),
              ("EXAMPLE.com", "Example.COM", true),
              ("example.com.", "example.com", true),
              ("example.com", "example.com.", true),
              ("example.com:8080", "example.com", true),
              ("127.0.0.1", "127.0.0.1", true),
              ("127.0.0.1", "127.0.0.10", false),
              ("0.0.1", "127.0.0.1", false),  // addresses are not matched by suffix
              ("127.0.0.0/8", "127.0.0.1", true),
              ("10.0.0.0/8", "127.0.0.1", false),
              ("127.0.0.1/32", "127.0.0.1", true),
              ("::1", "::1", true),
              ("[::1]", "::1", true),
              ("[::1]:8080", "[::1]", true),
              ("*", "anything.org", true),
              ("*.example.com", "a.example.com", false),  // no wildcards other than a lone *
          ] as [(String, String, Bool)])
    func noProxyMatch(entry: String, host: String, bypasses: Bool) {
        #expect(ProxySettings(noProxy: entry).bypasses(host: host) == bypasses)
    }

    @Test("NO_PROXY: a comma list with spaces and empty items; any entry matching is enough")
    func noProxyList() {
        let settings = ProxySettings(httpsProxy: "proxy:3128", noProxy: " localhost , ,.internal.net,10.0.0.1 ")
        #expect(settings.bypasses(host: "localhost"))
        #expect(settings.bypasses(host: "svc.internal.net"))
        #expect(settings.bypasses(host: "10.0.0.1"))
        #expect(!settings.bypasses(host: "example.org"))
        #expect(!ProxySettings(noProxy: "").bypasses(host: "example.org"))
        #expect(!ProxySettings(noProxy: "*.").bypasses(host: "example.org"))
    }

    @Test("the proxy for a URL: per scheme, unless the host bypasses it")
    func proxyChoice() {
        let settings = ProxySettings(httpsProxy: "http://secure:3128", httpProxy: "plain:8080", noProxy: "local.test")
        #expect(settings.proxy(scheme: "https", host: "example.org") == "http://secure:3128")
        #expect(settings.proxy(scheme: "HTTP", host: "example.org") == "plain:8080")
        #expect(settings.proxy(scheme: "https", host: "a.local.test") == nil)
        #expect(ProxySettings(httpProxy: "plain:8080").proxy(scheme: "https", host: "example.org") == nil)
    }

    @Test("a proxy is parsed as curl takes it", arguments: [
        ("proxy.example:3128", "proxy.example", 3128, nil, nil),
        ("http://proxy.example:3128/", "proxy.example", 3128, nil, nil),
        ("HTTP://proxy.example", "proxy.example", 80, nil, nil),
        ("http://user:p%40ss@proxy.example:8080", "proxy.example", 8080, "user", "p@ss"),
        ("http://[::1]:3128", "::1", 3128, nil, nil),
        (" 127.0.0.1:1 ", "127.0.0.1", 1, nil, nil),
    ] as [(String, String, Int, String?, String?)])
    func proxyParsing(text: String, host: String, port: Int, user: String?, password: String?) throws {
        let server = try #require(ProxySettings.Server(parsing: text))
        #expect(server == ProxySettings.Server(host: host, port: port, user: user, password: password))
    }

    @Test("what is not an HTTP proxy is rejected", arguments: [
        "socks5://proxy:1080", "https://proxy:443", "http://", "proxy:", "proxy:0", "proxy:99999", "[::1", "proxy:abc",
    ])
    func proxyRejected(text: String) {
        #expect(ProxySettings.Server(parsing: text) == nil)
    }

    @Test("the environment: SSL_CERT_FILE, the proxies (lower case first), empty values unset")
    func environment() {
        let configuration = HTTPTransportConfiguration.fromEnvironment([
            "SSL_CERT_FILE": "/tmp/ca.pem",
            "https_proxy": "lower:1", "HTTPS_PROXY": "upper:2",
            "HTTP_PROXY": "plain:3",
            "no_proxy": "", "NO_PROXY": "localhost",
        ])
        #expect(configuration.trustRoots == .pemFile("/tmp/ca.pem"))
        #expect(configuration.proxy == ProxySettings(httpsProxy: "lower:1", httpProxy: "plain:3", noProxy: "localhost"))
        #expect(configuration.connectTimeout == .seconds(10))
        #expect(configuration.totalTimeout == .seconds(30))

        let bare = HTTPTransportConfiguration.fromEnvironment(["SSL_CERT_FILE": "", "PATH": "/bin"])
        #expect(bare == HTTPTransportConfiguration())
        #expect(bare.trustRoots == .system)
    }
}
