#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// An appInfo.json list as fetched: the parsed list, the URL relative `src` values resolve
/// against, and how it was had.
public struct FetchedAppInfo: Sendable, Equatable {
    /// The parsed list.
    public var appInfo: AppInfo
    /// The URL the list came from after redirects (`file:` for a local file): the base of `src`.
    public var url: String
    /// Whether the body came from the disk cache (fresh, revalidated by a 304, or `--offline`).
    public var fromCache: Bool
    /// HTTP requests made for it (0 for a local file or a fresh cache entry).
    public var requests: Int
}

/// An icon's bytes as fetched (not yet decoded or masked), with what identifies them.
public struct FetchedIcon: Sendable, Equatable {
    /// The image file's bytes (a PNG, normally).
    public var bytes: [UInt8]
    /// The icon's URL after redirects (`file:` for a local file).
    public var url: String
    /// The entry chosen from the list (SPEC §3 choice rule).
    public var entry: AppInfo.Icon
    /// The appInfo.json's URL after redirects.
    public var appInfoURL: String
    /// The server's `ETag`, else its `Last-Modified`, of the icon; nil for a local file or
    /// when the server sent neither. With ``url`` it names this version of the image (a key
    /// for caching derived results).
    public var validator: String?
    /// Whether the icon's body came from the disk cache.
    public var fromCache: Bool
    /// HTTP requests made for the list and the icon together.
    public var requests: Int
}

/// Fetches appInfo.json lists and icons under the SPEC §3 network policy, through the disk
/// cache (RFC 9111 as a private cache).
///
/// Remote fetches (`https`, or `http` when allowed):
/// - Redirects (301, 302, 303, 307, 308) are followed here, at most
///   ``FetchPolicy/maxRedirects``, each `Location` resolved against the current URL, never
///   from https to http and never to another scheme.
/// - Only 200 is a success (and 304 when revalidating); any other status fails with
///   ``FetchError/Kind/httpStatus`` naming it.
/// - Bodies are bounded by the policy's limits, passed to the transport.
///
/// The cache stores the final 200 response under the URL first asked for (fragment
/// removed), remembering the URL it came from after redirects; redirects themselves are not
/// stored, so a fresh entry costs no request at all, and a revalidation follows the redirects
/// again and sends `If-None-Match` / `If-Modified-Since` to the URL the entry came from.
/// A failed revalidation (network down) fails the fetch; `--offline` is the way to use a
/// stale entry. A cache folder that cannot be written is reported once in ``warnings`` and
/// the fetch goes on without storing.
///
/// Local files (only from ``AppInfoLocation/commandLine(_:)`` and
/// ``AppInfoLocation/currentFolder``): the list is read from disk, and each `file:` `src`
/// must resolve, symbolic links included, inside the list's folder. A local list may name
/// `https` icons (under the same network policy); a remote list may never name `file:` ones.
public actor AppInfoFetcher {
    private let transport: (any HTTPTransport)?
    private let policy: FetchPolicy
    private let cache: CacheSettings?
    private let store: HTTPCacheStore?
    private let now: @Sendable () -> Int64
    private var cacheWritable = true
    private var cleanedTemporaries = false

    /// Problems that did not stop a fetch, one line each (a cache folder that cannot be
    /// written), for the caller to print as warnings.
    public private(set) var warnings: [String] = []

    /// A fetcher using `transport` for HTTP (nil: no network; a remote URL then fails with
    /// ``FetchError/Kind/network``), `policy`, and the disk cache `cache` (nil: none, as
    /// ``CacheSettings/Mode/bypass``). `now` is the clock in seconds since 1970, injectable
    /// for tests.
    public init(transport: (any HTTPTransport)?, policy: FetchPolicy = FetchPolicy(), cache: CacheSettings?,
                now: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }) {
        self.transport = transport
        self.policy = policy
        self.cache = cache
        self.store = cache.map { HTTPCacheStore(directory: $0.directory) }
        self.now = now
    }

    // MARK: The list

    /// Reads the appInfo.json at `location` and parses it.
    /// - Throws: ``FetchError``: the policy's refusals, I/O and network failures,
    ///   ``FetchError/Kind/malformedAppInfo``.
    public func appInfo(at location: AppInfoLocation) async throws(FetchError) -> FetchedAppInfo {
        try await loadAppInfo(location).fetched
    }

    /// Fetches the list at `location`, chooses the icon for `pixelSize` (SPEC §3) and fetches it.
    /// - Throws: ``FetchError``, ``FetchError/Kind/noIcon`` when the list has no usable entry.
    public func iconImage(pixelSize: Int, from location: AppInfoLocation) async throws(FetchError) -> FetchedIcon {
        let (list, localFolder) = try await loadAppInfo(location)
        guard let entry = list.appInfo.icon(forPixelSize: pixelSize) else {
            throw FetchError(.noIcon, url: list.url, message: "the icon list has no usable entry")
        }
        let target: String
        if let folder = localFolder {
            switch URLReference.resolveLocal(entry.src, inFolder: folder) {
            case nil:
                throw FetchError(.invalidURL, url: entry.src, message: "the icon's src is not a usable path or URL")
            case .path(let path):
                let real = try insideFolder(path, folder: folder)
                let bytes = try FetcherLocalFiles.read(real, limit: policy.maximumIconSize, what: "an icon", noFollow: true)
                return FetchedIcon(bytes: bytes, url: FetcherLocalFiles.fileURL(path), entry: entry, appInfoURL: list.url,
                                   validator: nil, fromCache: false, requests: list.requests)
            case .url(let url):
                target = url
            }
        } else {
            guard let resolved = URLReference.resolve(entry.src, against: list.url) else {
                throw FetchError(.invalidURL, url: entry.src, message: "the icon's src cannot be resolved against \(list.url)")
            }
            target = resolved
            if FetcherLocalFiles.scheme(of: target) == "file" {
                throw FetchError(.refused, url: target, message: "a remote icon list may not name a local file")
            }
        }
        try checkRemote(target)
        let resource = try await fetchRemote(target, limit: policy.maximumIconSize)
        return FetchedIcon(bytes: resource.body, url: resource.url, entry: entry, appInfoURL: list.url,
                           validator: resource.validator, fromCache: resource.fromCache,
                           requests: list.requests + resource.requests)
    }

    /// The list, and for a local one its folder with symbolic links resolved.
    private func loadAppInfo(_ location: AppInfoLocation) async throws(FetchError) -> (fetched: FetchedAppInfo, folder: String?) {
        switch location {
        case .currentFolder:
            return try readLocalAppInfo("./appInfo.json")
        case .commandLine(let text):
            switch FetcherLocalFiles.scheme(of: text) {
            case nil:
                return try readLocalAppInfo(text)
            case "file":
                guard let path = FetcherLocalFiles.path(ofFileURL: text) else {
                    throw FetchError(.invalidURL, url: text, message: "not a local file: URL (file:///path)")
                }
                return try readLocalAppInfo(path)
            default:
                return (try await remoteAppInfo(text), nil)
            }
        case .attribute(let text):
            switch FetcherLocalFiles.scheme(of: text) {
            case nil:
                throw FetchError(.refused, url: text, message: "an attribute's appInfoURL must be an https URL, not a local path")
            case "file":
                throw FetchError(.refused, url: text, message: "a file: URL from an attribute is refused; give a local appInfo.json with --app-info")
            default:
                return (try await remoteAppInfo(text), nil)
            }
        }
    }

    private func remoteAppInfo(_ url: String) async throws(FetchError) -> FetchedAppInfo {
        try checkRemote(url)
        let resource = try await fetchRemote(url, limit: policy.maximumAppInfoSize)
        let list = try AppInfo(json: resource.body, source: resource.url)
        return FetchedAppInfo(appInfo: list, url: resource.url, fromCache: resource.fromCache, requests: resource.requests)
    }

    private func readLocalAppInfo(_ path: String) throws(FetchError) -> (fetched: FetchedAppInfo, folder: String?) {
        let (folderPart, name) = FetcherLocalFiles.split(path)
        let bytes = try FetcherLocalFiles.read(path, limit: policy.maximumAppInfoSize, what: "appInfo.json")
        let folder = try FetcherLocalFiles.realPath(folderPart)
        let url = FetcherLocalFiles.fileURL((folder == "/" ? "" : folder) + "/" + name)
        let list = try AppInfo(json: bytes, source: path)
        return (FetchedAppInfo(appInfo: list, url: url, fromCache: false, requests: 0), folder)
    }

    /// `path` with symbolic links resolved, after checking it stays in `folder` (a real
    /// path): first as written (a `..` that climbs out is refused), then resolved.
    private func insideFolder(_ path: String, folder: String) throws(FetchError) -> String {
        let prefix = folder == "/" ? "/" : folder + "/"
        let outside = FetchError(.refused, url: path, message: "the icon's src leads outside the appInfo.json's folder")
        guard path.hasPrefix(prefix), !path.split(separator: "/").contains("..") else { throw outside }
        let real = try FetcherLocalFiles.realPath(path)
        guard real.hasPrefix(prefix) else { throw outside }
        return real
    }

    // MARK: Remote fetches and the cache

    /// Refuses what the policy does not allow as a remote URL.
    private func checkRemote(_ url: String) throws(FetchError) {
        switch FetcherLocalFiles.scheme(of: url) {
        case "https": break
        case "http":
            guard policy.allowHTTP else {
                throw FetchError(.refused, url: url, message: "plain http is not allowed; use https")
            }
        case "file":
            throw FetchError(.refused, url: url, message: "a file: URL is only accepted when given on the command line")
        case let scheme?:
            throw FetchError(.refused, url: url, message: "the URL scheme \(scheme): is not supported; use https")
        case nil:
            throw FetchError(.invalidURL, url: url, message: "not an absolute URL")
        }
        // "https://" then a host.
        let afterScheme = url.drop(while: { $0 != ":" }).dropFirst()
        guard afterScheme.hasPrefix("//"), let first = afterScheme.dropFirst(2).first, first != "/", first != "?", first != "#" else {
            throw FetchError(.invalidURL, url: url, message: "the URL has no host")
        }
    }

    /// A body had over the network or from the cache.
    private struct Resource {
        var body: [UInt8]
        var url: String
        var validator: String?
        var fromCache: Bool
        var requests: Int
    }

    private func fetchRemote(_ requested: String, limit: Int) async throws(FetchError) -> Resource {
        let key = URLReference.removingFragment(requested)
        guard let cache, let store, cache.mode != .bypass else {
            switch try await follow(key, limit: limit, revalidating: nil) {
            case .ok(let url, let response, let requests):
                return Resource(body: response.body, url: url, validator: validator(response.headers), fromCache: false, requests: requests)
            case .notModified:  // follow() only returns it for a conditional request
                throw FetchError(.httpStatus, url: key, message: "the server answered HTTP 304 to a request that was not conditional", httpStatus: 304)
            }
        }
        let stored = store.read(key, maximumBodySize: limit)
        if cache.mode == .offline {
            guard let stored else {
                throw FetchError(.notCached, url: key, message: "not in the cache, and --offline allows no request")
            }
            return Resource(body: stored.body, url: stored.finalURL, validator: stored.validator, fromCache: true, requests: 0)
        }
        if let stored, stored.isFresh(now: now()) {
            return Resource(body: stored.body, url: stored.finalURL, validator: stored.validator, fromCache: true, requests: 0)
        }
        let requestTime = now()
        let outcome = try await follow(key, limit: limit, revalidating: stored)
        let responseTime = now()
        switch outcome {
        case .notModified(let response, let requests):
            let entry = stored!.refreshed(by: response, requestTime: requestTime, responseTime: responseTime)
            if HTTPCacheEntry.mayStore(entry.headers) { save(entry, in: store) } else { store.remove(key) }
            return Resource(body: entry.body, url: entry.finalURL, validator: entry.validator, fromCache: true, requests: requests)
        case .ok(let url, let response, let requests):
            if HTTPCacheEntry.mayStore(response.headers) {
                save(HTTPCacheEntry(requestURL: key, finalURL: url, headers: response.headers,
                                    requestTime: requestTime, responseTime: responseTime, body: response.body), in: store)
            } else if stored != nil {
                store.remove(key)
            }
            return Resource(body: response.body, url: url, validator: validator(response.headers), fromCache: false, requests: requests)
        }
    }

    private func validator(_ headers: [HTTPHeader]) -> String? {
        let response = HTTPResponse(status: 200, headers: headers, body: [])
        return response.header("ETag") ?? response.header("Last-Modified")
    }

    /// Stores `entry`, or on failure gives up caching for this fetcher with one warning.
    private func save(_ entry: HTTPCacheEntry, in store: HTTPCacheStore) {
        guard cacheWritable else { return }
        do throws(Errno) {
            try store.write(entry)
            if !cleanedTemporaries {
                cleanedTemporaries = true
                store.removeStaleTemporaries(now: now())
            }
        } catch {
            cacheWritable = false
            warnings.append("\(store.directory): \(error.words); fetching without caching")
        }
    }

    private enum Outcome {
        case ok(url: String, response: HTTPResponse, requests: Int)
        case notModified(response: HTTPResponse, requests: Int)
    }

    /// GETs `start`, following redirects under the policy; when `entry` is given, the request
    /// to the URL it came from carries its conditional headers.
    private func follow(_ start: String, limit: Int, revalidating entry: HTTPCacheEntry?) async throws(FetchError) -> Outcome {
        guard let transport else {
            throw FetchError(.network, url: start, message: "no HTTP transport: this program cannot fetch over the network")
        }
        var current = start
        var requests = 0
        var redirects = 0
        while true {
            let conditional = entry.map { $0.finalURL == current ? $0.conditionalHeaders : [] } ?? []
            let response = try await transport.get(HTTPRequest(url: current, headers: conditional), maximumBodySize: limit)
            requests += 1
            switch response.status {
            case 200:
                guard response.body.count <= limit else {
                    throw FetchError(.tooLarge, url: current, message: "the body is over the \(FetcherLocalFiles.sizeInWords(limit)) limit")
                }
                return .ok(url: current, response: response, requests: requests)
            case 304 where !conditional.isEmpty:
                return .notModified(response: response, requests: requests)
            case 301, 302, 303, 307, 308:
                guard let location = response.header("Location")?.httpTrimmed, !location.isEmpty else {
                    throw FetchError(.tooManyRedirects, url: current, message: "a redirect (HTTP \(response.status)) without a Location")
                }
                redirects += 1
                guard redirects <= policy.maxRedirects else {
                    throw FetchError(.tooManyRedirects, url: start, message: "more than \(policy.maxRedirects) redirects")
                }
                guard let next = URLReference.resolve(location, against: current) else {
                    throw FetchError(.tooManyRedirects, url: current, message: "a redirect to an unusable Location \(location)")
                }
                let target = URLReference.removingFragment(next)
                if FetcherLocalFiles.scheme(of: current) == "https" && FetcherLocalFiles.scheme(of: target) == "http" {
                    throw FetchError(.insecureRedirect, url: current, message: "a redirect from https to http (\(target)) is refused")
                }
                try checkRemote(target)
                current = target
            default:
                throw FetchError(.httpStatus, url: current, message: "the server answered HTTP \(response.status)\(HTTPStatusText.reason(response.status))",
                                 httpStatus: response.status)
            }
        }
    }
}

/// Reason phrases for the statuses people meet, to make an error line readable.
enum HTTPStatusText {
    /// " Not Found" for 404, "" for a status without a known phrase.
    static func reason(_ status: Int) -> String {
        switch status {
        case 304: " Not Modified (to a request that was not conditional)"
        case 400: " Bad Request"
        case 401: " Unauthorized"
        case 403: " Forbidden"
        case 404: " Not Found"
        case 410: " Gone"
        case 429: " Too Many Requests"
        case 500: " Internal Server Error"
        case 502: " Bad Gateway"
        case 503: " Service Unavailable"
        case 504: " Gateway Timeout"
        default: ""
        }
    }
}
