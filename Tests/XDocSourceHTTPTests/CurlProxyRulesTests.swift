import Testing
import XDocSourceFetch
@testable import XDocSourceHTTP

/// The rules the transport's messages rely on: which proxy libcurl takes for a URL (to name it
/// when it fails), the Content-Length check, and how a fetch's budget cuts a request's limits.
@Suite("Proxy choice, Content-Length check and time limits")
struct CurlProxyRulesTests {
    static let https = RequestTarget("https://files.example.com:8443/a.json")!
    static let http = RequestTarget("http://files.example.com/a.json")!

    static func proxy(_ target: RequestTarget, _ environment: [String: String],
                      configuration: HTTPTransportConfiguration = HTTPTransportConfiguration()) -> CurlProxy? {
        CurlProxy.forTarget(target, configuration: configuration, environment: environment)
    }

    @Test("the variables in libcurl's order: scheme_proxy, its upper case (not for http), all_proxy, ALL_PROXY; \"\" is unset")
    func variables() {
        #expect(Self.proxy(Self.https, ["https_proxy": "http://a:1", "HTTPS_PROXY": "http://b:2"])?.host == "a")
        #expect(Self.proxy(Self.https, ["https_proxy": "", "HTTPS_PROXY": "http://b:2"])?.variable == "HTTPS_PROXY")
        #expect(Self.proxy(Self.http, ["HTTP_PROXY": "http://b:2"]) == nil, "libcurl ignores HTTP_PROXY")
        #expect(Self.proxy(Self.http, ["HTTP_PROXY": "http://b:2", "ALL_PROXY": "socks5h://c"])
                == CurlProxy(scheme: "socks5h", host: "c", port: 1080, variable: "ALL_PROXY"))
        #expect(Self.proxy(Self.https, ["all_proxy": "https://user:secret@[::1]:3129/"])
                == CurlProxy(scheme: "https", host: "::1", port: 3129, variable: "all_proxy"))
        #expect(Self.proxy(Self.https, ["https_proxy": "proxy.example"])
                == CurlProxy(scheme: "http", host: "proxy.example", port: 1080, variable: "https_proxy"))
        #expect(Self.proxy(Self.https, [:]) == nil)
        #expect(Self.proxy(Self.https, ["https_proxy": "http://a:1"], configuration: HTTPTransportConfiguration(proxy: "")) == nil)
    }

    @Test("no_proxy: *, a host, a domain and its subdomains, dots ignored; addresses as written", arguments: [
        ("*", true), ("files.example.com", true), ("example.com", true), (".example.com", true),
        ("other.org, example.com.", true), ("xample.com", false), ("other.org", false), ("", false),
    ])
    func noProxy(list: String, bypassed: Bool) {
        let found = Self.proxy(Self.https, ["https_proxy": "http://a:1", "no_proxy": list])
        #expect((found == nil) == bypassed)
        #expect(CurlProxy.matchesNoProxy("127.0.0.1", "localhost,127.0.0.1"))
        #expect(!CurlProxy.matchesNoProxy("127.0.0.1", "127.0.0.10"))
    }

    @Test("Content-Length: the same number repeated is one; two different values or a non-number are not")
    func contentLength() {
        let five = [HTTPHeader(name: "Content-Length", value: "5")]
        #expect(Exchange.lengthProblem("5", after: []) == nil)
        #expect(Exchange.lengthProblem("5, 5", after: five) == nil)
        #expect(Exchange.lengthProblem("13", after: five) == "two different Content-Length values (5 and 13)")
        #expect(Exchange.lengthProblem("5, 13", after: []) == "two different Content-Length values (5 and 13)")
        #expect(Exchange.lengthProblem("-1", after: []) == "a Content-Length that is not a number (-1)")
        #expect(Exchange.lengthProblem("", after: []) != nil)
    }

    @Test("what is left of the budget cuts the total and the connect time-out; otherwise the transport's own")
    func limits() {
        let configuration = HTTPTransportConfiguration()  // 10 s, 30 s
        let fresh = TimeLimits(configuration: configuration, budget: TimeBudget(remaining: .seconds(30), total: .seconds(30)))
        #expect(fresh.total == .seconds(30) && fresh.connect == .seconds(10) && fresh.budgetTotal == nil && !fresh.budgetBoundsConnect)
        let half = TimeLimits(configuration: configuration, budget: TimeBudget(remaining: .seconds(12), total: .seconds(30)))
        #expect(half.total == .seconds(12) && half.connect == .seconds(10) && half.budgetTotal == .seconds(30) && !half.budgetBoundsConnect)
        let end = TimeLimits(configuration: configuration, budget: TimeBudget(remaining: .seconds(4), total: .seconds(30)))
        #expect(end.total == .seconds(4) && end.connect == .seconds(4) && end.budgetBoundsConnect)
        let none = TimeLimits(configuration: configuration, budget: nil)
        #expect(none.total == .seconds(30) && none.connect == .seconds(10))
    }
}
