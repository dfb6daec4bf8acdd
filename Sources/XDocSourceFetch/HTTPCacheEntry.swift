internal import XDSSystem

internal import XDSSystem

/// One cached response (RFC 9111 as a private cache): the response to a GET of
/// ``requestURL`` itself, with no redirect followed. A redirect is an entry of its own (its
/// status and `Location`), so a chain of redirects is one entry per hop (SPEC §3), each with
/// its own freshness: a temporary redirect (302, 303, 307) is fresh only when its own
/// response says so (`max-age`, `Expires`), while its target's entry may stay fresh.
///
/// Every figure in an entry came from a server or from a file anyone may have altered, so
/// the freshness arithmetic saturates and never traps (SPEC §3: no value can crash a reader).
///
/// On disk it is one file, written whole (see ``HTTPCacheStore``): `"XDSCACHE"`, version
/// byte 2, the status (2 bytes), request time and response time (8 bytes each, big-endian,
/// two's complement), the request URL, a header count (4 bytes) and each header's name and
/// value (each text is a 4-byte length then UTF-8), the body length (8 bytes) and the body,
/// then a 64-bit FNV-1a checksum of everything before it. A file that does not parse exactly
/// to its end, fails its checksum, or holds an impossible entry (another status, times out
/// of range or in the wrong order, a redirect without a `Location`) counts as absent; so do
/// version-1 files, which stored a redirect's target under the first URL.
struct HTTPCacheEntry: Sendable, Equatable {
    /// The URL asked for (the cache key; fragment removed); the URL the body came from.
    var requestURL: String
    /// The status: 200, or a redirect (301, 302, 303, 307, 308) whose `Location` is a header.
    var status: Int
    /// The response headers as stored (refreshed by a 304), hop-by-hop fields left out.
    var headers: [HTTPHeader]
    /// Local clock, seconds, when the request that produced or last validated the entry was sent.
    var requestTime: Int64
    /// Local clock, seconds, when that response arrived.
    var responseTime: Int64
    /// The body (empty for a redirect).
    var body: [UInt8]

    private static let magic: [UInt8] = Array("XDSCACHE".utf8)
    private static let version: UInt8 = 2

    /// The statuses an entry may hold.
    static let storedStatuses: Set<Int> = [200, 301, 302, 303, 307, 308]
    /// The redirects that are only fresh when their own response says so (RFC 9110 §15.4).
    static let temporaryRedirects: Set<Int> = [302, 303, 307]
    /// The latest time an entry may hold: 9999-12-31 23:59:59 UTC. Later (or negative)
    /// times cannot come from this program's clock, so such an entry is corrupt.
    static let latestTime: Int64 = 253_402_300_799

    /// The first value of header `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// Whether this entry is a redirect (its `Location` names the next hop).
    var isRedirect: Bool { status != 200 }

    // MARK: Freshness (RFC 9111 §4.2)

    /// The parsed `Cache-Control` directives of the stored response.
    var cacheControl: CacheControl { CacheControl(headers) }

    /// The server's `Date`, else the response time: the origin of the freshness figures.
    private var date: Int64 {
        header("Date").flatMap { HTTPDate.parse($0, reference: responseTime) } ?? responseTime
    }

    /// How long the response is fresh from its generation, in seconds: `max-age` (a bad value
    /// counts as 0), else `Expires − Date` (an `Expires` that is not a valid HTTP date is
    /// already expired, RFC 9111 §5.3). Only those explicit figures count for a temporary
    /// redirect; for a 200, 301 or 308 the heuristic follows: 10 % of `Date − Last-Modified`
    /// capped at one day, else one day (SPEC §3 "one day's freshness when the server says
    /// nothing"). `s-maxage` is for shared caches and ignored.
    var freshnessLifetime: Int64 {
        if let maxAge = cacheControl.maxAge { return maxAge }
        if let expires = header("Expires") {
            guard let when = HTTPDate.parse(expires, reference: responseTime) else { return 0 }
            return max(0, when.subtractingSaturated(date))
        }
        if HTTPCacheEntry.temporaryRedirects.contains(status) { return 0 }
        if let modified = header("Last-Modified").flatMap({ HTTPDate.parse($0, reference: responseTime) }) {
            return min(HTTPCacheEntry.oneDay, max(0, date.subtractingSaturated(modified) / 10))
        }
        return HTTPCacheEntry.oneDay
    }

    /// One day, in seconds: the heuristic cap and the freshness when the server says nothing.
    static let oneDay: Int64 = 86400

    /// The `Age` header's value (RFC 9111 §5.1): of a list (`7200, 0`, or a field sent
    /// twice) the first member; nil when that is not a delta-seconds number (then ignored).
    var ageValue: Int64? {
        guard let field = header("Age") else { return nil }
        let first = field.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return CacheControl.deltaSeconds(first.httpTrimmed)
    }

    /// The response's age at `now` (RFC 9111 §4.2.3): the larger of the apparent age
    /// (response time − `Date`) and `Age` plus the request's round trip, plus the time since
    /// the response arrived. A clock running backwards gives age 0 rather than a negative
    /// one; every step saturates.
    func currentAge(now: Int64) -> Int64 {
        let apparentAge = max(0, responseTime.subtractingSaturated(date))
        let correctedAge = (ageValue ?? 0).addingSaturated(max(0, responseTime.subtractingSaturated(requestTime)))
        return max(apparentAge, correctedAge).addingSaturated(max(0, now.subtractingSaturated(responseTime)))
    }

    /// Whether the response may never be reused without asking the server: `no-cache`, or
    /// `Vary: *` (RFC 9111 §4.1: such a response matches no request).
    var mustRevalidate: Bool { cacheControl.noCache || variesOnEverything }

    /// Whether a `Vary` field lists `*`.
    var variesOnEverything: Bool {
        headers.contains { $0.name.lowercased() == "vary" && $0.value.split(separator: ",").contains { String($0).httpTrimmed == "*" } }
    }

    /// Whether the entry may be used at `now` without asking the server: not `no-cache` nor
    /// `Vary: *`, and younger than its freshness lifetime.
    func isFresh(now: Int64) -> Bool {
        if mustRevalidate { return false }
        return currentAge(now: now) < freshnessLifetime
    }

    /// The conditional headers that revalidate the entry: `If-None-Match` with the `ETag`,
    /// `If-Modified-Since` with the `Last-Modified` value as received.
    var conditionalHeaders: [HTTPHeader] {
        var result: [HTTPHeader] = []
        if let tag = header("ETag") { result.append(HTTPHeader(name: "If-None-Match", value: tag)) }
        if let modified = header("Last-Modified") { result.append(HTTPHeader(name: "If-Modified-Since", value: modified)) }
        return result
    }

    /// What identifies this version of the body: the `ETag`, else the `Last-Modified` value.
    var validator: String? { header("ETag") ?? header("Last-Modified") }

    /// The entry after a 304 (RFC 9111 §4.3.4): each header the 304 carries replaces the
    /// stored ones of that name, except `Content-Length` (the 304 has no body; the stored
    /// length stays right) and hop-by-hop fields; the times become those of the
    /// revalidation; the body is kept.
    func refreshed(by notModified: HTTPResponse, requestTime: Int64, responseTime: Int64) -> HTTPCacheEntry {
        var copy = self
        let incoming = HTTPCacheEntry.storable(notModified.headers).filter { $0.name.lowercased() != "content-length" }
        let replaced = Set(incoming.map { $0.name.lowercased() })
        copy.headers = headers.filter { !replaced.contains($0.name.lowercased()) } + incoming
        copy.requestTime = requestTime
        copy.responseTime = responseTime
        return copy
    }

    /// Whether a response with these headers may be stored: not `no-store`.
    static func mayStore(_ headers: [HTTPHeader]) -> Bool { !CacheControl(headers).noStore }

    /// The headers a cache keeps (RFC 9111 §3.1): without `Connection` and the fields it
    /// names, the other hop-by-hop fields (`Keep-Alive`, `TE`, `Trailer`,
    /// `Transfer-Encoding`, `Upgrade`, RFC 9110 §7.6.1) and any `Proxy-*` field.
    static func storable(_ headers: [HTTPHeader]) -> [HTTPHeader] {
        var dropped: Set<String> = ["connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade"]
        for header in headers where header.name.lowercased() == "connection" {
            for name in header.value.split(separator: ",") { dropped.insert(String(name).httpTrimmed.lowercased()) }
        }
        return headers.filter {
            let name = $0.name.lowercased()
            return !dropped.contains(name) && !name.hasPrefix("proxy-")
        }
    }

    // MARK: Encoding

    /// The entry as one file's bytes.
    func encoded() -> [UInt8] {
        var out = HTTPCacheEntry.magic
        out.append(HTTPCacheEntry.version)
        func u64(_ value: UInt64) { BigEndian.append(value, width: 8, to: &out) }
        func u32(_ value: Int) { BigEndian.append(UInt64(truncatingIfNeeded: value), width: 4, to: &out) }
        func text(_ value: String) { let bytes = Array(value.utf8); u32(bytes.count); out += bytes }
        out.append(UInt8(truncatingIfNeeded: status >> 8))
        out.append(UInt8(truncatingIfNeeded: status))
        u64(UInt64(bitPattern: requestTime))
        u64(UInt64(bitPattern: responseTime))
        text(requestURL)
        u32(headers.count)
        for header in headers { text(header.name); text(header.value) }
        u64(UInt64(body.count))
        out.reserveCapacity(out.count + body.count + 8)
        out += body
        u64(HTTPCacheEntry.checksum(out[...]))
        return out
    }

    /// Reads an entry; nil when `bytes` are not exactly one well-formed, possible entry.
    static func decode(_ bytes: [UInt8]) -> HTTPCacheEntry? {
        guard bytes.count >= 8 else { return nil }
        let content = bytes[..<(bytes.count - 8)]
        let stored = bytes[(bytes.count - 8)...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard stored == checksum(content) else { return nil }
        var position = 0
        let end = content.count
        func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, count <= end - position else { return nil }
            defer { position += count }
            return content[position..<position + count]
        }
        func u64() -> UInt64? { take(8).map { BigEndian.unsigned($0, at: 0, width: 8) } }
        func u32() -> Int? { take(4).map { Int(BigEndian.unsigned($0, at: 0, width: 4)) } }
        func u16() -> Int? { take(2).map { Int(BigEndian.unsigned($0, at: 0, width: 2)) } }
        func text() -> String? {
            guard let count = u32(), let slice = take(count) else { return nil }
            return String(validatingUTF8Bytes: slice)
        }
        guard let head = take(magic.count), Array(head) == magic, take(1)?.first == version,
              let status = u16(), storedStatuses.contains(status),
              let rawRequestTime = u64(), let rawResponseTime = u64(),
              let requestURL = text(), let count = u32(), count < 10_000
        else { return nil }
        var headers: [HTTPHeader] = []
        for _ in 0..<count {
            guard let name = text(), let value = text() else { return nil }
            headers.append(HTTPHeader(name: name, value: value))
        }
        // The length must be exactly what is left, compared as UInt64 before any conversion.
        guard let length = u64(), length == UInt64(end - position), let body = take(end - position) else { return nil }
        let entry = HTTPCacheEntry(requestURL: requestURL, status: status, headers: headers,
                                   requestTime: Int64(bitPattern: rawRequestTime), responseTime: Int64(bitPattern: rawResponseTime),
                                   body: Array(body))
        return entry.isPossible ? entry : nil
    }

    /// Whether the entry could have been written by ``AppInfoFetcher``: times within
    /// 1970…9999 with the request not after the response, and a redirect with a `Location`
    /// and no body.
    var isPossible: Bool {
        guard (0...HTTPCacheEntry.latestTime).contains(requestTime), (requestTime...HTTPCacheEntry.latestTime).contains(responseTime),
              HTTPCacheEntry.storedStatuses.contains(status) else { return false }
        if isRedirect { return body.isEmpty && header("Location") != nil }
        return true
    }

    /// FNV-1a, 64 bits: detects any changed byte (each step is a bijection of the state).
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.withUnsafeBufferPointer { buffer in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in buffer { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            return hash
        }
    }
}

/// The `Cache-Control` directives a private cache acts on.
struct CacheControl: Equatable {
    /// `no-store`: never stored.
    var noStore = false
    /// `no-cache` (with or without a field list): stored, revalidated on every use.
    var noCache = false
    /// `max-age`, in seconds; 0 when the value is not a number (treated as stale, RFC 9111 §4.2.1).
    var maxAge: Int64?

    /// The largest delta-seconds value kept (RFC 9111 §1.2.2: a larger one, however many
    /// digits it has, is read as 2^31).
    static let maximumDeltaSeconds: Int64 = 2_147_483_648

    /// A delta-seconds value (one or more ASCII digits, nothing else), saturated at
    /// ``maximumDeltaSeconds``; nil when `text` is not one.
    static func deltaSeconds(_ text: String) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = min(maximumDeltaSeconds, value * 10 + Int64(byte - UInt8(ascii: "0")))
        }
        return value
    }

    /// The directives of every `Cache-Control` field in `headers`.
    init(_ headers: [HTTPHeader]) {
        for header in headers where header.name.lowercased() == "cache-control" {
            for directive in header.value.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1)
                let name = String(parts.first ?? "").httpTrimmed.lowercased()
                var value = parts.count > 1 ? String(parts[1]).httpTrimmed : ""
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                switch name {
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "max-age":
                    // Several max-age values: the smallest is the safe reading.
                    let seconds = CacheControl.deltaSeconds(value) ?? 0
                    maxAge = min(maxAge ?? seconds, seconds)
                default: break
                }
            }
        }
    }
}

extension Int64 {
    /// `self + other`, or the nearest bound when that overflows.
    func addingSaturated(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self − other`, or the nearest bound when that overflows.
    func subtractingSaturated(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }
}
