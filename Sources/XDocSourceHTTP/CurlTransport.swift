import CCurl
import XDocSourceFetch
import XDSSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// ``HTTPTransport`` over the system's libcurl, loaded with `dlopen` on the first request
/// (Debian `libcurl4`, macOS's own): the program carries no TLS stack, and one that makes no
/// request never loads it.
///
/// Each GET never follows redirects, never asks for or undoes compression, allows only `https`
/// (and `http` with ``HTTPTransportConfiguration/allowHTTP``; the rule is
/// ``FetchPolicy/checkScheme(of:allowHTTP:)``'s), refuses a `Content-Length` over
/// the limit before the body and a body that grows past it as the bytes arrive, and gives up
/// at the connect and total time-outs. Proxies are libcurl's own business (the variables curl
/// reads, or ``HTTPTransportConfiguration/proxy``).
///
/// `curl_easy_perform` blocks, so each request runs on a thread of its own, never on Swift's
/// cooperative pool. Finished easy handles are kept for the next request, so a connection to
/// the same server is reused (libcurl checks a kept connection before reuse and retries once on
/// a fresh one when a reused one turns out dead).
public final class CurlTransport: HTTPTransport, @unchecked Sendable {
    /// What the transport was made with.
    public let configuration: HTTPTransportConfiguration

    // Easy handles not in use, each with its connection cache; guarded by `lock`.
    private var idle: [UnsafeMutableRawPointer] = []
    private let lock = Lock()
    private static let keptHandles = 4

    /// Makes a transport; libcurl is not loaded (and nothing connects) until the first request.
    public init(configuration: HTTPTransportConfiguration = .fromEnvironment()) {
        self.configuration = configuration
    }

    deinit {
        for handle in idle { curl_easy_cleanup(handle) }
    }

    /// Whether libcurl can be loaded (loading it now if it was not yet).
    public static var isAvailable: Bool { ccurl_available() != 0 }

    /// The libcurl xds would load, for `xds --version` and bug reports: "libcurl 7.88.1
    /// (/usr/lib/…/libcurl.so.4.8.0)", or why none can be (loads it).
    public static var libraryDescription: String { String(cString: ccurl_description()) }

    /// Performs one GET; see ``HTTPTransport/get(_:maximumBodySize:)``.
    public func get(_ request: HTTPRequest, maximumBodySize: Int) async throws(FetchError) -> HTTPResponse {
        let url = request.url
        // The scheme rule (https only unless allowed) is FetchPolicy's; see there why the
        // transport calls it too.
        guard let target = RequestTarget(url) else {
            if ["http", "https"].contains(URLReference.scheme(of: url)), URLReference.parse(url) == nil {
                // "https://host/a b": RFC 3986 refuses it, and libcurl too (CURLE_URL_MALFORMAT).
                try FetchPolicy.checkScheme(of: url, allowHTTP: configuration.allowHTTP)
                throw FetchError(.invalidURL, url: url, message: "not a URL libcurl can fetch")
            }
            throw FetchError(.invalidURL, url: url, message: "not an absolute http or https URL")
        }
        try FetchPolicy.checkScheme(of: url, allowHTTP: configuration.allowHTTP)
        if case .pemFile(let path) = configuration.trustRoots {
            try CurlErrors.checkTrustFile(path, variable: configuration.trustRootsVariable, url: url)
        }
        guard ccurl_available() != 0 else {
            throw FetchError(.network, url: url, message: CurlErrors.notLoaded())
        }
        guard let handle = takeHandle() else {
            throw FetchError(.network, url: url, message: "libcurl could not make a request handle")
        }
        let exchange = Exchange(limit: maximumBodySize)
        let limits = TimeLimits(configuration: configuration, budget: request.timeBudget)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<CURLcode, Never>) in
                let job = Job(handle: handle, request: request, target: target, configuration: configuration,
                              limits: limits, exchange: exchange, continuation: continuation)
                if !job.start() { continuation.resume(returning: CURLE_FAILED_INIT) }
            }
        } onCancel: {
            exchange.cancel()
        }
        let status = Self.status(of: handle)
        let verifyResult = Self.longInfo(handle, CURLINFO_SSL_VERIFYRESULT)
        let proxyVerifyResult = Self.longInfo(handle, CURLINFO_PROXY_SSL_VERIFYRESULT)
        let osErrno = Self.longInfo(handle, CURLINFO_OS_ERRNO)
        let primaryPort = Self.longInfo(handle, CURLINFO_PRIMARY_PORT)
        let tunnelStatus = Self.longInfo(handle, CURLINFO_HTTP_CONNECTCODE)
        let connected = Self.offsetInfo(handle, CURLINFO_PRETRANSFER_TIME_T).map { $0 > 0 }
        putBack(handle)
        if outcome == CURLE_OK {
            let redirectOrNotModified = (300..<400).contains(status)
            return HTTPResponse(status: status, headers: exchange.headers,
                                body: redirectOrNotModified ? [] : exchange.body)
        }
        // A redirect whose body was refused (too large, or declared so) is still a redirect;
        // one whose headers are invalid is not.
        if (outcome == CURLE_WRITE_ERROR || outcome == CURLE_FILESIZE_EXCEEDED),
           (300..<400).contains(exchange.status), exchange.invalidLength == nil {
            return HTTPResponse(status: exchange.status, headers: exchange.headers, body: [])
        }
        throw CurlErrors.fetchError(
            code: outcome, target: target, configuration: configuration,
            details: CurlErrors.Details(message: exchange.errorMessage, verifyResult: verifyResult,
                                        osErrno: Int32(truncatingIfNeeded: osErrno),
                                        overLimit: exchange.overLimit, limit: maximumBodySize,
                                        declaredLength: exchange.declaredLength,
                                        cancelled: exchange.isCancelled,
                                        invalidLength: exchange.invalidLength,
                                        headersComplete: exchange.headersComplete,
                                        proxyVerifyResult: proxyVerifyResult, primaryPort: primaryPort,
                                        tunnelStatus: tunnelStatus, connected: connected,
                                        limits: limits,
                                        proxy: CurlProxy.forTarget(target, configuration: configuration)))
    }

    // MARK: Handles

    private func takeHandle() -> UnsafeMutableRawPointer? {
        if let handle = lock.withLock({ idle.popLast() }) {
            curl_easy_reset(handle)  // options back to the defaults; the connection cache stays
            return handle
        }
        return curl_easy_init()
    }

    private func putBack(_ handle: UnsafeMutableRawPointer) {
        let kept = lock.withLock { () -> Bool in
            guard idle.count < Self.keptHandles else { return false }
            idle.append(handle)
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
    }

    private static func longInfo(_ handle: UnsafeMutableRawPointer, _ info: CURLINFO) -> Int {
        var value = 0
        return ccurl_getinfo_long(handle, info, &value) == CURLE_OK ? value : 0
    }

    /// A CURLINFO_OFF_T value (the *_TIME_T timings), read through the `long` forwarder: on
    /// the LP64 systems xds runs on, `long` and `curl_off_t` are the same 64-bit integer.
    private static func offsetInfo(_ handle: UnsafeMutableRawPointer, _ info: CURLINFO) -> Int? {
        guard MemoryLayout<CLong>.size == MemoryLayout<curl_off_t>.size else { return nil }
        var value = 0
        return ccurl_getinfo_long(handle, info, &value) == CURLE_OK ? value : nil
    }

    private static func status(of handle: UnsafeMutableRawPointer) -> Int {
        longInfo(handle, CURLINFO_RESPONSE_CODE)
    }
}

// MARK: - One request

/// What the callbacks gather during one transfer. Written by the transfer's thread; read by
/// the caller only after it ended (the continuation orders the two), except for the
/// cancellation flag, which is behind a lock.
final class Exchange: @unchecked Sendable {
    let limit: Int
    var body: [UInt8] = []
    var headers: [HTTPHeader] = []
    /// The status of the response whose headers are in ``headers`` (from its status line).
    var status = 0
    var overLimit = false
    /// Why the response's Content-Length is unusable (two different values, or not a
    /// number), when it is: the transfer stops at that header.
    var invalidLength: String?
    /// The blank line ending the current response's headers has come.
    var headersComplete = false
    /// Body bytes of a redirect or 304 seen (counted, not kept).
    var skippedBytes = 0
    /// libcurl's error buffer (CURLOPT_ERRORBUFFER).
    let errorBuffer: UnsafeMutablePointer<CChar>
    private var cancelled = false
    private let lock = Lock()

    init(limit: Int) {
        self.limit = limit
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit { errorBuffer.deallocate() }

    func cancel() { lock.withLock { cancelled = true } }
    var isCancelled: Bool { lock.withLock { cancelled } }

    /// libcurl's own words for the failure (its error buffer), or "".
    var errorMessage: String {
        String(cString: errorBuffer)
    }

    /// The final response's Content-Length, when it has a usable one.
    var declaredLength: Int? {
        headers.last { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) }
    }

    /// One header line as libcurl hands it over ("Name: value\r\n", a status line, or the
    /// empty line ending a header block); false to stop the transfer (a Content-Length that
    /// contradicts an earlier one: libcurl before 8 keeps the last value; RFC 9112 §6.3 makes
    /// it an unrecoverable error, and the cut body must never reach the cache).
    func headerLine(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var line = bytes[...]
        while let last = line.last, last == 13 || last == 10 { line = line.dropLast() }
        guard !line.isEmpty else {
            headersComplete = true
            return true
        }
        if line.starts(with: Array("HTTP/".utf8)) {
            // A new response (after a 1xx, or a proxy's CONNECT answer): its headers only.
            headers = []
            headersComplete = false
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 2)
            status = fields.count >= 2 ? Int(String(decoding: fields[1], as: UTF8.self)) ?? 0 : 0
            return true
        }
        if let first = line.first, first == 32 || first == 9, !headers.isEmpty {
            // An obsolete folded continuation line.
            headers[headers.count - 1].value += " " + String(decoding: line, as: UTF8.self).httpTrimmed
            return true
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return true }
        let header = HTTPHeader(name: String(decoding: line[..<colon], as: UTF8.self),
                                value: String(decoding: line[(colon + 1)...], as: UTF8.self).httpTrimmed)
        if header.name.lowercased() == "content-length" {
            invalidLength = Self.lengthProblem(header.value, after: headers)
            if invalidLength != nil { return false }
        }
        headers.append(header)
        return true
    }

    /// Why a Content-Length `value` cannot stand beside the ones in `earlier` (RFC 9110 §8.6:
    /// a list of one repeated number is the only valid form), or nil.
    static func lengthProblem(_ value: String, after earlier: [HTTPHeader]) -> String? {
        var seen: [Substring] = []
        for header in earlier where header.name.lowercased() == "content-length" {
            seen += header.value.split(separator: ",", omittingEmptySubsequences: false).map { Substring(String($0).httpTrimmed) }
        }
        for number in value.split(separator: ",", omittingEmptySubsequences: false).map({ Substring(String($0).httpTrimmed) }) {
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return "a Content-Length that is not a number (\(Self.shortened(value)))"
            }
            if let first = seen.first, first != number {
                return "two different Content-Length values (\(Self.shortened(String(first))) and \(Self.shortened(String(number))))"
            }
            seen.append(number)
        }
        return nil
    }

    /// A value from a server for a message: at most 40 characters.
    private static func shortened(_ text: String) -> String {
        text.count <= 40 ? text : String(text.prefix(40)) + "…"
    }

    /// Body bytes: kept when within the limit; false (stop the transfer) once past it. A
    /// redirect's or 304's body is counted but not kept.
    func bodyBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if (300..<400).contains(status) {
            skippedBytes += bytes.count
            overLimit = skippedBytes > limit
            return !overLimit
        }
        guard bytes.count <= limit - body.count else {
            overLimit = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }
}

/// One `curl_easy_perform` on a thread of its own, resuming the caller when it ends.
final class Job: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    let request: HTTPRequest
    let target: RequestTarget
    let configuration: HTTPTransportConfiguration
    let limits: TimeLimits
    let exchange: Exchange
    let continuation: CheckedContinuation<CURLcode, Never>

    init(handle: UnsafeMutableRawPointer, request: HTTPRequest, target: RequestTarget,
         configuration: HTTPTransportConfiguration, limits: TimeLimits, exchange: Exchange,
         continuation: CheckedContinuation<CURLcode, Never>) {
        self.handle = handle
        self.request = request
        self.target = target
        self.configuration = configuration
        self.limits = limits
        self.exchange = exchange
        self.continuation = continuation
    }

    /// Starts the thread; false if none could be made (the caller then resumes itself).
    func start() -> Bool {
        let context = Unmanaged.passRetained(self).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<Job>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        if started == 0, let thread { pthread_detach(thread) }
        #else
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<Job>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        if started == 0 { pthread_detach(thread) }
        #endif
        if started != 0 { Unmanaged<Job>.fromOpaque(context).release() }
        return started == 0
    }

    private func run() {
        continuation.resume(returning: perform())
    }

    private func perform() -> CURLcode {
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for header in request.headers {
            guard let appended = curl_slist_append(headerList, "\(header.name): \(header.value)") else {
                return CURLE_OUT_OF_MEMORY
            }
            headerList = appended
        }
        let protocols = configuration.allowHTTP ? "http,https" : "https"
        let exchangePointer = Unmanaged.passUnretained(exchange).toOpaque()
        do {
            var code = CURLE_OK
            func set(_ result: CURLcode) { if code == CURLE_OK && result != CURLE_OK { code = result } }
            set(ccurl_setopt_ptr(handle, CURLOPT_ERRORBUFFER, exchange.errorBuffer))
            set(ccurl_setopt_ptr(handle, CURLOPT_URL, request.url))
            set(ccurl_setopt_ptr(handle, CURLOPT_PROTOCOLS_STR, protocols))
            set(ccurl_setopt_ptr(handle, CURLOPT_REDIR_PROTOCOLS_STR, protocols))
            set(ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
            set(ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
            set(ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(limits.connect)))
            set(ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(limits.total)))
            if exchange.limit > 0 {
                // libcurl checks it against a declared Content-Length only; bodyBytes does the rest.
                set(ccurl_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(exchange.limit)))
            }
            set(ccurl_setopt_long(handle, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1))
            if let headerList { set(ccurl_setopt_ptr(handle, CURLOPT_HTTPHEADER, headerList)) }
            if case .pemFile(let path) = configuration.trustRoots {
                set(ccurl_setopt_ptr(handle, CURLOPT_CAINFO, path))
                set(ccurl_setopt_ptr(handle, CURLOPT_CAPATH, nil))  // that bundle only
                // An https proxy's certificate too: libcurl keeps a separate setting for it.
                set(ccurl_setopt_ptr(handle, CURLOPT_PROXY_CAINFO, path))
                set(ccurl_setopt_ptr(handle, CURLOPT_PROXY_CAPATH, nil))
            }
            if let proxy = configuration.proxy { set(ccurl_setopt_ptr(handle, CURLOPT_PROXY, proxy)) }
            if let noProxy = configuration.noProxy { set(ccurl_setopt_ptr(handle, CURLOPT_NOPROXY, noProxy)) }
            set(ccurl_setopt_write_function(handle, CURLOPT_HEADERFUNCTION, { data, size, count, context in
                let exchange = Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
                let length = size * count
                guard let data else { return length }
                let line = UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
                return exchange.headerLine(line) ? length : 0
            }))
            set(ccurl_setopt_ptr(handle, CURLOPT_HEADERDATA, exchangePointer))
            set(ccurl_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, { data, size, count, context in
                let exchange = Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
                let length = size * count
                guard let data else { return length }
                let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
                return exchange.bodyBytes(bytes) ? length : 0
            }))
            set(ccurl_setopt_ptr(handle, CURLOPT_WRITEDATA, exchangePointer))
            set(ccurl_setopt_xferinfo_function(handle, { context, _, _, _, _ in
                Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue().isCancelled ? 1 : 0
            }))
            set(ccurl_setopt_ptr(handle, CURLOPT_XFERINFODATA, exchangePointer))
            set(ccurl_setopt_long(handle, CURLOPT_NOPROGRESS, 0))
            guard code == CURLE_OK else { return code }
            let result = curl_easy_perform(handle)
            // The buffer goes away with the exchange: libcurl must not write to it later.
            _ = ccurl_setopt_ptr(handle, CURLOPT_ERRORBUFFER, nil)
            return result
        }
    }

    /// A duration in whole milliseconds (at least 1: 0 means "no time-out" to libcurl).
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let value = seconds.multipliedReportingOverflow(by: 1000)
        guard !value.overflow else { return Int.max }
        return max(1, Int(value.partialValue + attoseconds / 1_000_000_000_000_000))
    }
}

// MARK: - Plumbing

/// The time-outs of one request: the transport's own, cut to what is left of the fetch's
/// budget when that is shorter (the connect time-out within the total).
struct TimeLimits: Sendable {
    /// CURLOPT_CONNECTTIMEOUT_MS.
    let connect: Duration
    /// CURLOPT_TIMEOUT_MS.
    let total: Duration
    /// The whole budget, when what is left of it (not the transport's own limit) bounds
    /// ``total``; nil otherwise.
    let budgetTotal: Duration?
    /// Whether what is left of the budget bounds ``connect`` too.
    let budgetBoundsConnect: Bool

    init(configuration: HTTPTransportConfiguration, budget: TimeBudget?) {
        let remaining = budget.map { max($0.remaining, .milliseconds(1)) }
        if let remaining, remaining < configuration.totalTimeout {
            total = remaining
            budgetTotal = budget?.total
        } else {
            total = configuration.totalTimeout
            budgetTotal = nil
        }
        if let remaining, remaining < configuration.connectTimeout {
            connect = remaining
            budgetBoundsConnect = true
        } else {
            connect = min(configuration.connectTimeout, total)
            budgetBoundsConnect = false
        }
    }
}

/// The parts of an absolute http(s) URL the transport reads (for the proxy choice and the
/// messages), as ``URLReference`` parses them: the project's one URL parser.
struct RequestTarget {
    let url: String
    /// "http" or "https", lower-cased.
    let scheme: String
    /// The host as written, without the brackets of an IPv6 literal ("::1").
    let host: String
    /// The port, given or the scheme's default.
    let port: Int

    /// The parts of `url`, or nil when it is not an absolute http or https URL with a host
    /// under RFC 3986.
    init?(_ url: String) {
        guard let parts = URLReference.parse(url), let scheme = parts.scheme, scheme == "http" || scheme == "https",
              let host = parts.bareHost, !host.isEmpty, let port = parts.portOrDefault else { return nil }
        self.url = url
        self.scheme = scheme
        self.host = host
        self.port = port
    }
}
