internal import XDSSystem
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

    /// Where the scheme of `bytes` ends (the index of its colon), whether there is none, or
    /// whether what stands before the first `:` is not a valid scheme.
    private enum SchemeEnd { case scheme(Int), none, invalid }

    private static func schemeEnd(_ bytes: ArraySlice<UInt8>) -> SchemeEnd {
        // scheme: ^([^:/?#]+):
        var j = bytes.startIndex
        while j < bytes.endIndex, !":/?#".utf8.contains(bytes[j]) { j += 1 }
        guard j < bytes.endIndex, j > bytes.startIndex, bytes[j] == UInt8(ascii: ":") else { return .none }
        let scheme = bytes[bytes.startIndex..<j]
        guard isAlpha(scheme.first!), scheme.allSatisfy({ isAlpha($0) || isDigit($0) || "+-.".utf8.contains($0) }) else {
            return .invalid
        }
        return .scheme(j)
    }

    /// The components of `reference`, or nil when it is not a valid URI reference under the
    /// rules above.
    public static func parse(_ reference: String) -> Components? {
        let bytes = Array(reference.utf8)
        var i = 0
        var parts = Components()

        switch schemeEnd(bytes[...]) {
        case .scheme(let j):
            parts.scheme = String(decoding: bytes[0..<j], as: UTF8.self).lowercased()
            i = j + 1
        case .invalid:
            return nil  // not a scheme, and a relative reference's first segment may not hold ':'
        case .none:
            break
        }

        // authority: //([^/?#]*)
        if i + 1 < bytes.count, bytes[i] == UInt8(ascii: "/"), bytes[i + 1] == UInt8(ascii: "/") {
            var k = i + 2
            while k < bytes.count, !"/?#".utf8.contains(bytes[k]) { k += 1 }
            guard parseAuthority(bytes[(i + 2)..<k], into: &parts) else { return nil }
            i = k
        }

        // path, query, fragment
        var k = i
        while k < bytes.count, bytes[k] != UInt8(ascii: "?"), bytes[k] != UInt8(ascii: "#") { k += 1 }
        guard let path = encoded(bytes[i..<k], allowing: .path) else { return nil }
        // path-noscheme (§4.2): without a scheme or authority, a colon in the first segment
        // would read as a scheme; such a reference must be written "./a:b".
        if parts.scheme == nil, parts.authority == nil,
           let colon = bytes[i..<k].firstIndex(of: UInt8(ascii: ":")),
           !bytes[i..<colon].contains(UInt8(ascii: "/")) { return nil }
        parts.path = path
        i = k
        if i < bytes.count, bytes[i] == UInt8(ascii: "?") {
            k = i + 1
            while k < bytes.count, bytes[k] != UInt8(ascii: "#") { k += 1 }
            guard let query = encoded(bytes[(i + 1)..<k], allowing: .query) else { return nil }
            parts.query = query
            i = k
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "#") {
            guard let fragment = encoded(bytes[(i + 1)...], allowing: .query) else { return nil }
            parts.fragment = fragment
        }
        return parts
    }

    // MARK: resolution

    /// `reference` resolved against the absolute URI `base` (RFC 3986 §5.2, strict: a
    /// reference with a scheme is taken as it is, dot segments removed, even "http:g").
    ///
    /// - Returns: The target URI as text, its fragment kept; nil when either does not parse or
    ///   `base` has no scheme.
    public static func resolve(_ reference: String, against base: String) -> String? {
        guard let ref = parse(reference), let baseParts = parse(base), baseParts.isAbsolute else { return nil }
        return resolve(ref, against: baseParts).text
    }

    /// The components of `reference` resolved against `base` (§5.2.2); `base` should be
    /// absolute (its fragment is ignored).
    public static func resolve(_ reference: Components, against base: Components) -> Components {
        var target = Components()
        if reference.scheme != nil {
            target = reference
            target.path = removeDotSegments(reference.path)
            return target
        }
        if reference.authority != nil {
            copyAuthority(from: reference, to: &target)
            target.path = removeDotSegments(reference.path)
            target.query = reference.query
        } else {
            if reference.path.isEmpty {
                target.path = base.path
                target.query = reference.query ?? base.query
            } else {
                if reference.path.hasPrefix("/") {
                    target.path = removeDotSegments(reference.path)
                } else {
                    target.path = removeDotSegments(merge(base: base, path: reference.path))
                }
                target.query = reference.query
            }
            copyAuthority(from: base, to: &target)
        }
        target.scheme = base.scheme
        target.fragment = reference.fragment
        return target
    }

    /// `url` without its `#fragment` (what is sent to a server and used as a cache key).
    public static func removingFragment(_ url: String) -> String {
        guard let hash = url.utf8.firstIndex(of: UInt8(ascii: "#")) else { return url }
        return String(url[..<hash])
    }

    /// Removes `.` and `..` segments from a path (§5.2.4); `..` above the root is dropped.
    public static func removeDotSegments(_ path: String) -> String {
        var input = ArraySlice(path.utf8)
        var output: [UInt8] = []
        let slash = UInt8(ascii: "/")
        func starts(_ prefix: String) -> Bool { input.starts(with: prefix.utf8) }
        func isExactly(_ text: String) -> Bool { input.elementsEqual(text.utf8) }
        func popLastSegment() {
            if let last = output.lastIndex(of: slash) { output.removeSubrange(last...) } else { output.removeAll() }
        }
        while !input.isEmpty {
            if starts("../") {
                input.removeFirst(3)
            } else if starts("./") {
                input.removeFirst(2)
            } else if starts("/./") {
                input.removeFirst(2)
            } else if isExactly("/.") {
                input = [slash]
            } else if starts("/../") {
                input.removeFirst(3)
                popLastSegment()
            } else if isExactly("/..") {
                input = [slash]
                popLastSegment()
            } else if isExactly(".") || isExactly("..") {
                input.removeAll()
            } else {
                var end = input.startIndex
                if input[end] == slash { end += 1 }
                while end < input.endIndex, input[end] != slash { end += 1 }
                output.append(contentsOf: input[input.startIndex..<end])
                input = input[end...]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: local appInfo.json

    /// Where the `src` of an appInfo.json read from the local folder `folder` points.
    ///
    /// Resolution only; whether the target may be read (inside the folder once symlinks are
    /// resolved, a scheme the policy allows) is the fetcher's decision.
    /// * A relative path (`img/icon.png`, `../x.png`) → ``LocalTarget/path(_:)`` of `folder`
    ///   + "/" + the path with percent-escapes decoded and `.`/`..` segments removed as far as
    ///   they go (a `..` that climbs out of `src` stays, so `../x.png` in `/a/b` gives
    ///   `/a/b/../x.png` and the fetcher's check sees it leave the folder). Query and fragment
    ///   are dropped (a file has neither).
    /// * An absolute path (`/x.png`) or a `file:` URL with an empty or `localhost` host →
    ///   ``LocalTarget/path(_:)`` of that path, decoded, dot segments removed.
    /// * An absolute URL with another scheme (`https://…`) → ``LocalTarget/url(_:)``, as
    ///   `resolve(_:against:)` would give it (scheme lower-cased, dot segments removed).
    ///
    /// - Returns: nil when `src` does not parse; is a network-path reference (`//host/x`: a
    ///   folder has no scheme to lend it); names the appInfo.json itself or the folder (an
    ///   empty path, `?q`, `#f`, `.`); is a `file:` URL with another host or a relative path;
    ///   or decodes to a segment holding `/`, NUL or bytes that are not UTF-8.
    public static func resolveLocal(_ src: String, inFolder folder: String) -> LocalTarget? {
        guard let parts = parse(src) else { return nil }
        if let scheme = parts.scheme {
            guard scheme == "file" else {
                var absolute = parts
                absolute.path = removeDotSegments(parts.path)
                return .url(absolute.text)
            }
            let host = parts.host?.lowercased() ?? ""
            guard host.isEmpty || host == "localhost", parts.path.hasPrefix("/") else { return nil }
            return absoluteLocalPath(parts.path)
        }
        guard parts.authority == nil, !parts.path.isEmpty else { return nil }
        if parts.path.hasPrefix("/") { return absoluteLocalPath(parts.path) }
        guard let segments = decodedSegments(parts.path) else { return nil }
        var kept: [String] = []
        for segment in segments {
            switch segment {
            case ".": continue
            case "..":
                if let last = kept.last, last != ".." { kept.removeLast() } else { kept.append("..") }
            default: kept.append(segment)
            }
        }
        // A trailing "." or ".." names a folder: keep the slash (RFC 3986 does the same).
        if let last = segments.last, last == "." || last == ".." { kept.append("") }
        guard !kept.allSatisfy(\.isEmpty) else { return nil }
        let trimmedFolder = folder.isEmpty ? "." : (folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder)
        let joined = kept.joined(separator: "/")
        return .path(trimmedFolder == "/" ? "/" + joined : trimmedFolder + "/" + joined)
    }

    // MARK: private

    private static func absoluteLocalPath(_ path: String) -> LocalTarget? {
        guard let segments = decodedSegments(path) else { return nil }
        // segments[0] is the empty text before the leading "/".
        var kept: [String] = []
        for segment in segments.dropFirst() {
            switch segment {
            case ".": continue
            case "..": if !kept.isEmpty { kept.removeLast() }
            default: kept.append(segment)
            }
        }
        if let last = segments.last, segments.count > 1, last == "." || last == ".." { kept.append("") }
        return .path("/" + kept.joined(separator: "/"))
    }

    /// The segments of a path with percent-escapes decoded, or nil when one decodes to `/`,
    /// NUL or bytes that are not UTF-8.
    private static func decodedSegments(_ path: String) -> [String]? {
        var segments: [String] = []
        for raw in Array(path.utf8).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            var bytes: [UInt8] = []
            var i = raw.startIndex
            while i < raw.endIndex {
                if raw[i] == UInt8(ascii: "%"), i + 2 < raw.endIndex, let high = Hex.value(raw[i + 1]), let low = Hex.value(raw[i + 2]) {
                    bytes.append(high << 4 | low)
                    i += 3
                } else {
                    bytes.append(raw[i])
                    i += 1
                }
            }
            guard !bytes.contains(0), !bytes.contains(UInt8(ascii: "/")) else { return nil }
            let text = String(decoding: bytes, as: UTF8.self)
            guard text.utf8.elementsEqual(bytes) else { return nil }
            segments.append(text)
        }
        return segments
    }

    private static func copyAuthority(from source: Components, to target: inout Components) {
        target.authority = source.authority
        target.userinfo = source.userinfo
        target.host = source.host
        target.port = source.port
    }

    /// §5.2.3: the base path up to its last "/", then `path`; "/" + `path` when the base has
    /// an authority and an empty path.
    private static func merge(base: Components, path: String) -> String {
        if base.authority != nil, base.path.isEmpty { return "/" + path }
        guard let slash = base.path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(base.path[...slash]) + path
    }

    private static func parseAuthority(_ bytes: ArraySlice<UInt8>, into parts: inout Components) -> Bool {
        var rest = bytes
        if let at = rest.firstIndex(of: UInt8(ascii: "@")) {
            guard let userinfo = encoded(rest[rest.startIndex..<at], allowing: .userinfo, encodeNonASCII: false) else {
                return false
            }
            parts.userinfo = userinfo
            rest = rest[(at + 1)...]
        }
        var hostEnd = rest.endIndex
        if rest.first == UInt8(ascii: "[") {
            guard let close = rest.firstIndex(of: UInt8(ascii: "]")),
                  isIPLiteral(rest[(rest.startIndex + 1)..<close]) else { return false }
            hostEnd = close + 1
            guard hostEnd == rest.endIndex || rest[hostEnd] == UInt8(ascii: ":") else { return false }
        } else if let colon = rest.firstIndex(of: UInt8(ascii: ":")) {
            hostEnd = colon
        }
        if rest.first == UInt8(ascii: "[") {
            parts.host = String(decoding: rest[rest.startIndex..<hostEnd], as: UTF8.self)
        } else {
            guard let host = encoded(rest[rest.startIndex..<hostEnd], allowing: .host, encodeNonASCII: false) else { return false }
            parts.host = host
        }
        if hostEnd < rest.endIndex {
            let portBytes = rest[(hostEnd + 1)...]
            guard portBytes.allSatisfy(isDigit) else { return false }
            if !portBytes.isEmpty {
                // Leading zeros are allowed by the grammar; the value must fit a TCP port.
                let digits = portBytes.drop { $0 == UInt8(ascii: "0") }
                guard digits.count <= 5, let value = Int(String(decoding: digits.isEmpty ? [UInt8(ascii: "0")] : Array(digits), as: UTF8.self)),
                      value <= 65535 else { return false }
                parts.port = value
            }
        }
        parts.authority = String(decoding: bytes, as: UTF8.self)
        return true
    }

    /// IP-literal (§3.2.2): an IPv6 address or IPvFuture; zone identifiers are refused.
    private static func isIPLiteral(_ bytes: ArraySlice<UInt8>) -> Bool {
        if let first = bytes.first, first == UInt8(ascii: "v") || first == UInt8(ascii: "V") {
            let rest = bytes.dropFirst()
            guard let dot = rest.firstIndex(of: UInt8(ascii: ".")) else { return false }
            let version = rest[rest.startIndex..<dot], tail = rest[(dot + 1)...]
            return !version.isEmpty && version.allSatisfy { Hex.value($0) != nil }
                && !tail.isEmpty && tail.allSatisfy { isUnreserved($0) || isSubDelim($0) || $0 == UInt8(ascii: ":") }
        }
        return isIPv6(bytes)
    }

    private static func isIPv6(_ bytes: ArraySlice<UInt8>) -> Bool {
        let text = Array(bytes)
        // Split around "::" (at most one).
        var doubleColon: Int?
        var k = 0
        while k + 1 < text.count {
            if text[k] == UInt8(ascii: ":"), text[k + 1] == UInt8(ascii: ":") {
                guard doubleColon == nil else { return false }
                doubleColon = k
                k += 2
                continue
            }
            k += 1
        }
        func groups(_ part: ArraySlice<UInt8>, isLast: Bool) -> Int? {
            if part.isEmpty { return 0 }
            let pieces = part.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            var count = 0
            for (n, piece) in pieces.enumerated() {
                if isLast, n == pieces.count - 1, piece.contains(UInt8(ascii: ".")) {
                    guard isIPv4(piece) else { return nil }
                    count += 2
                } else {
                    guard (1...4).contains(piece.count), piece.allSatisfy({ Hex.value($0) != nil }) else { return nil }
                    count += 1
                }
            }
            return count
        }
        if let dc = doubleColon {
            guard let left = groups(text[0..<dc], isLast: false), let right = groups(text[(dc + 2)...], isLast: true) else {
                return false
            }
            return left + right <= 7
        }
        return groups(text[...], isLast: true) == 8
    }

    private static func isIPv4(_ bytes: ArraySlice<UInt8>) -> Bool {
        let octets = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard octets.count == 4 else { return false }
        return octets.allSatisfy { octet in
            guard (1...3).contains(octet.count), octet.allSatisfy(isDigit),
                  octet.count == 1 || octet.first != UInt8(ascii: "0"),
                  let value = Int(String(decoding: octet, as: UTF8.self)) else { return false }
            return value <= 255
        }
    }

    /// Which characters a component may hold (§3): path, query/fragment, userinfo, reg-name.
    private enum Allowed { case path, query, userinfo, host }

    /// The component as ASCII text: checked against the characters `allowed`, `%XX` kept,
    /// non-ASCII percent-encoded as UTF-8 (or refused when `encodeNonASCII` is false); nil
    /// on anything else.
    private static func encoded(_ bytes: ArraySlice<UInt8>, allowing allowed: Allowed, encodeNonASCII: Bool = true) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte >= 0x80 {
                guard encodeNonASCII else { return nil }
                Hex.appendPercentEncoded(byte, to: &out)
            } else if byte == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex, Hex.value(bytes[i + 1]) != nil, Hex.value(bytes[i + 2]) != nil else { return nil }
                out += bytes[i...(i + 2)]
                i += 2
            } else {
                let ok: Bool
                switch allowed {
                case .path: ok = isPChar(byte) || byte == UInt8(ascii: "/")
                case .query: ok = isPChar(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?")
                case .userinfo: ok = isUnreserved(byte) || isSubDelim(byte) || byte == UInt8(ascii: ":")
                case .host: ok = isUnreserved(byte) || isSubDelim(byte)
                }
                guard ok else { return nil }
                out.append(byte)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isPChar(_ b: UInt8) -> Bool {
        isUnreserved(b) || isSubDelim(b) || b == UInt8(ascii: ":") || b == UInt8(ascii: "@")
    }

    private static func isUnreserved(_ b: UInt8) -> Bool {
        isAlpha(b) || isDigit(b) || "-._~".utf8.contains(b)
    }

    private static func isSubDelim(_ b: UInt8) -> Bool { "!$&'()*+,;=".utf8.contains(b) }
    private static func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }
    private static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

}
