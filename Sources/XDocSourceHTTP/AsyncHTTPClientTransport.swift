import AsyncHTTPClient
import NIOCore
import NIOSSL
import XDocSource

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// ``HTTPTransport`` over swift-server/async-http-client.
///
/// Every client it makes never follows redirects, never decompresses, never retries a failed
/// connection (so a refused connection or a bad certificate fails at once rather than after
/// the connect time-out), and trusts the roots of its ``HTTPTransportConfiguration``. AsyncHTTPClient
/// takes one proxy per client, so the transport keeps one client per proxy in use (and one
/// direct), each made on first use.
///
/// Call ``shutdown()`` when done; a transport dropped without it shuts its clients down in the
/// background.
public final class AsyncHTTPClientTransport: HTTPTransport, @unchecked Sendable {
    /// What the transport was made with.
    public let configuration: HTTPTransportConfiguration

    // The clients by proxy (nil key: direct); guarded by `lock`.
    private var clients: [ProxySettings.Server?: HTTPClient] = [:]
    private var isShutDown = false
    private let lock = Lock()

    /// Makes a transport; no client (and no connection) exists until the first request.
    public init(configuration: HTTPTransportConfiguration = .fromEnvironment()) {
        self.configuration = configuration
    }

    deinit {
        // AsyncHTTPClient insists on a shutdown before its client goes; the future keeps the
        // client alive until it is done.
        for client in clients.values { _ = client.shutdown() }
    }

    /// Shuts every client down, closing idle connections. Requests after this fail with
    /// ``FetchError/Kind/network``.
    public func shutdown() async {
        let toClose: [HTTPClient] = lock.withLock {
            isShutDown = true
            defer { clients = [:] }
            return Array(clients.values)
        }
        for client in toClose { try? await client.shutdown() }
    }

    /// Performs one GET; see ``HTTPTransport/get(_:maximumBodySize:)``.
    public func get(_ request: HTTPRequest, maximumBodySize: Int) async throws(FetchError) -> HTTPResponse {
        let url = request.url
        guard let target = RequestTarget(url) else {
            throw FetchError(.invalidURL, url: url, message: "not an absolute http or https URL")
        }
        let client: HTTPClient
        do {
            client = try self.client(for: target)
        } catch let error as FetchError {
            throw error
        } catch {
            throw FetchError(.network, url: url, message: "\(error)")
        }
        let total = configuration.totalTimeout
        do {
            return try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
                group.addTask {
                    try await Self.perform(request, on: client, maximumBodySize: maximumBodySize, timeout: total)
                }
                group.addTask {
                    try await Task.sleep(for: total)
                    throw TotalTimeoutPassed()
                }
                defer { group.cancelAll() }
                guard let response = try await group.next() else { throw TotalTimeoutPassed() }
                return response
            }
        } catch {
            // A refused body or a time-out leaves its connection open with the rest of the body
            // unread; AsyncHTTPClient neither closes it nor lets us, so that client goes (with its
            // connections) and the next request gets a new one. Only failures pay this.
            if error is BodyTooLarge || error is TotalTimeoutPassed { await discard(client) }
            throw TransportErrors.fetchError(for: error, url: url, host: target.host,
                                             configuration: configuration)
        }
    }

    /// Shuts `client` down and forgets it, closing whatever connection it still holds.
    private func discard(_ client: HTTPClient) async {
        lock.withLock {
            if let key = clients.first(where: { $0.value === client })?.key { clients[key] = nil }
        }
        try? await client.shutdown()
    }

    /// The client for `target`: direct or through the proxy its scheme and host call for.
    private func client(for target: RequestTarget) throws -> HTTPClient {
        var proxy: ProxySettings.Server?
        if let text = configuration.proxy.proxy(scheme: target.scheme, host: target.host) {
            guard let server = ProxySettings.Server(parsing: text) else {
                throw FetchError(.network, url: target.url,
                                 message: "the proxy \"\(text)\" is not of the form http://host:port")
            }
            proxy = server
        }
        return try lock.withLock {
            if isShutDown {
                throw FetchError(.network, url: target.url, message: "the HTTP transport is shut down")
            }
            if let client = clients[proxy] { return client }
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                                    configuration: try Self.clientConfiguration(configuration, proxy: proxy))
            clients[proxy] = client
            return client
        }
    }

    /// AsyncHTTPClient's configuration for one client.
    static func clientConfiguration(_ configuration: HTTPTransportConfiguration,
                                    proxy: ProxySettings.Server?) throws -> HTTPClient.Configuration {
        var tls = TLSConfiguration.makeClientConfiguration()
        // Closing a TLS connection would otherwise wait up to 5 s for the server's close_notify,
        // reading (and discarding) whatever the server still sends: for a refused oversized
        // body, possibly all of it. We never reuse a closed connection, so close at once.
        tls.shutdownTimeout = .zero
        switch configuration.trustRoots {
        case .system:
            break
        case .pemFile(let path):
            tls.trustRoots = .file(path)
        }
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.retryConnectionEstablishment = false
        var ahcProxy: HTTPClient.Configuration.Proxy?
        if let proxy {
            var authorization: HTTPClient.Authorization?
            if let user = proxy.user {
                authorization = .basic(username: user, password: proxy.password ?? "")
            }
            ahcProxy = .server(host: proxy.host, port: proxy.port, authorization: authorization)
        }
        var result = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(configuration.connectTimeout),
                           read: TimeAmount(configuration.totalTimeout)),
            connectionPool: pool,
            proxy: ahcProxy,
            decompression: .disabled)
        result.httpVersion = .automatic
        return result
    }

    /// One GET on `client`: head within `timeout`, then the body with a running count.
    private static func perform(_ request: HTTPRequest, on client: HTTPClient, maximumBodySize: Int,
                                timeout: Duration) async throws -> HTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = .GET
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        let response = try await client.execute(outgoing, timeout: TimeAmount(timeout))
        let status = Int(response.status.code)
        let headers = response.headers.map { HTTPHeader(name: $0.name, value: $0.value) }
        // Redirects and 304 are handed back without their body (dropping it ends the request).
        if (300..<400).contains(status) {
            return HTTPResponse(status: status, headers: headers, body: [])
        }
        let declared = response.headers.first(name: "content-length").flatMap { Int($0.trimmingSpaces) }
        if let declared, declared > maximumBodySize {
            // Cancel the request while its body is awaited: AsyncHTTPClient then closes the
            // connection. Dropping the unread body instead leaves the connection open, and
            // sometimes read to its end.
            await Self.abandon(response.body)
            throw BodyTooLarge(declared: declared, limit: maximumBodySize)
        }
        var body: [UInt8] = []
        body.reserveCapacity(min(declared ?? 0, maximumBodySize))
        var chunks = response.body.makeAsyncIterator()
        while let chunk = try await chunks.next() {
            guard body.count + chunk.readableBytes <= maximumBodySize else {
                await Self.abandon(&chunks)
                throw BodyTooLarge(declared: nil, limit: maximumBodySize)
            }
            body.append(contentsOf: chunk.readableBytesView)
        }
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// Ends a request whose body will not be read: cancels the current task, then waits once
    /// on the body, which AsyncHTTPClient answers by cancelling the request and closing its
    /// connection (the caller throws right after, so the cancellation reaches no one else).
    private static func abandon(_ body: HTTPClientResponse.Body) async {
        var chunks = body.makeAsyncIterator()
        await abandon(&chunks)
    }

    private static func abandon(_ chunks: inout HTTPClientResponse.Body.AsyncIterator) async {
        withUnsafeCurrentTask { $0?.cancel() }
        _ = try? await chunks.next()
    }
}

/// The scheme and host of an absolute http(s) URL, as the proxy choice needs them.
struct RequestTarget {
    let url: String
    let scheme: String
    let host: String

    init?(_ url: String) {
        guard let (scheme, afterScheme) = splitScheme(Substring(url)),
              scheme == "http" || scheme == "https" else { return nil }
        var authority = afterScheme
        if let end = authority.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            authority = authority[..<end]
        }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
        }
        guard !host.isEmpty else { return nil }
        self.url = url
        self.scheme = scheme
        self.host = String(host)
    }
}

/// The body is (or declares itself) larger than the caller's limit.
struct BodyTooLarge: Error {
    let declared: Int?
    let limit: Int
}

/// The transport's own total time-out passed.
struct TotalTimeoutPassed: Error {}

/// A pthread mutex (NSLock would pull in Foundation; Mutex needs macOS 15).
final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
