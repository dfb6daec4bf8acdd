import Foundation
import XDSTestSupport
import Testing
@testable import XDocSourceFetch

/// ``AppInfoFetcher``'s cache rules with a scripted in-process transport and a settable
/// clock: redirects stored per hop, `Vary: *`, hostile `Age`, hop-by-hop headers, redirects
/// to refused schemes, and the warning for an entry a folder stands in for. The cache is a
/// temporary folder.
@Suite("Fetcher cache rules (scripted transport)")
struct FetcherCacheRuleTests {
    /// Answers from a table that tests change between runs; logs every request.
    final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var table: [String: HTTPResponse] = [:]
        private var log: [HTTPRequest] = []

        subscript(url: String) -> HTTPResponse? {
            get { lock.withLock { table[url] } }
            set { lock.withLock { table[url] = newValue } }
        }

        var requests: [HTTPRequest] { lock.withLock { log } }

        func get(_ request: HTTPRequest, maximumBodySize: Int) async throws(FetchError) -> HTTPResponse {
            let response = lock.withLock { () -> HTTPResponse? in
                log.append(request)
                return table[request.url]
            }
            guard let response else { return HTTPResponse(status: 404, headers: [], body: []) }
            guard response.status != 304 || !request.headers.isEmpty else {
                return HTTPResponse(status: 200, headers: response.headers, body: Array("unconditional".utf8))
            }
            return response
        }
    }

    /// A clock tests move by hand.
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Int64 = 1_700_000_000
        var now: Int64 {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }

    let transport = ScriptedTransport()
    let clock = Clock()
    let folder = TemporaryFolder()
    var cacheDirectory: String { folder.path + "/xds" }

    func fetcher(_ mode: CacheSettings.Mode = .normal) -> AppInfoFetcher {
        let clock = self.clock
        return AppInfoFetcher(transport: transport, cache: CacheSettings(directory: cacheDirectory, mode: mode),
                              now: { clock.now })
    }

    static let list = Array(#"[{"width": 8, "height": 8, "src": "icon.png"}]"#.utf8)

    static func ok(_ body: [UInt8] = list, _ headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: 200, headers: headers.map { HTTPHeader(name: $0.0, value: $0.1) }, body: body)
    }

    static func redirect(_ status: Int, to location: String, _ headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [HTTPHeader(name: "Location", value: location)]
                     + headers.map { HTTPHeader(name: $0.0, value: $0.1) }, body: [])
    }

    func error(_ body: () async throws -> Void) async -> FetchError? {
        do { try await body(); return nil } catch let error as FetchError { return error } catch {
            Issue.record("not a FetchError: \(error)")
            return nil
        }
    }

    // MARK: Redirects, one entry per hop

    @Test func temporaryRedirectIsAskedAgainAndItsTargetMayStayFresh() async throws {
        transport["https://h.test/a"] = Self.redirect(302, to: "/b")
        transport["https://h.test/b"] = Self.ok(Self.list, [("Cache-Control", "max-age=3600")])
        let first = try await fetcher().appInfo(at: .attribute("https://h.test/a"))
        #expect(first.url == "https://h.test/b" && first.requests == 2 && !first.fromCache)

        clock.now += 10
        let second = try await fetcher().appInfo(at: .attribute("https://h.test/a"))
        #expect(second.requests == 1 && second.fromCache, "/a asked again, /b fresh")
        #expect(transport.requests.map(\.url) == ["https://h.test/a", "https://h.test/b", "https://h.test/a"])

        // The redirect changes: the next run follows the new one.
        let other = Array(#"[{"width": 9, "height": 9, "src": "other.png"}]"#.utf8)
        transport["https://h.test/a"] = Self.redirect(302, to: "/c")
        transport["https://h.test/c"] = Self.ok(other)
        clock.now += 10
        let third = try await fetcher().appInfo(at: .attribute("https://h.test/a"))
        #expect(third.url == "https://h.test/c" && third.appInfo.icons.first?.width == 9)

        // Offline follows the stored hops (the 302 is stored, never fresh).
        let offline = try await fetcher(.offline).appInfo(at: .attribute("https://h.test/a"))
        #expect(offline.url == "https://h.test/c" && offline.requests == 0)
    }

    @Test(arguments: [302, 303, 307])
    func temporaryRedirectWithItsOwnFreshnessIsReused(status: Int) async throws {
        transport["https://h.test/a"] = Self.redirect(status, to: "/b", [("Cache-Control", "max-age=60")])
        transport["https://h.test/b"] = Self.ok(Self.list, [("Cache-Control", "max-age=3600")])
        _ = try await fetcher().appInfo(at: .attribute("https://h.test/a"))
        clock.now += 30
        let again = try await fetcher().appInfo(at: .attribute("https://h.test/a"))
        #expect(again.requests == 0)
        clock.now += 31
        let later = try await fetcher().appInfo(at: .attribute("https://h.test/a"))
        #expect(later.requests == 1, "the redirect's own max-age is over")
    }

    @Test(arguments: [301, 308])
    func permanentRedirectIsCachedByTheNormalRules(status: Int) async throws {
        transport["https://h.test/a"] = Self.redirect(status, to: "https://h.test/b")
        transport["https://h.test/b"] = Self.ok(Self.list, [("Cache-Control", "max-age=3600")])
        _ = try await fetcher().appInfo(at: .attribute("https://h.test/a"))
        clock.now += 600
        let again = try await fetcher().appInfo(at: .attribute("https://h.test/a"))
        #expect(again.requests == 0 && again.url == "https://h.test/b")
    }

    @Test(arguments: ["file:///etc/passwd", "data:application/json,[]", "ftp://h.test/appInfo.json", "https:///x",
                      "gopher://h.test/", "http://h.test/plain"])
    func redirectToARefusedURLIsAFailedFetch(location: String) async throws {
        transport["https://h.test/a"] = Self.redirect(302, to: location)
        let failure = await error { _ = try await self.fetcher().appInfo(at: .attribute("https://h.test/a")) }
        let expected: FetchError.Kind = location.hasPrefix("http:") ? .insecureRedirect : .redirectRefused
        #expect(failure?.kind == expected, "\(String(describing: failure))")
        #expect(failure?.url == "https://h.test/a")
        #expect(transport.requests.count == 1, "the refused target is never asked for")
    }

    // MARK: Vary, Age, hop-by-hop headers

    @Test func varyStarIsNeverReusedWithoutAsking() async throws {
        transport["https://h.test/a"] = Self.ok(Self.list, [("Cache-Control", "max-age=3600"), ("Vary", "*"), ("ETag", "\"1\"")])
        _ = try await fetcher().appInfo(at: .attribute("https://h.test/a"))
        transport["https://h.test/a"] = HTTPResponse(status: 304, headers: [HTTPHeader(name: "ETag", value: "\"1\"")], body: [])
        let again = try await fetcher().appInfo(at: .attribute("https://h.test/a"))
        #expect(again.requests == 1 && again.fromCache)
        #expect(transport.requests.last?.headers.contains(HTTPHeader(name: "If-None-Match", value: "\"1\"")) == true)
        let offline = await error { _ = try await self.fetcher(.offline).appInfo(at: .attribute("https://h.test/a")) }
        #expect(offline?.kind == .notCached)
    }

    @Test(arguments: ["9223372036854775807", "18446744073709551616", "-9223372036854775808", "7200, 0", "nan"])
    func hostileAgeThenALaterRun(age: String) async throws {
        transport["https://h.test/a"] = Self.ok(Self.list, [("Cache-Control", "max-age=3600"), ("Age", age), ("ETag", "\"1\"")])
        _ = try await fetcher().appInfo(at: .attribute("https://h.test/a"))
        for step: Int64 in [1, 86400, 1 << 40] {
            clock.now += step
            let again = try await fetcher().appInfo(at: .attribute("https://h.test/a"))
            #expect(again.appInfo.icons.count == 1)
        }
        let counted = CacheControl.deltaSeconds(age.split(separator: ",").first.map { String($0).httpTrimmed } ?? "")
        if let counted, counted >= 3600 {
            #expect(transport.requests.count == 4, "too old at once: every run asks")
        }
    }

    @Test func storedEntriesHoldNoHopByHopHeaders() async throws {
        transport["https://h.test/a"] = Self.ok(Self.list, [
            ("Connection", "keep-alive, X-Hop"), ("Keep-Alive", "timeout=5"), ("X-Hop", "1"), ("Proxy-Authenticate", "Basic"),
            ("Transfer-Encoding", "chunked"), ("Upgrade", "h2c"), ("Trailer", "X-Sum"), ("TE", "trailers"),
            ("Cache-Control", "max-age=60"), ("X-Kept", "yes"),
        ])
        _ = try await fetcher().appInfo(at: .attribute("https://h.test/a"))
        let stored = try #require(HTTPCacheStore(directory: cacheDirectory).read("https://h.test/a", maximumBodySize: 1 << 20))
        #expect(stored.headers.map(\.name) == ["Cache-Control", "X-Kept"])
    }

    // MARK: Messages

    @Test func anEntryReplacedByAFolderIsNamedInTheWarning() async throws {
        transport["https://h.test/a"] = Self.ok()
        let store = HTTPCacheStore(directory: cacheDirectory)
        try FileManager.default.createDirectory(atPath: store.path(for: "https://h.test/a") + "/inside", withIntermediateDirectories: true)
        let fetcher = fetcher()
        _ = try await fetcher.appInfo(at: .attribute("https://h.test/a"))
        let warnings = await fetcher.warnings
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix(store.path(for: "https://h.test/a") + ": ") == true, "\(warnings)")
    }

    /// The library words its messages without the CLI's flags (SPEC §6: xds is the CLI only).
    @Test func messagesNameNoCommandLineFlags() async throws {
        let offline = await error { _ = try await self.fetcher(.offline).appInfo(at: .attribute("https://h.test/none")) }
        let local = await error { _ = try await self.fetcher().appInfo(at: .attribute("file:///etc/appInfo.json")) }
        for failure in [offline, local] {
            let message = try #require(failure?.message)
            #expect(!message.contains("--") && !message.contains("xds"), "\(message)")
        }
    }
}
