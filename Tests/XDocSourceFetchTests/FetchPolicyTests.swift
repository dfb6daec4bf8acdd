import Testing
import XDocSourceFetch

/// The network policy's checks, in the one place both the fetcher and the libcurl transport
/// call them (FetchPolicy): which URLs may be asked for, and which redirects followed.
@Suite("Fetch policy: schemes, hosts and redirects")
struct FetchPolicyTests {
    static func refusal(_ check: () throws(FetchError) -> Void) -> FetchError? {
        do throws(FetchError) {
            try check()
            return nil
        } catch {
            return error
        }
    }

    @Test("https always; http only when allowed; file:, other schemes and paths never", arguments: [
        ("https://a/x.json", false, nil, nil),
        ("HTTPS://a/x.json", false, nil, nil),
        ("http://a/x.json", true, nil, nil),
        ("http://a/x.json", false, FetchError.Kind.refused, "plain http is not allowed; use https"),
        ("HTTP://a/x.json", false, .refused, "plain http is not allowed; use https"),
        ("file:///x.json", true, .refused, "a file: URL is only accepted when given on the command line"),
        ("ftp://a/x.json", true, .refused, "the URL scheme ftp: is not supported; use https"),
        ("FTP://a/x.json", true, .refused, "the URL scheme ftp: is not supported; use https"),
        ("appInfo.json", true, .invalidURL, "not an absolute URL"),
        ("https:///x.json", false, .invalidURL, "the URL has no host"),
        ("https:x.json", false, .invalidURL, "the URL has no host"),
        ("https://?q", false, .invalidURL, "the URL has no host"),
        ("https://user@/x", false, .invalidURL, "the URL has no host"),
    ] as [(String, Bool, FetchError.Kind?, String?)])
    func remote(url: String, allowHTTP: Bool, kind: FetchError.Kind?, message: String?) {
        let error = Self.refusal { () throws(FetchError) in try FetchPolicy(allowHTTP: allowHTTP).checkRemote(url) }
        #expect(error?.kind == kind)
        #expect(error?.message == message)
        #expect(error.map(\.url) ?? url == url)
    }

    @Test("the scheme check alone (what the transport calls) says the same words")
    func schemeAlone() {
        let http = Self.refusal { () throws(FetchError) in try FetchPolicy.checkScheme(of: "http://a/", allowHTTP: false) }
        #expect(http?.kind == .refused && http?.message == "plain http is not allowed; use https")
        #expect(Self.refusal { () throws(FetchError) in try FetchPolicy.checkScheme(of: "http://a/", allowHTTP: true) } == nil)
        #expect(Self.refusal { () throws(FetchError) in try FetchPolicy.checkScheme(of: "https:///", allowHTTP: false) } == nil,
                "hosts are checkRemote's")
    }

    @Test("redirects: never https to http (even when http is allowed), never to a URL the policy refuses")
    func redirects() {
        let allowing = FetchPolicy(allowHTTP: true)
        let down = Self.refusal { () throws(FetchError) in try allowing.checkRedirect(from: "https://a/x", to: "HTTP://b/y") }
        #expect(down?.kind == .insecureRedirect)
        #expect(down?.url == "https://a/x")
        #expect(down?.message == "a redirect from https to http (HTTP://b/y) is refused")
        #expect(Self.refusal { () throws(FetchError) in try allowing.checkRedirect(from: "http://a/x", to: "https://b/y") } == nil)
        #expect(Self.refusal { () throws(FetchError) in try allowing.checkRedirect(from: "http://a/x", to: "http://b/y") } == nil)
        let plain = Self.refusal { () throws(FetchError) in try FetchPolicy().checkRedirect(from: "http://a/x", to: "http://b/y") }
        #expect(plain?.kind == .redirectRefused)
        #expect(plain?.message == "the redirect to http://b/y is refused: plain http is not allowed; use https")
        let file = Self.refusal { () throws(FetchError) in try FetchPolicy().checkRedirect(from: "https://a/x", to: "file:///etc/passwd") }
        #expect(file?.kind == .redirectRefused)
        #expect(file?.message == "the redirect to file:///etc/passwd is refused: a file: URL is only accepted when given on the command line")
        let long = "https://b/" + String(repeating: "x", count: 300)
        let hostless = Self.refusal { () throws(FetchError) in try FetchPolicy().checkRedirect(from: "https://a/x", to: "https:///" + long) }
        #expect(hostless?.message.hasSuffix("… is refused: the URL has no host") == true)
    }
}
