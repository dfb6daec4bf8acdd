internal import XDSSystem
/// Where the disk cache lives and how it is used (SPEC §3 "Cache"; `--cache-dir`,
/// `--offline`, `--no-cache`).
public struct CacheSettings: Sendable, Equatable {
    /// How the cache is used.
    public enum Mode: Sendable, Equatable {
        /// Fresh entries are used without a request, stale ones revalidated, new responses stored.
        case normal
        /// `--offline`: no request at all; any cached entry is used however old, and a remote
        /// URL without one fails with ``FetchError/Kind/notCached``.
        case offline
        /// `--no-cache`: the cache is neither read nor written.
        case bypass
    }

    /// The cache folder; created (mode 0700, with missing parents) on the first write.
    public var directory: String
    /// How the cache is used.
    public var mode: Mode

    /// Settings for `directory` used as `mode`.
    public init(directory: String, mode: Mode = .normal) {
        self.directory = directory
        self.mode = mode
    }

    /// The default cache folder: `$XDG_CACHE_HOME/xds` when `XDG_CACHE_HOME` is an absolute
    /// path (the XDG rule: a relative value is ignored), else `$HOME/.cache/xds` when `HOME`
    /// is an absolute path; nil otherwise (then there is no default cache; see
    /// ``noDefaultDirectoryReason(environment:)``).
    public static func defaultDirectory(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return joined(xdg, "xds")
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return joined(joined(home, ".cache"), "xds")
        }
        return nil
    }

    /// Why ``defaultDirectory(environment:)`` finds no folder, in words for a message
    /// ("HOME is not an absolute path and XDG_CACHE_HOME is not set"); nil when it finds one.
    /// An empty variable counts as not set; a relative one is ignored, as XDG says.
    public static func noDefaultDirectoryReason(environment: [String: String]) -> String? {
        guard defaultDirectory(environment: environment) == nil else { return nil }
        func relative(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
        let xdgRelative = relative("XDG_CACHE_HOME"), homeRelative = relative("HOME")
        switch (xdgRelative, homeRelative) {
        case (false, false): return "neither XDG_CACHE_HOME nor HOME is set"
        case (true, true): return "neither XDG_CACHE_HOME nor HOME is an absolute path"
        case (false, true): return "HOME is not an absolute path and XDG_CACHE_HOME is not set"
        case (true, false): return "XDG_CACHE_HOME is not an absolute path and HOME is not set"
        }
    }

    private static func joined(_ folder: String, _ name: String) -> String { PathText.join(folder, name) }
}
