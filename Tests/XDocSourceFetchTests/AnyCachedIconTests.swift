import Foundation
import Testing
import XDSTestSupport
@testable import XDocSourceFetch

/// `AppInfoFetcher.anyCachedIconImage` (SPEC §6b, `xds icon --any-cached`): which cached
/// entry is drawn for N px, whatever the entries' age, and that no request is ever made.
@Suite("any cached size of an icon")
struct AnyCachedIconTests {
    typealias Transport = FetcherCacheRuleTests.ScriptedTransport
    let transport = Transport()
    let folder = TemporaryFolder()
    static let listURL = "https://apps.test/appInfo.json"
    static let list = Array(#"""
        {"icons": [{"width": 16, "height": 16, "src": "i16.png"}, {"width": 32, "height": 32, "src": "i32.png"},
                   {"width": 64, "height": 64, "src": "i64.png"}, {"width": 128, "height": 128, "src": "i128.png"}]}
        """#.utf8)

    var cache: CacheSettings { CacheSettings(directory: folder.path + "/xds") }

    /// Caches the list and the icons of `sides` (each body is its side as text), as a normal
    /// fetch at those sizes would, with answers that are stale at once.
    func fill(_ sides: [Int]) async throws {
        let stale = [HTTPHeader(name: "Cache-Control", value: "max-age=0")]
        transport[Self.listURL] = HTTPResponse(status: 200, headers: stale, body: Self.list)
        for side in [16, 32, 64, 128] {
            transport["https://apps.test/i\(side).png"] = HTTPResponse(status: 200, headers: stale, body: Array("\(side)".utf8))
        }
        let filler = AppInfoFetcher(transport: transport, cache: cache)
        for side in sides { _ = try await filler.iconImage(pixelSize: side, from: .attribute(Self.listURL)) }
    }

    func drawn(_ n: Int) async throws -> String {
        let fetcher = AppInfoFetcher(transport: nil, cache: cache)
        let icon = try await fetcher.anyCachedIconImage(pixelSize: n, from: .attribute(Self.listURL))
        return String(decoding: icon.bytes, as: UTF8.self)
    }

    @Test("Exact, else the smallest larger cached, else the largest smaller cached")
    func choice() async throws {
        try await fill([16, 128])
        let before = transport.requests.count
        #expect(try await drawn(16) == "16")
        #expect(try await drawn(20) == "128", "32 and 64 are listed but not cached: scaled down from 128")
        #expect(try await drawn(200) == "128")
        try await fill([32])
        #expect(try await drawn(20) == "32")
        #expect(try await drawn(8) == "16")
        #expect(transport.requests.count == before + 2, "only fill's own requests (the list again, and 32)")
    }

    @Test("Only smaller ones cached: the largest of them (scaled up)")
    func scaledUp() async throws {
        try await fill([16, 32])
        #expect(try await drawn(100) == "32")
    }

    @Test("Nothing cached, or the list alone: notCached, no request; no cache at all: notCached")
    func nothing() async throws {
        let fetcher = AppInfoFetcher(transport: transport, cache: cache)
        await #expect(throws: FetchError.self) { _ = try await fetcher.anyCachedIconImage(pixelSize: 16, from: .attribute(Self.listURL)) }
        #expect(transport.requests.isEmpty)
        let none = AppInfoFetcher(transport: transport, cache: nil)
        do {
            _ = try await none.anyCachedIconImage(pixelSize: 16, from: .attribute(Self.listURL))
            Issue.record("no cache, yet an icon")
        } catch {
            #expect(error.kind == .notCached)
        }
        #expect(transport.requests.isEmpty)
    }
}
