import XDSSystem

/// How ``AsyncHTTPClientTransport`` connects: time-outs, the certificates it trusts and the proxy.
///
/// ``fromEnvironment(_:)`` reads the same variables as curl and OpenSSL (`SSL_CERT_FILE`,
/// `HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`); the plain initialiser reads nothing.
public struct HTTPTransportConfiguration: Sendable, Equatable {
    /// The certificates a server's chain must lead to.
    public enum TrustRoots: Sendable, Equatable {
        /// The system's store.
        case system
        /// Only the certificates in this PEM bundle (a file, as `SSL_CERT_FILE` names).
        case pemFile(String)
    }

    /// The longest wait for a TCP connection (and its TLS handshake) to open. Default 10 s.
    public var connectTimeout: Duration
    /// The longest a whole request may take, from connecting to the last body byte; also the
    /// longest wait between two reads. Default 30 s.
    public var totalTimeout: Duration
    /// The certificates trusted for https. Default ``TrustRoots/system``.
    public var trustRoots: TrustRoots
    /// Which proxy, if any, each URL goes through. Default: none.
    public var proxy: ProxySettings

    /// Makes a configuration; every argument has the default described on its property.
    public init(connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(30),
                trustRoots: TrustRoots = .system, proxy: ProxySettings = ProxySettings()) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.trustRoots = trustRoots
        self.proxy = proxy
    }

    /// The defaults, with trust roots and proxies taken from `environment` (the process's own
    /// when nil) the way curl and OpenSSL take them:
    /// - `SSL_CERT_FILE` (non-empty): trust only the PEM bundle it names;
    /// - `https_proxy` or `HTTPS_PROXY`: the proxy for https URLs;
    /// - `http_proxy` or `HTTP_PROXY`: the proxy for http URLs;
    /// - `no_proxy` or `NO_PROXY`: hosts reached directly (see ``ProxySettings/bypasses(host:)``).
    ///
    /// The lower-case name wins when both are set; empty values count as unset.
    public static func fromEnvironment(_ environment: [String: String]? = nil) -> HTTPTransportConfiguration {
        let environment = environment ?? ProcessEnvironment.current()
        func value(_ names: String...) -> String? {
            for name in names {
                if let value = environment[name]?.trimmingSpaces, !value.isEmpty { return value }
            }
            return nil
        }
        var configuration = HTTPTransportConfiguration()
        if let file = value("SSL_CERT_FILE") { configuration.trustRoots = .pemFile(file) }
        configuration.proxy = ProxySettings(
            httpsProxy: value("https_proxy", "HTTPS_PROXY"),
            httpProxy: value("http_proxy", "HTTP_PROXY"),
            noProxy: value("no_proxy", "NO_PROXY") ?? "")
        return configuration
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
