import Foundation
import Testing
import XDSTestSupport

/// `xds icon` against servers that answer wrongly (Tests/Support/raw_reply_server.py) and a
/// proxy variable libcurl cannot use: a failed fetch is 69 with one line naming the host,
/// whether the URL was typed or came from an attribute, and nothing reaches the cache.
@Suite("xds icon against broken servers (built binary, raw loopback sockets)", .serialized, .timeLimit(.minutes(3)))
final class IconBrokenServerCLITests: @unchecked Sendable {
    let raw: TestRawServer
    let work: URL
    let home: URL

    init() async throws {
        raw = try await TestRawServer.start()
        work = try ScratchFolder.make(prefix: "xds-broken-work")
        home = try ScratchFolder.make(prefix: "xds-broken-home")
    }

    deinit {
        raw.stop()
        try? FileManager.default.removeItem(at: work)
        try? FileManager.default.removeItem(at: home)
    }

    var cache: String { home.appendingPathComponent("cache").path }

    func icon(_ arguments: [String], _ extra: [String: String] = [:]) async throws -> Run {
        var environment = ["HOME": home.path, "XDG_CACHE_HOME": cache, "https_proxy": "", "HTTPS_PROXY": "",
                           "http_proxy": "", "all_proxy": "", "ALL_PROXY": "", "no_proxy": "", "NO_PROXY": ""]
        environment.merge(extra) { $1 }
        return try await run(xdsPath, ["icon"] + arguments, in: work.path, environment: environment)
    }

    func cacheEntries() -> [String] {
        let folder = cache + "/xds"
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".entry") }
    }

    @Test("garbage or an HTTP/0.9 reply: 69 and one line naming the host, from --app-info and from an attribute",
          arguments: ["/garbage", "/http09"])
    func notHTTP(path: String) async throws {
        let url = raw.url(path)
        let typed = try await icon(["--app-info", url, "--allow-http", "--size", "58", "-o", "typed.png"])
        let line = "xds: \(url): the reply from 127.0.0.1 is not HTTP: no status line (HTTP/0.9, or another protocol)\n"
        #expect(typed.status == 69, "\(typed)")
        #expect(typed.stderr == line)
        FileManager.default.createFile(atPath: work.appendingPathComponent("doc.txt").path, contents: Data("x".utf8))
        let set = try await xds(["set", "doc.txt", "--id", "com.example.app", "--name", "Example", "--app-info-url", url,
                           "--allow-http"], in: work.path)
        try #require(set.status == 0, "\(set)")
        let fromAttribute = try await icon(["doc.txt", "--allow-http", "--size", "58", "-o", "attribute.png"])
        #expect(fromAttribute.status == 69, "\(fromAttribute)")
        #expect(fromAttribute.stderr == line, "no 'give a local appInfo.json' hint: the server, not the attribute, is at fault")
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("typed.png").path))
    }

    @Test("two different Content-Length values: 69, and the cut reply is not cached (asked again the next time)")
    func twoLengths() async throws {
        let url = raw.url("/two-lengths")
        for _ in 0..<2 {
            let result = try await icon(["--app-info", url, "--allow-http", "--size", "58", "-o", "a.png"])
            #expect(result.status == 69, "\(result)")
            #expect(result.stderr.hasPrefix("xds: \(url): the reply from 127.0.0.1 is not valid HTTP"), "\(result)")
        }
        #expect(cacheEntries().isEmpty, "\(cacheEntries())")
        #expect(try raw.requests().count == 2)
    }

    @Test("HTTPS_PROXY with a scheme libcurl does not support: said so, naming the variable")
    func unsupportedProxyScheme() async throws {
        let result = try await icon(["--app-info", "https://127.0.0.1:\(raw.rawPort)/x", "--size", "58", "-o", "a.png"],
                              ["HTTPS_PROXY": "gopher://127.0.0.1:\(raw.silentPort)"])
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr == "xds: https://127.0.0.1:\(raw.rawPort)/x: the proxy's scheme gopher: (HTTPS_PROXY) is not supported; use http, https, socks4 or socks5\n")
    }

    @Test("icon --help names the proxy variables libcurl reads (http_proxy in lower case only) and both certificate variables")
    func helpText() async throws {
        let help = try await xds(["icon", "--help"])
        #expect(help.status == 0)
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(!text.contains("HTTP_PROXY,") && !text.contains(" HTTP_PROXY "), "libcurl ignores HTTP_PROXY in upper case")
        #expect(text.contains("SSL_CERT_FILE (or CURL_CA_BUNDLE)"), "\(text)")
        #expect(text.contains("https_proxy/HTTPS_PROXY, http_proxy (lower case only), all_proxy/ALL_PROXY, no_proxy/NO_PROXY"), "\(text)")
        #expect(text.contains("30 s in all for the list, its redirects and the icon together"), "\(text)")
    }
}
