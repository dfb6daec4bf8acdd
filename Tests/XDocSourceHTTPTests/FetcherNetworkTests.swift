import Foundation
import Testing
import XDSTestSupport
import XDocSourceFetch
import XDocSourceHTTP

/// ``AppInfoFetcher`` with the real libcurl transport against the loopback test server
/// (HTTP and HTTPS with a test CA): policy, redirects, errors and the disk cache. Every cache
/// lives in a fresh temporary folder; nothing leaves 127.0.0.1.
@Suite("Fetcher against a real server", .serialized)
final class FetcherNetworkTests: @unchecked Sendable {
    let server: TestHTTPServer
    let transport: CurlTransport
    let cacheFolder: URL
    static let png = Array((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    init() async throws {
        server = try await TestHTTPServer.start(sharing: "FetcherNetworkTests")
        // http allowed here: the fetcher's policy is what refuses it in these tests.
        transport = CurlTransport(configuration: HTTPTransportConfiguration(
            connectTimeout: .seconds(5), totalTimeout: .seconds(10), allowHTTP: true,
            trustRoots: .pemFile(server.caCertificatePath), proxy: ""))
        cacheFolder = try ScratchFolder.make(prefix: "xds-fetch-cache")
        try server.write("app/appInfo.json", #"{"icons": [{"width": 29, "height": 29, "src": "img/icon.png"}, "#
                         + #"{"width": 58, "height": 58, "src": "/other/big.png"}]}"#)
        try server.write("app/img/icon.png", Data(Self.png))
        try server.write("other/big.png", Data(Self.png.reversed()))
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: cacheFolder)
    }

    /// A fetcher with a budget of minutes, not 30 s: the budget counts wall time, which here
    /// includes waits for this test process's few cooperative threads, held for minutes by
    /// other suites' blocking waits when the whole suite runs in parallel on a loaded machine.
    /// FetcherBudgetTests is where the budget is tested.
    func fetcher(_ mode: CacheSettings.Mode = .normal, allowHTTP: Bool = false) -> AppInfoFetcher {
        AppInfoFetcher(transport: transport, policy: FetchPolicy(allowHTTP: allowHTTP, timeBudget: .seconds(600)),
                       cache: CacheSettings(directory: cacheFolder.path + "/xds", mode: mode))
    }

    func kind(_ body: () async throws -> Void) async -> FetchError? {
        do { try await body(); return nil } catch let error as FetchError { return error } catch {
            Issue.record("not a FetchError: \(error)")
            return nil
        }
    }

    /// The server's routes file, replaced with rename(2) (TestHTTPServer.setRoutes uses
    /// FileManager.replaceItemAt, which fails on Linux here).
    func setRoutes(_ routes: [String: Any]) throws {
        let temporary = server.routesFile.path + ".new"
        try JSONSerialization.data(withJSONObject: routes).write(to: URL(fileURLWithPath: temporary))
        #expect(rename(temporary, server.routesFile.path) == 0)
    }

    /// The request log once it holds at least `count` lines matching `filter` (the server
    /// writes a line when its response is over, which may be just after the client has it).
    func log(atLeast count: Int, _ filter: (TestHTTPServer.LoggedRequest) -> Bool = { _ in true }) async throws -> [TestHTTPServer.LoggedRequest] {
        var found = try server.requests().filter(filter)
        for _ in 0..<40 where found.count < count {
            try await Task.sleep(for: .milliseconds(50))
            found = try server.requests().filter(filter)
        }
        return found
    }

    func entryFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cacheFolder.path + "/xds")) ?? []).filter { $0.hasSuffix(".entry") }
    }

    @Test func relativeAndAbsoluteSrcOverHTTPS() async throws {
        let url = server.url("/app/appInfo.json", on: .https)
        let small = try await fetcher().iconImage(pixelSize: 20, from: .attribute(url))
        #expect(small.bytes == Self.png)
        #expect(small.url == server.url("/app/img/icon.png", on: .https))
        let large = try await fetcher(.bypass).iconImage(pixelSize: 58, from: .attribute(url))
        #expect(large.bytes == Self.png.reversed())
        #expect(large.url == server.url("/other/big.png", on: .https))
        #expect(large.requests == 2)
    }

    @Test func httpNeedsAllowHTTP() async throws {
        let url = server.url("/app/appInfo.json", on: .http)
        #expect(await kind { _ = try await self.fetcher().appInfo(at: .attribute(url)) }?.kind == .refused)
        #expect(try server.requests().isEmpty, "a refused URL is never requested")
        let list = try await fetcher(allowHTTP: true).appInfo(at: .attribute(url))
        #expect(list.appInfo.icons.count == 2)
    }

    /// `/redirect/N/X` answers N + 1 redirects (N, N−1 … 0, then X).
    @Test func threeRedirectsFollowedSevenRefused() async throws {
        let three = try await fetcher(.bypass).iconImage(pixelSize: 29, from: .attribute(server.url("/redirect/2/app/appInfo.json", on: .https)))
        #expect(three.appInfoURL == server.url("/app/appInfo.json", on: .https))
        #expect(three.bytes == Self.png, "src resolved against the URL after redirects")
        #expect(three.requests == 5)
        let five = try await fetcher(.bypass).appInfo(at: .attribute(server.url("/redirect/4/app/appInfo.json?status=308", on: .https)))
        #expect(five.requests == 6)
        // A query of its own, carried down the chain (`status` keeps it), names this fetch's
        // requests: the server logs a request once its response is over, so a count taken
        // before the fetch could miss a line of the fetches above and count it here.
        let seven = await kind { _ = try await self.fetcher(.bypass).appInfo(at: .attribute(self.server.url("/redirect/6/app/appInfo.json?status=302&fetch=seven", on: .https))) }
        #expect(seven?.kind == .tooManyRedirects)
        #expect(seven?.message == "more than 5 redirects")
        func sevenSeen() throws -> Int { try server.requests().filter { $0.path.contains("fetch=seven") }.count }
        var seen = try sevenSeen()
        for _ in 0..<40 where seen < 6 {
            try await Task.sleep(for: .milliseconds(50))
            seen = try sevenSeen()
        }
        #expect(seen == 6, "gives up after the 6th redirect response")
    }

    @Test func downgradeRefusedEvenWithAllowHTTP() async throws {
        let error = await kind { _ = try await self.fetcher(allowHTTP: true).appInfo(at: .attribute(self.server.url("/downgrade/app/appInfo.json", on: .https))) }
        #expect(error?.kind == .insecureRedirect)
        #expect(error?.message.contains("from https to http") == true, "\(String(describing: error))")
        #expect(try server.requests().allSatisfy { $0.listener != "http" })
    }

    /// `/redirect/5/X` is six redirects: one more than the policy's five.
    @Test func sixRedirectsRefused() async throws {
        let six = await kind { _ = try await self.fetcher(.bypass).appInfo(at: .attribute(self.server.url("/redirect/5/app/appInfo.json", on: .https))) }
        #expect(six?.kind == .tooManyRedirects)
    }

    @Test func redirectToAnotherSchemeFails() async throws {
        for location in ["file:///etc/passwd", "data:,hello", "ftp://127.0.0.1/app/appInfo.json"] {
            let url = server.url("/redirect-to?location=\(location.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)", on: .https)
            let error = await kind { _ = try await self.fetcher(.bypass, allowHTTP: true).appInfo(at: .attribute(url)) }
            #expect(error != nil, "\(location)")
            #expect(error?.url == location || error?.message.contains(location) == true, "\(String(describing: error))")
        }
    }

    /// A server that closes its connection right after a 302 without saying "Connection:
    /// close": the next request must not fail on the dead kept connection.
    @Test func serverClosingAfterRedirectNeverFailsAFetch() async throws {
        var succeeded = 0
        for _ in 0..<20 {
            let list = try await fetcher(.bypass).appInfo(at: .attribute(server.url("/redirect-then-close/app/appInfo.json", on: .https)))
            if list.appInfo.icons.count == 2 { succeeded += 1 }
            let plain = try await fetcher(.bypass, allowHTTP: true).appInfo(at: .attribute(server.url("/redirect-then-close/app/appInfo.json")))
            if plain.appInfo.icons.count == 2 { succeeded += 1 }
        }
        #expect(succeeded == 40)
    }

    @Test func statusAndBadJSON() async throws {
        let missing = await kind { _ = try await self.fetcher().appInfo(at: .attribute(self.server.url("/status/404", on: .https))) }
        #expect(missing?.kind == .httpStatus && missing?.httpStatus == 404)
        #expect(missing?.message == "the server answered HTTP 404 Not Found")
        try server.write("bad/appInfo.json", "{\"icons\": [")
        let bad = await kind { _ = try await self.fetcher().appInfo(at: .attribute(self.server.url("/bad/appInfo.json", on: .https))) }
        #expect(bad?.kind == .malformedAppInfo)
        try server.write("empty/appInfo.json", "[]")
        let none = await kind { _ = try await self.fetcher().iconImage(pixelSize: 29, from: .attribute(self.server.url("/empty/appInfo.json", on: .https))) }
        #expect(none?.kind == .noIcon)
        try server.write("evil/appInfo.json", #"[{"width": 8, "height": 8, "src": "file:///etc/passwd"}]"#)
        let evil = await kind { _ = try await self.fetcher().iconImage(pixelSize: 8, from: .attribute(self.server.url("/evil/appInfo.json", on: .https))) }
        #expect(evil?.kind == .refused)
    }

    /// The server's files carry an ETag and a Last-Modified of just now, so the heuristic gives
    /// no freshness: the second fetch revalidates, and the server answers 304 without a body.
    @Test func revalidationSendsValidatorsAndGets304WithoutBody() async throws {
        let url = server.url("/app/img/icon.png", on: .https)
        try server.write("one/appInfo.json", #"[{"width": 29, "height": 29, "src": "\#(url)"}]"#)
        try setRoutes(["headers": ["/one/appInfo.json": ["Cache-Control": "max-age=600"]]])
        let list = server.url("/one/appInfo.json", on: .https)
        let first = try await fetcher().iconImage(pixelSize: 29, from: .attribute(list))
        #expect(first.requests == 2 && !first.fromCache && first.validator != nil)
        let second = try await fetcher().iconImage(pixelSize: 29, from: .attribute(list))
        #expect(second.bytes == Self.png && second.fromCache)
        #expect(second.requests == 1, "the list is fresh (max-age=600), the icon is revalidated")
        let log = try await log(atLeast: 2) { $0.path == "/app/img/icon.png" }
        #expect(log.count == 2)
        #expect(log[1].headers["if-none-match"] == first.validator)
        #expect(log[1].headers["if-modified-since"] != nil)
        #expect(log[1].status == 304 && log[1].bodyBytesSent == 0)
        #expect(entryFiles().count == 2)
    }

    @Test func secondRunWhileFreshMakesNoRequest() async throws {
        try setRoutes(["headers": ["/app/appInfo.json": ["Cache-Control": "max-age=60"],
                                          "/app/img/icon.png": ["Cache-Control": "max-age=60"]]])
        let url = server.url("/app/appInfo.json", on: .https)
        _ = try await fetcher().iconImage(pixelSize: 29, from: .attribute(url))
        let before = try await log(atLeast: 2).count
        let again = try await fetcher().iconImage(pixelSize: 29, from: .attribute(url))
        #expect(again.requests == 0 && again.fromCache && again.bytes == Self.png)
        #expect(try server.requests().count == before)
    }

    @Test func noStoreIsNeverStoredAndMaxAgeZeroRevalidates() async throws {
        try setRoutes(["headers": ["/app/appInfo.json": ["Cache-Control": "no-store"],
                                          "/app/img/icon.png": ["Cache-Control": "max-age=0"]]])
        let url = server.url("/app/appInfo.json", on: .https)
        _ = try await fetcher().iconImage(pixelSize: 29, from: .attribute(url))
        let again = try await fetcher().iconImage(pixelSize: 29, from: .attribute(url))
        #expect(again.requests == 2)
        #expect(entryFiles().count == 1, "only the icon is stored")
        let log = try await log(atLeast: 4)
        #expect(log.filter { $0.path == "/app/appInfo.json" }.map(\.status) == [200, 200])
        #expect(log.filter { $0.path == "/app/img/icon.png" }.map(\.status) == [200, 304])
        let offline = await kind { _ = try await self.fetcher(.offline).appInfo(at: .attribute(url)) }
        #expect(offline?.kind == .notCached, "a no-store list is not there offline")
    }

    @Test func offlineUsesTheCacheAndFailsWithoutIt() async throws {
        let url = server.url("/app/appInfo.json", on: .https)
        let empty = await kind { _ = try await self.fetcher(.offline).iconImage(pixelSize: 29, from: .attribute(url)) }
        #expect(empty?.kind == .notCached)
        #expect(try server.requests().isEmpty)
        _ = try await fetcher().iconImage(pixelSize: 29, from: .attribute(url))
        let count = try await log(atLeast: 2).count
        server.stop()
        let offline = try await fetcher(.offline).iconImage(pixelSize: 29, from: .attribute(url))
        #expect(offline.bytes == Self.png && offline.requests == 0 && offline.fromCache)
        #expect(count == 2)
    }

    /// Eight fetchers (separate caches' worth of state, one folder) fetch the same icon at once:
    /// every one gets the whole icon and the entry left behind is valid.
    @Test func concurrentFetchesOfOneIconLeaveAValidEntry() async throws {
        let big = (0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 5) }
        try server.write("big/icon.png", Data(big))
        try server.write("big/appInfo.json", #"[{"width": 8, "height": 8, "src": "icon.png"}]"#)
        let url = server.url("/big/appInfo.json", on: .https)
        let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<8 { group.addTask { try await self.fetcher().iconImage(pixelSize: 8, from: .attribute(url)).bytes } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 8 && results.allSatisfy { $0 == big })
        let offline = try await fetcher(.offline).iconImage(pixelSize: 8, from: .attribute(url))
        #expect(offline.bytes == big)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: cacheFolder.path + "/xds").filter { !$0.hasSuffix(".entry") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
