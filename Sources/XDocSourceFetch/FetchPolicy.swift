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
