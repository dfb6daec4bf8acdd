// libFuzzer entry for what the HTTP cache reads from servers and from disk: cache entry files,
// HTTP dates, Cache-Control/Age/Expires figures. Built by Fuzz/build.py.
// Nothing here may trap, whatever the bytes (SPEC §3: no value can crash a reader).

@testable import XDocSource
@testable import XDocSourceFetch
#if canImport(Glibc)
import Glibc
#endif

let references: [Int64] = [.min, -1, 0, 784_111_777, 1_700_000_000, HTTPCacheEntry.latestTime, .max]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    // 1. The bytes as a cache entry file: whatever decodes re-encodes to the same entry, and
    //    its age and freshness can be asked at any time.
    //    The input is also tried with a valid checksum appended, so that the fuzzer reaches
    //    the fields behind it (a random file fails the checksum and counts as absent).
    let checksum = HTTPCacheEntry.checksum(bytes[...])
    let fixed = bytes + (0..<8).map { UInt8(truncatingIfNeeded: checksum >> UInt64(56 - 8 * $0)) }
    for candidate in [bytes, fixed] {
        guard let entry = HTTPCacheEntry.decode(candidate) else { continue }
        for now in references {
            _ = entry.currentAge(now: now)
            _ = entry.isFresh(now: now)
        }
        check(HTTPCacheEntry.decode(entry.encoded()) == entry, "a decoded entry does not survive re-encoding")
    }

    // 2. The bytes as header lines (NAME: VALUE): Cache-Control, Age, Expires, Date… as a
    //    response would carry them, stored, aged and refreshed by a 304.
    let text = String(decoding: bytes, as: UTF8.self)
    var headers: [HTTPHeader] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: true).prefix(64) {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers.append(HTTPHeader(name: String(line[..<colon]), value: String(line[line.index(after: colon)...])))
    }
    _ = CacheControl(headers)
    _ = HTTPCacheEntry.mayStore(headers)
    let stored = HTTPCacheEntry.storable(headers)
    for (request, response) in [(Int64(0), Int64(1)), (1_700_000_000, 1_700_000_002), (HTTPCacheEntry.latestTime - 1, HTTPCacheEntry.latestTime)] {
        for status in [200, 302, 301] {
            let entry = HTTPCacheEntry(requestURL: "https://example.com/a", status: status, headers: stored,
                                       requestTime: request, responseTime: response, body: [])
            for now in references {
                _ = entry.currentAge(now: now)
                _ = entry.isFresh(now: now)
            }
            _ = entry.refreshed(by: HTTPResponse(status: 304, headers: headers, body: []), requestTime: response, responseTime: response)
        }
    }

    // 3. The bytes as one HTTP date and one delta-seconds figure.
    _ = CacheControl.deltaSeconds(text)
    for reference in references {
        guard let seconds = HTTPDate.parse(text, reference: reference) else { continue }
        // What parses formats back to a date that parses to the same instant (for a reference
        // time a response could have: a two-digit rfc850 year read against an absurd one can
        // land outside the years an IMF-fixdate can write).
        guard (0...HTTPCacheEntry.latestTime).contains(reference) else { continue }
        // (A two-digit year read against a reference late in 9999 can land past 9999, which an
        // IMF-fixdate cannot write; the cache counts such times as impossible anyway.)
        guard seconds <= HTTPCacheEntry.latestTime else { continue }
        check(HTTPDate.parse(HTTPDate.format(seconds), reference: reference) == seconds,
                     "\(text) → \(seconds) → \(HTTPDate.format(seconds))")
    }
    return 0
}

/// A failed check: the message on standard error (an optimised build drops a precondition's
/// message), then a crash libFuzzer records.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fail(message()) }
}

func fail(_ message: String) -> Never {
    fputs("fuzz check failed: \(message)\n", stderr)
    abort()
}
