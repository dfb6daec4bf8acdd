// The package's one URL parser. Public, unlike the rest of XDSSystem but for AtomicFile:
// XDocSourceFetch names it for library users (`XDocSourceFetch.URLReference`); it lives here,
// the lowest module, so that XDocSource's appInfoURL check and XDSProvenance's URL text read
// URLs with its scanner (URLReference+Scanning.swift) without depending on the fetcher.

/// URI references (RFC 3986): parsing, and resolution of an icon's `src` against the URL of
/// its appInfo.json (§5.2, strict form).
///
/// Rules, decided once for every caller:
/// * A reference is refused (nil) when it holds a space, a control character, a character
///   RFC 3986 never allows (`"`, `<`, `>`, `\`, `^`, a backquote, `{`, `|`, `}`, and `[` `]`
///   outside an IP literal), a `%` not followed by two hexadecimal digits, an invalid scheme,
///   port or IP literal, or a colon in the first segment of a relative path.
/// * A non-ASCII character in the path, query or fragment is percent-encoded as UTF-8 (what
///   browsers do, so `img/été.png` works); in the scheme or authority it is refused (there is
///   no IDNA here: write the host in its `xn--` form).
/// * Existing `%XX` escapes are kept as written, never decoded or re-cased.
/// * The scheme is lower-cased (schemes are case-insensitive, §3.1); nothing else is
///   normalized.
/// * Fragments are kept, as §5.2 says; a fetcher drops them with ``removingFragment(_:)``
///   before sending a request.
public enum URLReference {
    /// The parts of a URI reference (§3), every one as written except ``scheme``.
    public struct Components: Sendable, Equatable {
        /// The scheme, lower-cased, without the colon; nil for a relative reference.
        public var scheme: String?
        /// Everything between `//` and the path, e.g. "user@[::1]:8443"; nil when there is no `//`.
        public var authority: String?
        /// The user information before `@` in the authority, or nil.
        public var userinfo: String?
        /// The host as written, brackets kept for an IP literal ("[::1]"); empty in `file:///x`;
        /// nil when there is no authority.
        public var host: String?
        /// The port, or nil when there is none or it is empty ("http://a:/").
        public var port: Int?
        /// The path, possibly empty.
        public var path: String
        /// The query without `?`, or nil when there is no `?`.
        public var query: String?
        /// The fragment without `#`, or nil when there is no `#`.
        public var fragment: String?

        /// Makes components; ``text`` puts them back together.
        public init(scheme: String? = nil, authority: String? = nil, userinfo: String? = nil, host: String? = nil,
                    port: Int? = nil, path: String = "", query: String? = nil, fragment: String? = nil) {
            self.scheme = scheme
            self.authority = authority
            self.userinfo = userinfo
            self.host = host
            self.port = port
            self.path = path
            self.query = query
            self.fragment = fragment
        }

        /// True when the reference has a scheme (an absolute URI, perhaps with a fragment).
        public var isAbsolute: Bool { scheme != nil }

        /// The port to connect to: ``port`` when given, else the scheme's default
        /// (``URLReference/defaultPort(forScheme:)``); nil when neither is known.
        public var portOrDefault: Int? {
            port ?? scheme.flatMap(URLReference.defaultPort(forScheme:))
        }

        /// The host without the brackets of an IP literal ("::1" for "[::1]").
        public var bareHost: String? {
            guard let host else { return nil }
            if host.hasPrefix("["), host.hasSuffix("]") { return String(host.dropFirst().dropLast()) }
            return host
        }

        /// The reference as text (§5.3). A path starting with `//` without an authority is
        /// written with a leading `/.` so the text does not read back as an authority.
        public var text: String {
            var out = ""
            if let scheme { out += scheme + ":" }
            if let authority { out += "//" + authority }
            if authority == nil, path.hasPrefix("//") { out += "/." }
            out += path
            if let query { out += "?" + query }
            if let fragment { out += "#" + fragment }
            return out
        }
    }

    /// Where ``resolveLocal(_:inFolder:)`` sends a `src`.
    public enum LocalTarget: Sendable, Equatable {
        /// A file path (percent-escapes decoded), to be checked against the folder by the caller.
        case path(String)
        /// An absolute URL with a scheme other than `file`, for the fetcher's policy to judge.
        case url(String)
    }

    // MARK: parsing

    /// The port a scheme connects to when the URL names none: 443 for `https`, 80 for `http`
    /// (RFC 9110 §4.2); nil for any other scheme. `scheme` is compared as given (``parse(_:)``
    /// lower-cases it).
    public static func defaultPort(forScheme scheme: String) -> Int? {
        switch scheme {
        case "https": 443
        case "http": 80
        default: nil
        }
    }

    /// The scheme `text` starts with, lower-cased (§3.1: a letter, then letters, digits, `+`,
    /// `-`, `.`, then `:`), or nil when it starts with none (a relative reference, or a path).
    /// Only the scheme is looked at: the rest need not parse.
    public static func scheme(of text: String) -> String? {
        let bytes = Array(text.utf8)
        guard case .scheme(let end) = schemeEnd(bytes[...]) else { return nil }
        return String(decoding: bytes[0..<end], as: UTF8.self).lowercased()
    }

    /// The components of `reference`, or nil when it is not a valid URI reference under the
    /// rules above.
    public static func parse(_ reference: String) -> Components? {
        let bytes = Array(reference.utf8)
        // Not a scheme, and a relative reference's first segment may not hold ':': nil.
        guard let split = Split(bytes[...]) else { return nil }
        var parts = Components()
        if let colon = split.schemeEnd {
            parts.scheme = String(decoding: bytes[0..<colon], as: UTF8.self).lowercased()
        }
        if let authority = split.authority {
            guard parseAuthority(bytes, authority, into: &parts) else { return nil }
        }
        guard let path = encoded(bytes[split.path], allowing: .path) else { return nil }
        // path-noscheme (§4.2): without a scheme or authority, a colon in the first segment
        // would read as a scheme; such a reference must be written "./a:b".
        if parts.scheme == nil, parts.authority == nil,
           let colon = bytes[split.path].firstIndex(of: UInt8(ascii: ":")),
           !bytes[split.path.lowerBound..<colon].contains(UInt8(ascii: "/")) { return nil }
        parts.path = path
        if let query = split.query {
            guard let text = encoded(bytes[query], allowing: .query) else { return nil }
            parts.query = text
        }
        if let fragment = split.fragment {
            guard let text = encoded(bytes[fragment], allowing: .query) else { return nil }
            parts.fragment = text
        }
        return parts
    }
}
