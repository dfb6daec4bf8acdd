/// What the fetcher may do on the network (SPEC §3 "Network policy").
///
/// `https` only unless ``allowHTTP``; at most ``maxRedirects`` redirects, each followed by the
/// fetcher itself and never from https to http; bodies bounded by the two size limits (the
/// transport refuses a larger `Content-Length` before reading; a local file is checked with
/// `fstat` before it is read).
public struct FetchPolicy: Sendable, Equatable {
    /// Whether plain `http` URLs are allowed (`--allow-http`). A redirect from https to http is
    /// refused even then.
    public var allowHTTP: Bool
    /// How many redirects one fetch follows; one more fails with ``FetchError/Kind/tooManyRedirects``.
    public var maxRedirects: Int
    /// The largest appInfo.json accepted, in bytes (256 KiB).
    public var maximumAppInfoSize: Int
    /// The largest icon accepted, in bytes (8 MiB).
    public var maximumIconSize: Int
    /// The time one fetch may spend on the network in all (30 s): the list, its redirects and
    /// the icon share it, each request getting what is left (``HTTPRequest/timeBudget``); the
    /// transport's connect time-out applies within it. Time spent reading the cache or local
    /// files counts too.
    public var timeBudget: Duration

    /// The SPEC §3 defaults: https only, 5 redirects, 256 KiB and 8 MiB, 30 s in all.
    public init(allowHTTP: Bool = false, maxRedirects: Int = 5,
                maximumAppInfoSize: Int = 256 * 1024, maximumIconSize: Int = 8 * 1024 * 1024,
                timeBudget: Duration = .seconds(30)) {
        self.allowHTTP = allowHTTP
        self.maxRedirects = maxRedirects
        self.maximumAppInfoSize = maximumAppInfoSize
        self.maximumIconSize = maximumIconSize
        self.timeBudget = timeBudget
    }
}

// MARK: - Enforcement

// The policy is enforced here and nowhere else. The fetcher is the policy layer: it calls
// ``FetchPolicy/checkRemote(_:)`` on every URL before asking for it (the list, the icon, each
// redirect's target) and ``FetchPolicy/checkRedirect(from:to:)`` on each redirect it follows.
// A transport does what it is told and never follows redirects; `CurlTransport` (public, and
// usable without a fetcher) still refuses plain http unless its configuration allows it, by
// calling ``FetchPolicy/checkScheme(of:allowHTTP:)``, so the rule and its words stay in this one
// function. (libcurl's own protocol list, set by the transport, is a lock inside libcurl, not
// a second copy of the check.)
extension FetchPolicy {
    /// Refuses `url`'s scheme unless it is `https`, or `http` with `allowHTTP` (SPEC §3).
    /// - Throws: ``FetchError/Kind/refused`` for plain http not allowed, a `file:` URL or any
    ///   other scheme; ``FetchError/Kind/invalidURL`` for text without a scheme.
    public static func checkScheme(of url: String, allowHTTP: Bool) throws(FetchError) {
        switch URLReference.scheme(of: url) {
        case "https": break
        case "http":
            guard allowHTTP else {
                throw FetchError(.refused, url: url, message: "plain http is not allowed; use https")
            }
        case "file":
            throw FetchError(.refused, url: url, message: "a file: URL is only accepted when given on the command line")
        case let scheme?:
            throw FetchError(.refused, url: url, message: "the URL scheme \(scheme): is not supported; use https")
        case nil:
            throw FetchError(.invalidURL, url: url, message: "not an absolute URL")
        }
    }

    /// Refuses what this policy does not allow as a remote URL: a scheme
    /// ``checkScheme(of:allowHTTP:)`` refuses, or a URL without a host. A URL that does not
    /// parse (RFC 3986, ``URLReference``) is left to the transport, which says whether it can
    /// fetch it.
    public func checkRemote(_ url: String) throws(FetchError) {
        try Self.checkScheme(of: url, allowHTTP: allowHTTP)
        if let parts = URLReference.parse(url), parts.host?.isEmpty ?? true {
            throw FetchError(.invalidURL, url: url, message: "the URL has no host")
        }
    }

    /// Refuses a redirect from `current` to `target` (resolved, fragment removed) that the
    /// policy forbids: from https to http (``FetchError/Kind/insecureRedirect``, even with
    /// ``allowHTTP``), or to a URL ``checkRemote(_:)`` refuses
    /// (``FetchError/Kind/redirectRefused``). The count of redirects is the fetcher's.
    public func checkRedirect(from current: String, to target: String) throws(FetchError) {
        if URLReference.scheme(of: current) == "https" && URLReference.scheme(of: target) == "http" {
            throw FetchError(.insecureRedirect, url: current,
                             message: "a redirect from https to http (\(Self.shortened(target))) is refused")
        }
        do throws(FetchError) {
            try checkRemote(target)
        } catch {
            throw FetchError(.redirectRefused, url: current,
                             message: "the redirect to \(Self.shortened(target)) is refused: \(error.message)")
        }
    }

    /// A URL from a server for a message: at most 200 characters.
    static func shortened(_ text: String) -> String {
        text.count <= 200 ? text : String(text.prefix(200)) + "…"
    }
}

/// Where an appInfo.json comes from (SPEC §3 "Where appInfo comes from"); the origin decides
/// what is trusted: local files only from what the user typed.
public enum AppInfoLocation: Sendable, Equatable {
    /// `--app-info URL|PATH` as typed: an `https`/`http` URL, a `file:` URL or a local path.
    /// Text that does not start with a URL scheme (`letters:`) is a path.
    case commandLine(String)
    /// The `appInfoURL` of a file's attribute: data written by someone else, so only an
    /// `https` (or, with ``FetchPolicy/allowHTTP``, `http`) URL; never `file:` or a path.
    case attribute(String)
    /// `./appInfo.json` in the current folder.
    case currentFolder
}
