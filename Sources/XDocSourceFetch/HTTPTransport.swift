/// One HTTP GET as the fetcher asks for it: the absolute URL and the extra request headers
/// (conditional headers such as `If-None-Match` when revalidating a cached entry).
public struct HTTPRequest: Sendable, Equatable {
    /// The absolute `http` or `https` URL, as text.
    public var url: String
    /// Extra request headers, in order; names as written.
    public var headers: [HTTPHeader]
    /// What is left of the time budget this request shares with the others of one fetch (the
    /// list, its redirects and the icon); nil: only the transport's own time-outs apply.
    public var timeBudget: TimeBudget?

    /// Makes a request for `url` with `headers`, under `timeBudget` when given.
    public init(url: String, headers: [HTTPHeader] = [], timeBudget: TimeBudget? = nil) {
        self.url = url
        self.headers = headers
        self.timeBudget = timeBudget
    }
}

/// The time left to a request out of a budget shared by several (SPEC §3: one 30 s budget for
/// the list, its redirects and the icon together). A transport gives the request at most
/// ``remaining``, its connect time-out included, and names ``total`` when that runs out.
public struct TimeBudget: Sendable, Equatable {
    /// The time left now for this request and the ones after it.
    public var remaining: Duration
    /// The whole budget, for messages ("the 30 s for the whole fetch ran out").
    public var total: Duration

    /// Makes a budget with `remaining` of `total` left.
    public init(remaining: Duration, total: Duration) {
        self.remaining = remaining
        self.total = total
    }
}

/// A header field: name and value as received or to be sent.
public struct HTTPHeader: Sendable, Equatable {
    /// The field name; compare it case-insensitively.
    public var name: String
    /// The field value.
    public var value: String

    /// Makes a header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// One HTTP response: status, headers and the whole body (bounded by the caller's limit).
public struct HTTPResponse: Sendable, Equatable {
    /// The status code (200, 304, 301, 404…).
    public var status: Int
    /// The response headers, in order.
    public var headers: [HTTPHeader]
    /// The body; empty for 304 and for redirects whose body was not read.
    public var body: [UInt8]

    /// Makes a response.
    public init(status: Int, headers: [HTTPHeader], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (compared case-insensitively), or nil.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

/// What performs HTTP for ``AppInfoFetcher``: one GET at a time, never following redirects
/// (the fetcher follows them itself, so it can refuse a downgrade from https to http and
/// count them), never decompressing, and reading at most `maximumBodySize` bytes of body.
///
/// `XDocSource` itself has no HTTP stack, so a program that only reads and writes attributes
/// builds none; the `XDocSourceHTTP` product supplies `CurlTransport`, over the system's libcurl.
/// A program with its own HTTP client conforms that instead.
public protocol HTTPTransport: Sendable {
    /// Performs one GET.
    ///
    /// A 3xx response is returned as it is (with its `Location` header), not followed. A
    /// `Content-Length` over `maximumBodySize` is refused before the body is read, and a body
    /// that grows past it is refused as soon as it does. The request takes no longer than
    /// ``HTTPRequest/timeBudget``'s `remaining`, when given, connecting included. A reply that
    /// is not HTTP (no status line) or has two different `Content-Length` values is a failure
    /// (``FetchError/Kind/network``), never a response.
    /// - Throws: ``FetchError`` (``FetchError/Kind/network``, ``FetchError/Kind/certificate``,
    ///   ``FetchError/Kind/timedOut``, ``FetchError/Kind/tooLarge``) naming the URL.
    func get(_ request: HTTPRequest, maximumBodySize: Int) async throws(FetchError) -> HTTPResponse
}

extension String {
    /// The text without leading and trailing spaces and tabs (HTTP's optional white space,
    /// RFC 9110 §5.6.3), for header values; trimmed by Unicode scalar, so a combining mark is
    /// never taken as part of a space. `package`: the fetcher's cache rules and the libcurl
    /// transport's header reader share this one definition.
    package var httpTrimmed: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let end = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return String(scalars[start...end])
    }
}
