internal import XDSSystem

/// One cached response (RFC 9111 as a private cache): the 200 response to a GET of
/// ``requestURL``, reached at ``finalURL`` after any redirects, with the stored headers, the
/// local times of the request and of the response, and the body.
///
/// On disk it is one file, written whole (see ``HTTPCacheStore``):
/// `"XDSCACHE"`, version byte 1, request time and response time (8 bytes each, big-endian,
/// two's complement), the request URL and the final URL, a header count (4 bytes) and each
/// header's name and value (each text is a 4-byte length then UTF-8), then the body length
/// (8 bytes) and the body. A file that does not parse exactly to its end is corrupt and is
/// treated as absent.
struct HTTPCacheEntry: Sendable, Equatable {
    /// The URL asked for (the cache key; fragment removed).
    var requestURL: String
    /// The URL the body came from after redirects (the base for relative `src`).
    var finalURL: String
    /// The response headers as stored (refreshed by a 304).
    var headers: [HTTPHeader]
    /// Local clock, seconds, when the request that produced or last validated the entry was sent.
    var requestTime: Int64
    /// Local clock, seconds, when that response arrived.
    var responseTime: Int64
    /// The body.
    var body: [UInt8]

    private static let magic: [UInt8] = Array("XDSCACHE".utf8)
    private static let version: UInt8 = 1

    /// The first value of header `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    // MARK: Freshness (RFC 9111 §4.2)

    /// The parsed `Cache-Control` directives of the stored response.
    var cacheControl: CacheControl { CacheControl(headers) }

    /// How long the response is fresh from its generation, in seconds: `max-age` (a bad value
    /// counts as 0), else `Expires − Date` (an unreadable `Expires` is already expired), else
    /// 10 % of `Date − Last-Modified` capped at one day, else one day (SPEC §3 "one day's
    /// freshness when the server says nothing"). `s-maxage` is for shared caches and ignored.
    var freshnessLifetime: Int64 {
        let control = cacheControl
        if let maxAge = control.maxAge { return maxAge }
        let date = header("Date").flatMap(HTTPDate.parse) ?? responseTime
        if let expires = header("Expires") {
            guard let when = HTTPDate.parse(expires) else { return 0 }
            return max(0, when - date)
        }
        if let modified = header("Last-Modified").flatMap(HTTPDate.parse) {
            return min(HTTPCacheEntry.oneDay, max(0, (date - modified) / 10))
        }
        return HTTPCacheEntry.oneDay
    }

    /// One day, in seconds: the heuristic cap and the freshness when the server says nothing.
    static let oneDay: Int64 = 86400

    /// The response's age at `now` (RFC 9111 §4.2.3): the larger of the apparent age
    /// (response time − `Date`) and `Age` plus the request's round trip, plus the time since
    /// the response arrived. A clock running backwards gives age 0 rather than a negative one.
    func currentAge(now: Int64) -> Int64 {
        let date = header("Date").flatMap(HTTPDate.parse) ?? responseTime
        let apparentAge = max(0, responseTime - date)
        let ageValue = header("Age").flatMap { Int64($0.httpTrimmed) }.map { max(0, $0) } ?? 0
        let correctedAge = ageValue + max(0, responseTime - requestTime)
        return max(apparentAge, correctedAge) + max(0, now - responseTime)
    }

    /// Whether the entry may be used at `now` without asking the server: not `no-cache`, and
    /// younger than its freshness lifetime.
    func isFresh(now: Int64) -> Bool {
        if cacheControl.noCache { return false }
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
    /// length stays right); the times become those of the revalidation; the body is kept.
    func refreshed(by notModified: HTTPResponse, requestTime: Int64, responseTime: Int64) -> HTTPCacheEntry {
        var copy = self
        let skipped: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive"]
        var replaced = Set<String>()
        for header in notModified.headers where !skipped.contains(header.name.lowercased()) {
            replaced.insert(header.name.lowercased())
        }
        copy.headers = headers.filter { !replaced.contains($0.name.lowercased()) }
            + notModified.headers.filter { !skipped.contains($0.name.lowercased()) }
        copy.requestTime = requestTime
        copy.responseTime = responseTime
        return copy
    }

    /// Whether a response with these headers may be stored: not `no-store`.
    static func mayStore(_ headers: [HTTPHeader]) -> Bool { !CacheControl(headers).noStore }

    // MARK: Encoding

    /// The entry as one file's bytes.
    func encoded() -> [UInt8] {
        var out = HTTPCacheEntry.magic
        out.append(HTTPCacheEntry.version)
        func u64(_ value: UInt64) { for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) } }
        func u32(_ value: Int) { for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> shift)) } }
        func text(_ value: String) { let bytes = Array(value.utf8); u32(bytes.count); out += bytes }
        u64(UInt64(bitPattern: requestTime))
        u64(UInt64(bitPattern: responseTime))
        text(requestURL)
        text(finalURL)
        u32(headers.count)
        for header in headers { text(header.name); text(header.value) }
        u64(UInt64(body.count))
        out.reserveCapacity(out.count + body.count)
        out += body
        return out
    }

    /// Reads an entry; nil when `bytes` are not exactly one well-formed entry.
    static func decode(_ bytes: [UInt8]) -> HTTPCacheEntry? {
        var position = 0
        func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, count <= bytes.count - position else { return nil }
            defer { position += count }
            return bytes[position..<position + count]
        }
        func u64() -> UInt64? { take(8).map { $0.reduce(0) { $0 << 8 | UInt64($1) } } }
        func u32() -> Int? { take(4).map { Int($0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) } }
        func text() -> String? {
            guard let count = u32(), let slice = take(count) else { return nil }
            return String(validating: slice, as: UTF8.self)
        }
        guard let head = take(magic.count), Array(head) == magic, take(1)?.first == version,
              let requestTime = u64(), let responseTime = u64(),
              let requestURL = text(), let finalURL = text(), let count = u32(), count < 10_000
        else { return nil }
        var headers: [HTTPHeader] = []
        for _ in 0..<count {
            guard let name = text(), let value = text() else { return nil }
            headers.append(HTTPHeader(name: name, value: value))
        }
        guard let length = u64(), length == UInt64(bytes.count - position), let body = take(Int(length)) else { return nil }
        return HTTPCacheEntry(requestURL: requestURL, finalURL: finalURL, headers: headers,
                              requestTime: Int64(bitPattern: requestTime), responseTime: Int64(bitPattern: responseTime),
                              body: Array(body))
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
                    let seconds = Int64(value).map { max(0, $0) } ?? 0
                    maxAge = min(maxAge ?? seconds, seconds)
                default: break
                }
            }
        }
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs (HTTP's optional white space).
    var httpTrimmed: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let end = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return String(scalars[start...end])
    }
}
