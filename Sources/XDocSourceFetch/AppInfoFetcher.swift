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
///   from https to http (``FetchError/Kind/insecureRedirect``) and never to a URL the policy
///   refuses as a remote one: another scheme, a URL without a host
///   (``FetchError/Kind/redirectRefused``).
/// - Only 200 is a success (and 304 when revalidating); any other status fails with
///   ``FetchError/Kind/httpStatus`` naming it.
/// - Bodies are bounded by the policy's limits, passed to the transport.
///
/// The cache stores the response of each URL asked for, hop by hop (fragment removed): a
/// 200 with its body, or a redirect with its `Location`. A fresh entry costs no request; a
/// stale 200 is revalidated with `If-None-Match` / `If-Modified-Since`; a temporary redirect
/// (302, 303, 307) is asked again unless its own response gave it explicit freshness,
/// while the entry of its target may still be fresh. Hop-by-hop and `Proxy-*` headers are
/// not stored; `Vary: *` is never reused without asking. A failed revalidation (network
/// down) fails the fetch; ``CacheSettings/Mode/offline`` is the way to use a stale entry.
/// A cache folder that cannot be written is reported once in ``warnings`` and the fetch
/// goes on without storing.
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
        try await loadAppInfo(location, deadline: Deadline(policy.timeBudget)).fetched
    }

    /// Fetches the list at `location`, chooses the icon for `pixelSize` (SPEC §3) and fetches it.
    /// - Throws: ``FetchError``, ``FetchError/Kind/noIcon`` when the list has no usable entry.
    public func iconImage(pixelSize: Int, from location: AppInfoLocation) async throws(FetchError) -> FetchedIcon {
        // One budget for the list, its redirects and the icon (SPEC §3), not one per request.
        let deadline = Deadline(policy.timeBudget)
        let (list, localFolder) = try await loadAppInfo(location, deadline: deadline)
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
            if URLReference.scheme(of: target) == "file" {
                throw FetchError(.refused, url: target, message: "a remote icon list may not name a local file")
            }
        }
        try policy.checkRemote(target)
        let resource = try await fetchRemote(target, limit: policy.maximumIconSize, deadline: deadline)
        return FetchedIcon(bytes: resource.body, url: resource.url, entry: entry, appInfoURL: list.url,
                           validator: resource.validator, fromCache: resource.fromCache,
                           requests: list.requests + resource.requests)
    }

    /// The icon for `pixelSize` from whatever the cache holds, without a request and whatever
    /// the entries' age (`xds icon --any-cached`, `xds show --icon`): the list from the cache
    /// (as ``CacheSettings/Mode/offline`` reads it), then, of its entries whose image is cached,
    /// an exact `pixelSize` one, else the smallest larger one (to be scaled down), else the
    /// largest smaller one (scaled up only when no larger one is cached). A local list
    /// (``AppInfoLocation/commandLine(_:)``, ``AppInfoLocation/currentFolder``) is read as
    /// ``iconImage(pixelSize:from:)`` reads it: that makes no request either.
    /// - Throws: ``FetchError/Kind/notCached`` when neither the list nor any icon of it is
    ///   cached (or there is no cache), ``FetchError/Kind/noIcon`` when the list has no
    ///   usable entry, and the policy's refusals.
    public func anyCachedIconImage(pixelSize: Int, from location: AppInfoLocation) async throws(FetchError) -> FetchedIcon {
        let url: String
        switch location {
        case .currentFolder:
            return try await iconImage(pixelSize: pixelSize, from: location)
        case .commandLine(let text):
            if URLReference.scheme(of: text) == nil || URLReference.scheme(of: text) == "file" {
                return try await iconImage(pixelSize: pixelSize, from: location)
            }
            url = text
        case .attribute(let text):
            try refuseLocal(attribute: text)
            url = text
        }
        try policy.checkRemote(url)
        guard let store, cache?.mode != .bypass else {
            throw FetchError(.notCached, url: url, message: "there is no cache to read (no request is made)")
        }
        let deadline = Deadline(policy.timeBudget)
        let resource = try await fetchRemote(url, limit: policy.maximumAppInfoSize, deadline: deadline,
                                             store: store, offline: true)
        let list = FetchedAppInfo(appInfo: try AppInfo(json: resource.body, source: resource.url), url: resource.url,
                                  fromCache: true, requests: 0)
        guard !list.appInfo.icons.isEmpty else {
            throw FetchError(.noIcon, url: list.url, message: "the icon list has no usable entry")
        }
        let n = pixelSize
        let larger = list.appInfo.icons.enumerated().filter { $0.element.width >= n && $0.element.height >= n }
            .sorted { ($0.element.area, $0.offset) < ($1.element.area, $1.offset) }
        let smaller = list.appInfo.icons.enumerated().filter { !($0.element.width >= n && $0.element.height >= n) }
            .sorted { ($1.element.area, $0.offset) < ($0.element.area, $1.offset) }
        var exact = larger.filter { $0.element.width == n && $0.element.height == n }
        exact.sort { $0.offset < $1.offset }
        for (_, entry) in exact + larger + smaller {
            guard let target = URLReference.resolve(entry.src, against: list.url),
                  URLReference.scheme(of: target) != "file", (try? policy.checkRemote(target)) != nil else { continue }
            do throws(FetchError) {
                let resource = try await fetchRemote(target, limit: policy.maximumIconSize, deadline: deadline,
                                                     store: store, offline: true)
                return FetchedIcon(bytes: resource.body, url: resource.url, entry: entry, appInfoURL: list.url,
                                   validator: resource.validator, fromCache: true, requests: 0)
            } catch where error.kind == .notCached {
                continue
            }
        }
        throw FetchError(.notCached, url: list.url, message: "no icon of the list is in the cache (no request is made)")
    }

    /// The list, and for a local one its folder with symbolic links resolved.
    private func loadAppInfo(_ location: AppInfoLocation,
                             deadline: Deadline) async throws(FetchError) -> (fetched: FetchedAppInfo, folder: String?) {
        switch location {
        case .currentFolder:
            return try readLocalAppInfo("./appInfo.json")
        case .commandLine(let text):
            switch URLReference.scheme(of: text) {
            case nil:
                return try readLocalAppInfo(text)
            case "file":
                guard let path = FetcherLocalFiles.path(ofFileURL: text) else {
                    throw FetchError(.invalidURL, url: text, message: "not a local file: URL (file:///path)")
                }
                return try readLocalAppInfo(path)
            default:
                return (try await remoteAppInfo(text, deadline: deadline), nil)
            }
        case .attribute(let text):
            try refuseLocal(attribute: text)
            return (try await remoteAppInfo(text, deadline: deadline), nil)
        }
    }

    private func remoteAppInfo(_ url: String, deadline: Deadline) async throws(FetchError) -> FetchedAppInfo {
        try policy.checkRemote(url)
        let resource = try await fetchRemote(url, limit: policy.maximumAppInfoSize, deadline: deadline)
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
        // Bytes, not String comparison: Swift compares Strings by canonical equivalence and
        // splits them by grapheme, so a folder "café" (NFC) would "contain" a sibling
        // "cafe\u{301}" (NFD), and "/" followed by a combining mark would not split.
        let dotDot = Array("..".utf8)
        guard Array(path.utf8).starts(with: prefix.utf8),
              !Array(path.utf8).split(separator: UInt8(ascii: "/")).contains(where: { $0.elementsEqual(dotDot) })
        else { throw outside }
        let real = try FetcherLocalFiles.realPath(path)
        guard Array(real.utf8).starts(with: prefix.utf8) else { throw outside }
        return real
    }

    // MARK: Remote fetches and the cache

    /// A body had over the network or from the cache.
    private struct Resource {
        var body: [UInt8]
        var url: String
        var validator: String?
        var fromCache: Bool
        var requests: Int
    }

    /// GETs `requested` through the cache, one hop at a time: each URL asked for has its own
    /// entry (a 200 or a redirect). A hop's fresh entry is used without a request; a stale
    /// 200 is revalidated with its validators; anything else is asked for. Redirects, fresh
    /// or new, are followed under the policy.
    private func fetchRemote(_ requested: String, limit: Int, deadline: Deadline) async throws(FetchError) -> Resource {
        let mode = cache?.mode ?? .bypass
        return try await fetchRemote(requested, limit: limit, deadline: deadline,
                                     store: mode == .bypass ? nil : self.store, offline: mode == .offline)
    }

    /// ``fetchRemote(_:limit:deadline:)`` with the store and whether it is read offline given.
    private func fetchRemote(_ requested: String, limit: Int, deadline: Deadline, store: HTTPCacheStore?,
                             offline: Bool) async throws(FetchError) -> Resource {
        let start = URLReference.removingFragment(requested)
        var current = start
        var requests = 0
        var redirects = 0
        while true {
            let stored = store?.read(current, maximumBodySize: limit)
            let answer: HTTPCacheEntry
            var fromCache = true
            if offline {
                guard let stored else {
                    throw FetchError(.notCached, url: start, message: "not in the cache, and the cache is used offline (no request)")
                }
                guard !stored.variesOnEverything else {
                    throw FetchError(.notCached, url: start,
                                     message: "the cached response may not be reused without asking the server (Vary: *), and the cache is used offline (no request)")
                }
                answer = stored
            } else if let stored, stored.isFresh(now: now()) {
                answer = stored
            } else {
                (answer, fromCache) = try await ask(current, stored: stored, limit: limit, store: store, deadline: deadline)
                requests += 1
            }
            guard answer.isRedirect else {
                return Resource(body: answer.body, url: current, validator: answer.validator, fromCache: fromCache, requests: requests)
            }
            current = try redirectTarget(of: answer, from: current, start: start, count: &redirects)
        }
    }

    /// Makes one request for `url` (conditional when `stored` is a 200 with validators),
    /// stores what the answer allows, and returns the hop's answer as an entry, with whether
    /// its body is the stored one (a 304).
    private func ask(_ url: String, stored: HTTPCacheEntry?, limit: Int, store: HTTPCacheStore?,
                     deadline: Deadline) async throws(FetchError) -> (HTTPCacheEntry, fromCache: Bool) {
        guard let transport else {
            throw FetchError(.network, url: url, message: "no HTTP transport: this program cannot fetch over the network")
        }
        let conditional = stored.map { $0.isRedirect ? [] : $0.conditionalHeaders } ?? []
        let budget = deadline.budget()
        guard budget.remaining > .zero else {
            throw FetchError(.timedOut, url: url,
                             message: "not asked: the \(Deadline.words(budget.total)) for the whole fetch (list, redirects and icon) ran out")
        }
        let requestTime = now()
        let response = try await transport.get(HTTPRequest(url: url, headers: conditional, timeBudget: budget),
                                               maximumBodySize: limit)
        let responseTime = max(now(), requestTime)
        let answer: HTTPCacheEntry
        switch response.status {
        case 200:
            guard response.body.count <= limit else {
                throw FetchError(.tooLarge, url: url, message: "the body is over the \(ByteCount.words(limit)) limit")
            }
            answer = HTTPCacheEntry(requestURL: url, status: 200, headers: HTTPCacheEntry.storable(response.headers),
                                    requestTime: requestTime, responseTime: responseTime, body: response.body)
        case 304 where !conditional.isEmpty:
            answer = stored!.refreshed(by: response, requestTime: requestTime, responseTime: responseTime)
        case 301, 302, 303, 307, 308:
            answer = HTTPCacheEntry(requestURL: url, status: response.status, headers: HTTPCacheEntry.storable(response.headers),
                                    requestTime: requestTime, responseTime: responseTime, body: [])
        default:
            throw FetchError(.httpStatus, url: url, message: "the server answered HTTP \(response.status)\(HTTPStatusText.reason(response.status))",
                             httpStatus: response.status)
        }
        if let store {
            // A temporary redirect without explicit freshness is stored too (never fresh: the
            // next run asks again), so that offline use can follow it.
            if HTTPCacheEntry.mayStore(answer.headers) && answer.isPossible {
                save(answer, in: store)
            } else if stored != nil {
                store.remove(url)
            }
        }
        return (answer, response.status == 304)
    }

    /// The next URL of a redirect `entry` answered for `current`, under the policy: at most
    /// ``FetchPolicy/maxRedirects`` in all, never from https to http, never to a URL the
    /// policy refuses (a failed fetch, ``FetchError/Kind/redirectRefused``).
    private func redirectTarget(of entry: HTTPCacheEntry, from current: String, start: String,
                                count: inout Int) throws(FetchError) -> String {
        guard let location = entry.header("Location")?.httpTrimmed, !location.isEmpty else {
            throw FetchError(.tooManyRedirects, url: current, message: "a redirect (HTTP \(entry.status)) without a Location")
        }
        count += 1
        guard count <= policy.maxRedirects else {
            throw FetchError(.tooManyRedirects, url: start, message: "more than \(policy.maxRedirects) redirects")
        }
        guard let next = URLReference.resolve(location, against: current) else {
            throw FetchError(.redirectRefused, url: current, message: "the redirect to \(FetchPolicy.shortened(location)) is refused: not a usable URL")
        }
        let target = URLReference.removingFragment(next)
        try policy.checkRedirect(from: current, to: target)
        return target
    }

    /// Stores `entry`, or on failure gives up caching for this fetcher with one warning that
    /// names the path the system refused (the cache folder, or the entry's own path).
    private func save(_ entry: HTTPCacheEntry, in store: HTTPCacheStore) {
        guard cacheWritable else { return }
        do throws(HTTPCacheStore.WriteFailure) {
            try store.write(entry)
            if !cleanedTemporaries {
                cleanedTemporaries = true
                store.removeStaleTemporaries(now: now())
            }
        } catch {
            cacheWritable = false
            warnings.append("\(error.path): \(error.error.words); fetching without caching")
        }
    }
}

/// When one fetch's time budget (``FetchPolicy/timeBudget``) runs out, on the monotonic clock.
struct Deadline: Sendable {
    let end: ContinuousClock.Instant
    let total: Duration

    /// A budget of `total` from now.
    init(_ total: Duration) {
        self.total = total
        let now = ContinuousClock.now
        // A budget too large for the clock (Duration's range is wider) counts as no limit.
        end = total > .seconds(Int64.max / 4) ? now + .seconds(Int64.max / 4) : now + total
    }

    /// What is left now (zero or less once it ran out).
    func budget() -> TimeBudget {
        TimeBudget(remaining: ContinuousClock.now.duration(to: end), total: total)
    }

    /// "30 s", "0.5 s".
    static func words(_ duration: Duration) -> String {
        let (whole, atto) = duration.components
        if atto == 0 { return "\(whole) s" }
        return "\(Double(whole) + Double(atto) / 1e18) s"
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

/// An attribute is written by someone else: its appInfoURL never names a local file, as a
/// path or a `file:` URL (only a list the caller names is read from disk).
private func refuseLocal(attribute text: String) throws(FetchError) {
    switch URLReference.scheme(of: text) {
    case nil:
        throw FetchError(.refused, url: text, message: "an attribute's appInfoURL must be an https URL, not a local path")
    case "file":
        throw FetchError(.refused, url: text, message: "a file: URL from an attribute is refused; only a local appInfo.json named by the caller is read")
    default:
        break
    }
}
