import Foundation
import Testing
import XDSTestSupport
@testable import XDocSourceFetch
import XDSSystem

/// The cache's pieces on their own: SHA-256 names, HTTP dates, RFC 9111 freshness with a fixed
/// clock, the entry format and the store's atomic writes.
@Suite("HTTP cache")
struct HTTPCacheTests {
    // MARK: SHA-256

    @Test func sha256KnownVectors() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Every length around the 64-byte block and 56-byte padding boundaries, against sha256sum.
    @Test func sha256MatchesSha256sumAtBlockBoundaries() async throws {
        var generator = SystemRandomNumberGenerator()
        for length in [1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let run = try await ProcessRunner.runOnPath(["sha256sum"], input: Data(bytes))
            #expect(run.status == 0)
            #expect(String(run.stdout.prefix(64)) == SHA256.hex(bytes), "length \(length)")
        }
    }

    // MARK: HTTP dates

    @Test func httpDatesInAllThreeForms() {
        let expected: Int64 = 784_111_777  // Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", reference: Self.t0) == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", reference: Self.t0) == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994", reference: Self.t0) == expected)
        #expect(HTTPDate.format(expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("0", reference: Self.t0) == nil)
        #expect(HTTPDate.parse("yesterday", reference: Self.t0) == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 25:49:37 GMT", reference: Self.t0) == nil)
        // Agrees with the C library over many dates.
        for seconds in stride(from: Int64(-86400 * 800), to: 4_102_444_800, by: 7_654_321) {
            #expect(HTTPDate.parse(HTTPDate.format(seconds), reference: Self.t0) == seconds)
            var t = time_t(seconds), parts = tm()
            gmtime_r(&t, &parts)
            #expect(CivilCalendar.daysFromCivil(year: Int64(parts.tm_year) + 1900, month: Int64(parts.tm_mon) + 1, day: Int64(parts.tm_mday))
                    == seconds / 86400 - (seconds < 0 && seconds % 86400 != 0 ? 1 : 0))
        }
    }

    // MARK: Freshness (RFC 9111 §4.2) with a fixed clock

    static let t0: Int64 = 1_700_000_000

    func entry(_ headers: [(String, String)], at time: Int64 = t0) -> HTTPCacheEntry {
        HTTPCacheEntry(requestURL: "https://example.test/a", status: 200,
                       headers: headers.map { HTTPHeader(name: $0.0, value: $0.1) },
                       requestTime: time, responseTime: time, body: [1, 2, 3])
    }

    @Test func maxAgeWinsOverExpires() {
        let e = entry([("Date", HTTPDate.format(Self.t0)), ("Expires", HTTPDate.format(Self.t0 + 10_000)),
                       ("Cache-Control", "public, max-age=60")])
        #expect(e.freshnessLifetime == 60)
        #expect(e.isFresh(now: Self.t0 + 59))
        #expect(!e.isFresh(now: Self.t0 + 60))
    }

    @Test func expiresWithoutMaxAge() {
        let e = entry([("Date", HTTPDate.format(Self.t0)), ("Expires", HTTPDate.format(Self.t0 + 300))])
        #expect(e.freshnessLifetime == 300)
        #expect(e.isFresh(now: Self.t0 + 299) && !e.isFresh(now: Self.t0 + 300))
        // An unreadable Expires ("0") means already expired.
        #expect(entry([("Expires", "0")]).freshnessLifetime == 0)
    }

    @Test func heuristicIsTenPercentOfLastModifiedAgeCappedAtOneDay() {
        let recent = entry([("Date", HTTPDate.format(Self.t0)), ("Last-Modified", HTTPDate.format(Self.t0 - 5000))])
        #expect(recent.freshnessLifetime == 500)
        #expect(recent.isFresh(now: Self.t0 + 499) && !recent.isFresh(now: Self.t0 + 500))
        let old = entry([("Last-Modified", HTTPDate.format(Self.t0 - 100 * 86400))])
        #expect(old.freshnessLifetime == 86400)
    }

    @Test func oneDayWhenTheServerSaysNothing() {
        let e = entry([("Content-Type", "image/png")])
        #expect(e.freshnessLifetime == 86400)
        #expect(e.isFresh(now: Self.t0 + 86399) && !e.isFresh(now: Self.t0 + 86400))
        // A clock that went backwards does not make the entry stale.
        #expect(e.isFresh(now: Self.t0 - 1000))
    }

    @Test func noCacheAndMaxAgeZeroAreNeverFresh() {
        #expect(!entry([("Cache-Control", "no-cache")]).isFresh(now: Self.t0))
        #expect(!entry([("Cache-Control", "max-age=0")]).isFresh(now: Self.t0))
        #expect(!entry([("Cache-Control", "max-age=banana")]).isFresh(now: Self.t0))
        #expect(HTTPCacheEntry.mayStore([HTTPHeader(name: "cache-control", value: "private, No-Store")]) == false)
        #expect(HTTPCacheEntry.mayStore([HTTPHeader(name: "Cache-Control", value: "no-cache")]))
    }

    @Test func ageCountsAgeHeaderAndApparentAge() {
        // The server's Date is 100 s behind the arrival: apparent age 100.
        let late = entry([("Date", HTTPDate.format(Self.t0 - 100)), ("Cache-Control", "max-age=150")])
        #expect(late.currentAge(now: Self.t0) == 100)
        #expect(late.isFresh(now: Self.t0 + 49) && !late.isFresh(now: Self.t0 + 50))
        // An Age header from an upstream cache counts too.
        let aged = entry([("Age", "40"), ("Cache-Control", "max-age=60")])
        #expect(aged.currentAge(now: Self.t0 + 5) == 45)
    }

    @Test func notModifiedRefreshesHeadersButNeverContentLength() {
        let e = entry([("ETag", "\"v1\""), ("Content-Length", "3"), ("Cache-Control", "max-age=10"), ("X-Kept", "yes")])
        let response = HTTPResponse(status: 304, headers: [
            HTTPHeader(name: "cache-control", value: "max-age=500"), HTTPHeader(name: "Content-Length", value: "0"),
            HTTPHeader(name: "ETag", value: "\"v1\""),
        ], body: [])
        let refreshed = e.refreshed(by: response, requestTime: Self.t0 + 1000, responseTime: Self.t0 + 1001)
        #expect(refreshed.header("Cache-Control") == "max-age=500")
        #expect(refreshed.header("Content-Length") == "3")
        #expect(refreshed.header("X-Kept") == "yes")
        #expect(refreshed.body == e.body)
        #expect(refreshed.isFresh(now: Self.t0 + 1400))
        #expect(e.conditionalHeaders == [HTTPHeader(name: "If-None-Match", value: "\"v1\"")])
    }

    // MARK: Entry format and store

    @Test func entryRoundTripsAndRejectsEveryTruncation() {
        let e = entry([("ETag", "\"x\""), ("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")])
        let bytes = e.encoded()
        #expect(HTTPCacheEntry.decode(bytes) == e)
        for cut in 0..<bytes.count { #expect(HTTPCacheEntry.decode(Array(bytes[..<cut])) == nil, "cut at \(cut)") }
        #expect(HTTPCacheEntry.decode(bytes + [0]) == nil)
        var flipped = bytes
        flipped[0] ^= 1
        #expect(HTTPCacheEntry.decode(flipped) == nil)
    }

    @Test func storeWritesAtomicallyAndIgnoresCorruptEntries() throws {
        let folder = TemporaryFolder()
        let store = HTTPCacheStore(directory: folder.path + "/new/cache")
        let e = entry([("ETag", "\"x\"")])
        try store.write(e)
        var info = stat()
        #expect(stat(store.directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(store.read(e.requestURL, maximumBodySize: 100) == e)
        #expect(store.read(e.requestURL, maximumBodySize: 2) == nil, "over the limit")
        #expect(store.read("https://example.test/other", maximumBodySize: 100) == nil)

        // A temporary file left by a killed run (here, as earlier versions named them) is
        // ignored, and removed once old.
        let stray = String(store.path(for: e.requestURL).dropLast(".entry".count)) + ".tmp.AbC123"
        try Data(entry([("ETag", "\"y\"")]).encoded()).write(to: URL(fileURLWithPath: stray))
        #expect(store.read(e.requestURL, maximumBodySize: 100) == e)
        store.removeStaleTemporaries(now: Self.t0 * 2)
        #expect(access(stray, F_OK) != 0)

        // Garbage in place of the entry counts as absent.
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: store.path(for: e.requestURL)))
        #expect(store.read(e.requestURL, maximumBodySize: 100) == nil)
    }

    @Test func defaultDirectoryFollowsXDG() {
        #expect(CacheSettings.defaultDirectory(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/var/empty/u"]) == "/x/cache/xds")
        #expect(CacheSettings.defaultDirectory(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/var/empty/u"]) == "/var/empty/u/.cache/xds")
        #expect(CacheSettings.defaultDirectory(environment: ["XDG_CACHE_HOME": "", "HOME": "/var/empty/u/"]) == "/var/empty/u/.cache/xds")
        #expect(CacheSettings.defaultDirectory(environment: [:]) == nil)
    }
}
