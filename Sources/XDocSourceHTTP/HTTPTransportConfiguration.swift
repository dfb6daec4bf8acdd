import XDocSourceFetch
import XDSSystem

/// How ``CurlTransport`` connects: time-outs, which schemes it may use, the certificates it
/// trusts and the proxy.
///
/// ``fromEnvironment(_:)`` reads the certificate variables (`SSL_CERT_FILE`, `CURL_CA_BUNDLE`);
/// proxies are left to libcurl, which reads `https_proxy`/`HTTPS_PROXY`, `http_proxy` (lower
/// case only), `all_proxy`/`ALL_PROXY` and `no_proxy`/`NO_PROXY` itself. The plain initialiser
/// reads no certificate variable.
public struct HTTPTransportConfiguration: Sendable, Equatable {
    /// The certificates a server's chain must lead to.
    public enum TrustRoots: Sendable, Equatable {
        /// The system's store (libcurl's default bundle).
        case system
        /// Only the certificates in this PEM bundle (a file, as `SSL_CERT_FILE` names).
        case pemFile(String)
    }

    /// The longest wait for a TCP connection (and its TLS handshake) to open. Default 10 s.
    public var connectTimeout: Duration
    /// The longest a whole request may take, from connecting to the last body byte (a body
    /// that trickles in is cut off too). Default 30 s.
    public var totalTimeout: Duration
    /// Whether plain `http` URLs may be fetched; `https` always may. Default false, as
    /// ``FetchPolicy/allowHTTP``: set both for `--allow-http`.
    public var allowHTTP: Bool
    /// The certificates trusted for https. Default ``TrustRoots/system``.
    public var trustRoots: TrustRoots
    /// The environment variable that named ``trustRoots``' file, for messages ("SSL_CERT_FILE
    /// names …"); nil when it was set in code.
    public var trustRootsVariable: String?
    /// The proxy for every URL, as curl's `--proxy` takes it (`http://host:port`,
    /// `socks5h://host:1080`…); "" for none; nil (the default) to let libcurl read the proxy
    /// variables.
    public var proxy: String?
    /// The hosts reached without the proxy, as curl's `--noproxy` takes them; nil (the default)
    /// to let libcurl read `no_proxy`/`NO_PROXY`.
    public var noProxy: String?

    /// Makes a configuration; every argument has the default described on its property.
    public init(connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(30),
                allowHTTP: Bool = false, trustRoots: TrustRoots = .system, trustRootsVariable: String? = nil,
                proxy: String? = nil, noProxy: String? = nil) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.allowHTTP = allowHTTP
        self.trustRoots = trustRoots
        self.trustRootsVariable = trustRootsVariable
        self.proxy = proxy
        self.noProxy = noProxy
    }

    /// The defaults, with `allowHTTP`, and the trust roots taken from `environment` (the
    /// process's own when nil): the PEM bundle named by `SSL_CERT_FILE`, else by
    /// `CURL_CA_BUNDLE` (empty values count as unset), else the system's store. Proxies stay
    /// nil: libcurl reads their variables itself.
    public static func fromEnvironment(_ environment: [String: String]? = nil,
                                       allowHTTP: Bool = false) -> HTTPTransportConfiguration {
        let environment = environment ?? ProcessEnvironment.current()
        var configuration = HTTPTransportConfiguration(allowHTTP: allowHTTP)
        for name in ["SSL_CERT_FILE", "CURL_CA_BUNDLE"] {
            if let file = environment[name], !file.isEmpty {
                configuration.trustRoots = .pemFile(file)
                configuration.trustRootsVariable = name
                break
            }
        }
        return configuration
    }
}
