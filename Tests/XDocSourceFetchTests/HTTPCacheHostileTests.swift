import Foundation
import XDSTestSupport
import Testing
@testable import XDocSource
@testable import XDocSourceFetch
import XDSSystem

/// The cache against hostile figures (issue 14): HTTP dates to the grammar, `Age` lists and
/// values past every integer limit, entries whose times are impossible, thousands of bit
/// flips in a stored entry, `Vary: *`, hop-by-hop headers, redirects stored per hop. Nothing
/// here may trap: a crash in xds must never depend on what a server or a cache file says.
@Suite("HTTP cache: hostile figures")
struct HTTPCacheHostileTests {
    static let t0: Int64 = 1_700_000_000  // Tue, 14 Nov 2023 22:13:20 GMT

    func entry(_ headers: [(String, String)], status: Int = 200, requestTime: Int64 = t0, responseTime: Int64 = t0) -> HTTPCacheEntry {
        HTTPCacheEntry(requestURL: "https://example.test/a", status: status,
                       headers: headers.map { HTTPHeader(name: $0.0, value: $0.1) },
                       requestTime: requestTime, responseTime: responseTime, body: status == 200 ? [1, 2, 3] : [])
    }

    // MARK: HTTP dates (RFC 9110 §5.6.7)

    static let example: Int64 = 784_111_777  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "  Sun, 06 Nov 1994 08:49:37 GMT\t",  // a field value's optional white space
    ])
    func validForms(_ text: String) {
        #expect(HTTPDate.parse(text, reference: Self.t0) == Self.example)
    }

    @Test func asctimeWithTwoDigitDay() {
        #expect(HTTPDate.parse("Wed Nov 16 08:49:37 1994", reference: Self.t0) == Self.example + 10 * 86400)
    }

    /// A reference time at Int64's ends (found by make fuzz-httpcache: the year arithmetic of a
    /// two-digit rfc850 year overflowed and trapped). The reference's year is held to 1…9999.
    @Test func rfc850AgainstExtremeReferences() {
        for reference in [Int64.min, Int64.min + 1, -1, Int64.max - 1, Int64.max] {
            for text in ["Sunday, 12-Nov-19 08:49:37 GMT", "Tuesday, 12-Nov-19 08:49:37 GMT", "Friday, 31-Dec-99 23:59:59 GMT"] {
                if let seconds = HTTPDate.parse(text, reference: reference) {
                    // Years 0000…9999 only: from -62 167 219 200 s (0000-01-01) to the latest time.
                    #expect((-62_167_219_200...HTTPCacheEntry.latestTime).contains(seconds), "\(text) at \(reference): \(seconds)")
                }
            }
        }
        // Against a reference in year 9999, "19" is 10019 (RFC 9110: not more than 50 years
        // ahead), which no HTTP date can be: not a date, rather than a trap.
        #expect(HTTPDate.parse("Wednesday, 12-Nov-19 08:49:37 GMT", reference: HTTPCacheEntry.latestTime) == nil)
    }

    /// A two-digit year more than 50 years ahead of the reference is the past century's.
    @Test func rfc850YearsAroundTheReference() {
        let in2023 = Self.t0
        #expect(HTTPDate.parse("Thursday, 18-Aug-50 08:00:00 GMT", reference: in2023) == HTTPDate.parse("Thu, 18 Aug 2050 08:00:00 GMT", reference: 0))
        #expect(HTTPDate.parse("Friday, 18-Aug-73 08:00:00 GMT", reference: in2023) == HTTPDate.parse("Fri, 18 Aug 2073 08:00:00 GMT", reference: 0))
        // 2074 is 51 years ahead of 2023: read as 1974 (a Sunday on 18 Aug).
        #expect(HTTPDate.parse("Sunday, 18-Aug-74 08:00:00 GMT", reference: in2023) == HTTPDate.parse("Sun, 18 Aug 1974 08:00:00 GMT", reference: 0))
        // In 2099, "01" is 2101, not 2001.
        let in2099 = HTTPDate.parse("Thu, 01 Jan 2099 00:00:00 GMT", reference: 0)!
        #expect(HTTPDate.parse("Saturday, 01-Jan-01 00:00:00 GMT", reference: in2099) == HTTPDate.parse("Sat, 01 Jan 2101 00:00:00 GMT", reference: 0))
    }

    @Test(arguments: [
        "Mon 18 Aug 2050 08:00:00 GMT",  // no comma
        "Thu, 18-Aug-2050 08:00:00 GMT",  // rfc850's dashes in an IMF-fixdate
        "Thursday, 18-Aug-2050 08:00:00 GMT",  // rfc850 with a four-digit year
        "Thu, 18 Aug 2050 8:00:00 GMT",  // one-digit hour
        "Thu, 18 Aug 2050 08:0:00 GMT",
        "Thu, 8 Aug 2050 08:00:00 GMT",  // one-digit day in IMF-fixdate
        "Thu, 18 Aug 2050 08:00:00 AEST",  // another zone
        "Thu, 18 Aug 2050 08:00:00 UTC",
        "Thu, 18 Aug 2050 08:00:00 gmt",
        "Thu, 18 Aug 2050 08:00:00 +0000",
        "Thu, 18 Aug 2050 08:00:00",  // no zone
        "Thu, 18 aug 2050 08:00:00 GMT",  // names are case-sensitive
        "thu, 18 Aug 2050 08:00:00 GMT",
        "Thu,  18 Aug 2050 08:00:00 GMT",  // two spaces
        "Thu, 18 Aug 2050 08:00:00 GMT x",  // trailing text
        "Thu, 18 Aug 50 08:00:00 GMT",  // two-digit year
        "Thu, 18 Aug 02050 08:00:00 GMT",
        "Thu, 18 Aug 2050 24:00:00 GMT",  // hour 24
        "Thu, 18 Aug 2050 08:60:00 GMT",
        "Thu, 18 Aug 2050 08:00:61 GMT",
        "Thu, 30 Feb 2050 08:00:00 GMT",  // no such day
        "Tue, 29 Feb 2050 08:00:00 GMT",  // 2050 is not a leap year
        "Mon, 00 Aug 2050 08:00:00 GMT",
        "Mon, 18 Aug 2050 08:00:00 GMT",  // 18 Aug 2050 is a Thursday
        "Thursday, 18 Aug 2050 08:00:00 GMT",  // a long name with an IMF date
        "Thu Aug 18 08:00:00 2050 GMT",  // asctime takes no zone
        "Thu Aug 18 08:00:00 50",
        "Thu Aug 8 08:00:00 2050",  // asctime's one-digit day needs two spaces
        "Sun, 06 Nov 1994 08:49:37 GMT\r\nX: y",
        "",
        "0",
        "-1",
        "Thu, 18 Aug ２０５０ 08:00:00 GMT",  // non-ASCII digits
    ])
    func invalidForms(_ text: String) {
        #expect(HTTPDate.parse(text, reference: Self.t0) == nil, "\(text)")
        // As Expires, an invalid date means already stale (RFC 9111 §5.3).
        let e = entry([("Date", HTTPDate.format(Self.t0)), ("Expires", text)])
        #expect(e.freshnessLifetime == 0)
        #expect(!e.isFresh(now: Self.t0))
    }

    @Test func yearsAtTheLimits() {
        let last = HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT", reference: Self.t0)
        #expect(last == HTTPCacheEntry.latestTime)
        #expect(HTTPDate.format(HTTPCacheEntry.latestTime) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:60 GMT", reference: Self.t0) == HTTPCacheEntry.latestTime + 1)
        let first = HTTPDate.parse(HTTPDate.format(-62_167_219_200), reference: Self.t0)  // 0000-01-01
        #expect(first == -62_167_219_200)
        #expect(HTTPDate.format(-62_167_219_200) == "Sat, 01 Jan 0000 00:00:00 GMT")
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT", reference: Self.t0) == 0)
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT", reference: Self.t0) == 951_782_400)
        // Formatting any Int64 does not trap (the years just stop being four digits).
        for seconds in [Int64.min, Int64.min + 1, -1, Int64.max - 1, Int64.max] { _ = HTTPDate.format(seconds) }
        // Expires at the end of 9999 against a Date at the start of 0000: a finite lifetime.
        let e = entry([("Date", "Sat, 01 Jan 0000 00:00:00 GMT"), ("Expires", "Fri, 31 Dec 9999 23:59:59 GMT")])
        #expect(e.freshnessLifetime == HTTPCacheEntry.latestTime + 62_167_219_200)
        #expect(e.isFresh(now: Self.t0), "what the server said, however odd")
    }

    // MARK: Age and other delta-seconds

    @Test func ageIsReadFromTheFirstMemberOfAList() {
        #expect(entry([("Age", "7200, 0")]).ageValue == 7200)
        #expect(entry([("Age", "7200,0")]).ageValue == 7200)
        #expect(entry([("Age", "7200"), ("Age", "0")]).ageValue == 7200)
        let e = entry([("Age", "7200, 0"), ("Cache-Control", "max-age=3600")])
        #expect(!e.isFresh(now: Self.t0), "7200 s old is past 3600 s")
    }

    @Test(arguments: ["abc", "-5", "+5", "5s", "", " ", "1e3", "0x10", "٣"])
    func nonNumericAgeIsIgnored(_ value: String) {
        let e = entry([("Age", value), ("Cache-Control", "max-age=60")])
        #expect(e.ageValue == nil)
        #expect(e.currentAge(now: Self.t0 + 5) == 5)
    }

    @Test(arguments: ["9223372036854775807", "9223372036854775808", "18446744073709551616",
                      String(repeating: "9", count: 400), "2147483648", "2147483649"])
    func hugeAgeSaturates(_ value: String) {
        let e = entry([("Age", value), ("Cache-Control", "max-age=\(value)")])
        #expect(e.ageValue == CacheControl.maximumDeltaSeconds)
        #expect(e.freshnessLifetime == CacheControl.maximumDeltaSeconds)
        for now in [Self.t0, Self.t0 + 1, Self.t0 + 86400 * 365 * 100, Int64.max, Int64.min, 0] {
            #expect(e.currentAge(now: now) >= CacheControl.maximumDeltaSeconds)
            #expect(!e.isFresh(now: now))
        }
    }

    /// The figures an entry holds at and past every limit, in every combination: no trap.
    @Test func extremeFiguresNeverTrap() {
        let times: [Int64] = [.min, .min + 1, -1, 0, 1, Self.t0, HTTPCacheEntry.latestTime, .max - 1, .max]
        let ages = [nil, "0", "9223372036854775807", "99999999999999999999", "7200, 0"]
        let dates = [nil, "Sat, 01 Jan 0000 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "garbage"]
        for requestTime in times {
            for responseTime in times {
                for age in ages {
                    for date in dates {
                        var headers: [(String, String)] = []
                        if let age { headers.append(("Age", age)) }
                        if let date { headers += [("Date", date), ("Last-Modified", date), ("Expires", date)] }
                        for status in [200, 302] {
                            let e = entry(headers, status: status, requestTime: requestTime, responseTime: responseTime)
                            for now in [Int64.min, 0, Self.t0, Int64.max] {
                                _ = e.isFresh(now: now)
                                #expect(e.currentAge(now: now) >= 0)
                            }
                            #expect(e.freshnessLifetime >= 0)
                            // Written and read back: impossible times count as absent.
                            let possible = (0...HTTPCacheEntry.latestTime).contains(requestTime) && requestTime <= responseTime
                                && responseTime <= HTTPCacheEntry.latestTime
                            #expect((HTTPCacheEntry.decode(e.encoded()) != nil) == (possible && status == 200),
                                    "\(requestTime) \(responseTime) \(status)")
                        }
                    }
                }
            }
        }
    }

    @Test func saturatingArithmetic() {
        #expect(Int64.max.addingSaturated(1) == .max)
        #expect(Int64.min.addingSaturated(-1) == .min)
        #expect(Int64.min.subtractingSaturated(1) == .min)
        #expect(Int64.max.subtractingSaturated(-1) == .max)
        #expect(Int64(0).subtractingSaturated(.min) == .max)
        #expect(Int64(5).addingSaturated(-7) == -2)
        #expect(CivilCalendar.floorDivide(.min, 86400) == -106_751_991_167_301)
        #expect(CivilCalendar.floorDivide(-1, 86400) == -1 && CivilCalendar.floorDivide(-86400, 86400) == -1)
        #expect(CivilCalendar.floorModulo(.min, 7) >= 0)
        // The calendar's other user refuses years its arithmetic cannot hold instead of trapping.
        for year in [Int.min, -1_000_000_001, 1_000_000_001, Int.max] {
            #expect(PropertyListDate.secondsSince2001(year: year, month: 1, day: 1, hour: 0, minute: 0, second: 0) == nil)
        }
        #expect(PropertyListDate.secondsSince2001(year: 2001, month: 1, day: 1, hour: 0, minute: 0, second: 0) == 0)
    }

    // MARK: Stored entries: bit flips, impossible entries, old versions

    static func realisticEntry() -> HTTPCacheEntry {
        HTTPCacheEntry(requestURL: "https://example.test/app/appInfo.json", status: 200, headers: [
            HTTPHeader(name: "Date", value: HTTPDate.format(t0)), HTTPHeader(name: "Age", value: "30"),
            HTTPHeader(name: "Cache-Control", value: "max-age=600"), HTTPHeader(name: "ETag", value: "\"abc\""),
            HTTPHeader(name: "Last-Modified", value: HTTPDate.format(t0 - 5000)),
            HTTPHeader(name: "Expires", value: HTTPDate.format(t0 + 600)),
        ], requestTime: t0 - 1, responseTime: t0, body: Array(#"{"icons": []}"#.utf8))
    }


    /// A few thousand seeded flips of one to three bits in a stored entry: each read either
    /// finds no entry or a whole one, and using it never traps. Every flip fails the checksum.
    @Test func randomBitFlipsAreAbsentOrWhole() throws {
        let folder = TemporaryFolder()
        let store = HTTPCacheStore(directory: folder.path)
        let original = Self.realisticEntry()
        let bytes = original.encoded()
        let path = store.path(for: original.requestURL)
        var generator = SplitMix64(seed: 14)
        for round in 0..<3000 {
            var flipped = bytes
            for _ in 0...Int.random(in: 0...2, using: &generator) {
                let bit = Int.random(in: 0..<(bytes.count * 8), using: &generator)
                flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            }
            try Data(flipped).write(to: URL(fileURLWithPath: path))
            let read = store.read(original.requestURL, maximumBodySize: 1 << 20)
            if flipped == bytes {
                #expect(read == original)
            } else {
                #expect(read == nil, "round \(round): a changed entry read as whole")
            }
            for now in [Self.t0, Self.t0 + 1000, Int64.max] { _ = read?.isFresh(now: now) }
        }
    }

    /// The same flips with the checksum made right again (an entry crafted by hand): the
    /// decoder's own checks hold, and whatever it accepts is safe to use.
    @Test func craftedEntriesWithValidChecksumsNeverTrap() {
        let bytes = Self.realisticEntry().encoded()
        let content = Array(bytes.dropLast(8))
        var generator = SplitMix64(seed: 9111)
        var accepted = 0
        for _ in 0..<4000 {
            var flipped = content
            for _ in 0...Int.random(in: 0...2, using: &generator) {
                let bit = Int.random(in: 0..<(content.count * 8), using: &generator)
                flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            }
            let sum = HTTPCacheEntry.checksum(flipped[...])
            for shift in stride(from: 56, through: 0, by: -8) { flipped.append(UInt8(truncatingIfNeeded: sum >> UInt64(shift))) }
            guard let entry = HTTPCacheEntry.decode(flipped) else { continue }
            accepted += 1
            #expect(entry.isPossible)
            for now in [Int64.min, 0, Self.t0, Self.t0 + 1, Int64.max] {
                _ = entry.isFresh(now: now)
                #expect(entry.currentAge(now: now) >= 0)
            }
            _ = entry.conditionalHeaders
        }
        #expect(accepted > 0, "some flips (in header text, say) leave a possible entry")
    }

    /// The brief's case: one flipped bit in the stored response time.
    @Test func flippedResponseTimeCountsAsAbsent() {
        var e = Self.realisticEntry()
        e.responseTime ^= 1 << 62
        #expect(HTTPCacheEntry.decode(e.encoded()) == nil, "impossible time, even with a right checksum")
        e.responseTime = Self.t0
        e.requestTime = Self.t0 + 1
        #expect(HTTPCacheEntry.decode(e.encoded()) == nil, "request after response")
    }

    @Test func otherVersionsAndImpossibleEntriesAreAbsent() {
        var bytes = Self.realisticEntry().encoded()
        bytes[8] = 1  // version 1 stored the redirect target under the first URL
        let sum = HTTPCacheEntry.checksum(bytes.dropLast(8))
        bytes.replaceSubrange((bytes.count - 8)..., with: (0..<8).map { UInt8(truncatingIfNeeded: sum >> UInt64(56 - 8 * $0)) })
        #expect(HTTPCacheEntry.decode(bytes) == nil)
        // A redirect must name its target and carry no body; only stored statuses.
        #expect(HTTPCacheEntry.decode(entry([], status: 302).encoded()) == nil)
        #expect(HTTPCacheEntry.decode(entry([("Location", "/b")], status: 302).encoded()) != nil)
        #expect(HTTPCacheEntry.decode(entry([("Location", "/b")], status: 404).encoded()) == nil)
        var withBody = entry([("Location", "/b")], status: 301)
        withBody.body = [1]
        #expect(HTTPCacheEntry.decode(withBody.encoded()) == nil)
    }

    // MARK: Vary, hop-by-hop headers, redirects

    @Test func varyStarIsNeverFresh() {
        #expect(!entry([("Cache-Control", "max-age=600"), ("Vary", "*")]).isFresh(now: Self.t0))
        #expect(!entry([("Cache-Control", "max-age=600"), ("Vary", "Accept-Encoding, *")]).isFresh(now: Self.t0))
        #expect(!entry([("Cache-Control", "max-age=600"), ("Vary", "Accept"), ("vary", " * ")]).isFresh(now: Self.t0))
        #expect(entry([("Cache-Control", "max-age=600"), ("Vary", "Accept-Encoding")]).isFresh(now: Self.t0))
    }

    @Test func hopByHopAndProxyHeadersAreNotStored() {
        let headers = [("Connection", "keep-alive, X-Hop"), ("Keep-Alive", "timeout=5"), ("TE", "trailers"),
                       ("Trailer", "X-Sum"), ("Transfer-Encoding", "chunked"), ("Upgrade", "h2c"),
                       ("Proxy-Authenticate", "Basic"), ("Proxy-Connection", "keep-alive"), ("proxy-foo", "1"),
                       ("X-Hop", "secret"), ("ETag", "\"v\""), ("Cache-Control", "max-age=5"), ("X-Kept", "yes")]
            .map { HTTPHeader(name: $0.0, value: $0.1) }
        let kept = HTTPCacheEntry.storable(headers).map(\.name)
        #expect(kept == ["ETag", "Cache-Control", "X-Kept"])
        let refreshed = entry([("ETag", "\"v\""), ("Content-Length", "3")])
            .refreshed(by: HTTPResponse(status: 304, headers: headers + [HTTPHeader(name: "Content-Length", value: "0")], body: []),
                       requestTime: Self.t0, responseTime: Self.t0)
        #expect(refreshed.headers.map(\.name).sorted() == ["Cache-Control", "Content-Length", "ETag", "X-Kept"])
        #expect(refreshed.header("Content-Length") == "3")
    }

    @Test func temporaryRedirectsAreFreshOnlyWhenTheySaySo() {
        for status in [302, 303, 307] {
            #expect(entry([("Location", "/b")], status: status).freshnessLifetime == 0)
            #expect(entry([("Location", "/b"), ("Last-Modified", HTTPDate.format(Self.t0 - 100_000))], status: status).freshnessLifetime == 0)
            #expect(entry([("Location", "/b"), ("Cache-Control", "max-age=60")], status: status).isFresh(now: Self.t0 + 59))
            #expect(entry([("Location", "/b"), ("Date", HTTPDate.format(Self.t0)), ("Expires", HTTPDate.format(Self.t0 + 60))],
                          status: status).isFresh(now: Self.t0 + 59))
        }
        for status in [301, 308] {
            #expect(entry([("Location", "/b")], status: status).freshnessLifetime == HTTPCacheEntry.oneDay)
        }
    }

    // MARK: The default folder

    @Test func noDefaultFolderReasons() {
        #expect(CacheSettings.noDefaultDirectoryReason(environment: ["HOME": "/h"]) == nil)
        #expect(CacheSettings.noDefaultDirectoryReason(environment: [:]) == "neither XDG_CACHE_HOME nor HOME is set")
        #expect(CacheSettings.noDefaultDirectoryReason(environment: ["HOME": "", "XDG_CACHE_HOME": ""])
                == "neither XDG_CACHE_HOME nor HOME is set")
        #expect(CacheSettings.noDefaultDirectoryReason(environment: ["HOME": "relhome"])
                == "HOME is not an absolute path and XDG_CACHE_HOME is not set")
        #expect(CacheSettings.noDefaultDirectoryReason(environment: ["XDG_CACHE_HOME": "rel"])
                == "XDG_CACHE_HOME is not an absolute path and HOME is not set")
        #expect(CacheSettings.noDefaultDirectoryReason(environment: ["XDG_CACHE_HOME": "rel", "HOME": "relhome"])
                == "neither XDG_CACHE_HOME nor HOME is an absolute path")
        #expect(CacheSettings.defaultDirectory(environment: ["XDG_CACHE_HOME": "rel", "HOME": "relhome"]) == nil)
    }
}
