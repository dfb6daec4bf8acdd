/// The proxies to use, per scheme, and the hosts that bypass them (`NO_PROXY`), with curl's
/// rules.
public struct ProxySettings: Sendable, Equatable {
    /// An HTTP proxy (reached with `CONNECT`): host, port and optional basic credentials.
    public struct Server: Sendable, Hashable {
        /// The proxy's host name or address (IPv6 without brackets).
        public var host: String
        /// The proxy's port (1080 is not assumed: the default is 80, as curl's for `http://`).
        public var port: Int
        /// The user name from `http://user:password@host`, percent-decoded, if any.
        public var user: String?
        /// The password, percent-decoded, if any.
        public var password: String?

        /// Makes a proxy server.
        public init(host: String, port: Int, user: String? = nil, password: String? = nil) {
            self.host = host
            self.port = port
            self.user = user
            self.password = password
        }

        /// Parses a proxy the way curl takes `HTTPS_PROXY`: `[http://][user[:password]@]host[:port][/]`;
        /// nil if it is not of that form (another scheme such as `socks5://`, no host, a bad port).
        public init?(parsing text: String) {
            var rest = Substring(text.trimmingSpaces)
            if let (scheme, afterScheme) = splitScheme(rest) {
                guard scheme == "http" else { return nil }
                rest = afterScheme
            }
            if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
            var user: String?, password: String?
            if let at = rest.lastIndex(of: "@") {
                let credentials = rest[..<at]
                rest = rest[rest.index(after: at)...]
                if let colon = credentials.firstIndex(of: ":") {
                    user = Self.percentDecoded(credentials[..<colon])
                    password = Self.percentDecoded(credentials[credentials.index(after: colon)...])
                } else {
                    user = Self.percentDecoded(credentials)
                }
            }
            var host = rest, port = 80
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { return nil }
                host = rest[rest.index(after: rest.startIndex)..<close]
                let after = rest[rest.index(after: close)...]
                if after.hasPrefix(":") {
                    guard let value = Int(after.dropFirst()), (1...65535).contains(value) else { return nil }
                    port = value
                } else if !after.isEmpty {
                    return nil
                }
            } else if let colon = rest.lastIndex(of: ":") {
                host = rest[..<colon]
                guard let value = Int(rest[rest.index(after: colon)...]), (1...65535).contains(value) else { return nil }
                port = value
            }
            guard !host.isEmpty else { return nil }
            self.init(host: String(host), port: port, user: user, password: password)
        }

        private static func percentDecoded(_ text: Substring) -> String {
            var bytes: [UInt8] = []
            var utf8 = Array(text.utf8)[...]
            while let byte = utf8.popFirst() {
                if byte == UInt8(ascii: "%"), utf8.count >= 2,
                   let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                    bytes.append(value)
                    utf8 = utf8.dropFirst(2)
                } else {
                    bytes.append(byte)
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The proxy for https URLs (`HTTPS_PROXY`), as written; nil for none.
    public var httpsProxy: String?
    /// The proxy for http URLs (`HTTP_PROXY`), as written; nil for none.
    public var httpProxy: String?
    /// The hosts reached directly (`NO_PROXY`), as written: a comma-separated list.
    public var noProxy: String

    /// Makes proxy settings; by default no proxy at all.
    public init(httpsProxy: String? = nil, httpProxy: String? = nil, noProxy: String = "") {
        self.httpsProxy = httpsProxy
        self.httpProxy = httpProxy
        self.noProxy = noProxy
    }

    /// The proxy text for a URL with `scheme` ("https" or "http") to `host`, or nil to connect
    /// directly (no proxy for the scheme, or the host bypasses it).
    public func proxy(scheme: String, host: String) -> String? {
        let proxy = scheme.lowercased() == "https" ? httpsProxy : (scheme.lowercased() == "http" ? httpProxy : nil)
        guard let proxy, !proxy.isEmpty, !bypasses(host: host) else { return nil }
        return proxy
    }

    /// Whether `host` is reached directly under ``noProxy``, with curl's rules: the list is
    /// comma-separated (spaces around entries ignored); `*` alone matches every host; an entry
    /// matches the host itself and every name under it (`example.com` and `.example.com` both
    /// match `example.com` and `a.example.com`, not `badexample.com`); a `:port` on an entry
    /// is ignored; comparison ignores case, a trailing dot and IPv6 brackets. An IP address
    /// matches only an equal entry or an IPv4 CIDR block (`10.0.0.0/8`).
    public func bypasses(host: String) -> Bool {
        let host = Self.normalized(host, stripPort: false)
        guard !host.isEmpty else { return false }
        for rawEntry in noProxy.split(separator: ",", omittingEmptySubsequences: true) {
            let trimmed = String(rawEntry).trimmingSpaces
            if trimmed == "*" { return true }
            var entry = Self.normalized(trimmed, stripPort: true)
            while entry.hasPrefix(".") { entry.removeFirst() }
            guard !entry.isEmpty else { continue }
            if host.contains(":") || Self.ipv4(host) != nil {
                // An address matches exactly or by CIDR prefix, never by suffix (curl ≥ 7.86).
                if host == entry || Self.inCIDR(host, entry) { return true }
            } else if host == entry || host.hasSuffix("." + entry) {
                return true
            }
        }
        return false
    }

    /// The four bytes of a dotted IPv4 address, as one number.
    private static func ipv4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let byte = UInt8(part) else { return nil }
            value = value << 8 | UInt32(byte)
        }
        return value
    }

    /// Whether the IPv4 address `host` is inside the block `entry` ("A.B.C.D/N").
    private static func inCIDR(_ host: String, _ entry: String) -> Bool {
        guard let slash = entry.firstIndex(of: "/"), let address = ipv4(host),
              let network = ipv4(String(entry[..<slash])),
              let bits = Int(entry[entry.index(after: slash)...]), (0...32).contains(bits) else { return false }
        let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << UInt32(32 - bits)
        return address & mask == network & mask
    }

    /// Lower case, brackets of an IPv6 literal removed, trailing dot removed, and (for entries)
    /// a `:port` suffix removed.
    private static func normalized(_ text: String, stripPort: Bool) -> String {
        var text = text.lowercased()
        if text.hasPrefix("[") {
            if let close = text.firstIndex(of: "]") {
                text = String(text[text.index(after: text.startIndex)..<close])
            }
        } else if stripPort, let colon = text.lastIndex(of: ":"),
                  text.firstIndex(of: ":") == colon,  // one colon: host:port, not a bare IPv6 address
                  text[text.index(after: colon)...].allSatisfy(\.isNumber) {
            text = String(text[..<colon])
        }
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

/// "SCHEME://REST" as (lower-case scheme, REST), or nil when there is no "://".
func splitScheme(_ text: Substring) -> (String, Substring)? {
    let bytes = Array(text.utf8)
    guard bytes.count >= 3 else { return nil }
    for offset in 0...(bytes.count - 3) where bytes[offset] == UInt8(ascii: ":")
        && bytes[offset + 1] == UInt8(ascii: "/") && bytes[offset + 2] == UInt8(ascii: "/") {
        let schemeEnd = text.utf8.index(text.utf8.startIndex, offsetBy: offset)
        let restStart = text.utf8.index(schemeEnd, offsetBy: 3)
        return (String(text[..<schemeEnd]).lowercased(), text[restStart...])
    }
    return nil
}
