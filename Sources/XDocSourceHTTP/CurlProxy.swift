import XDocSourceFetch
import XDSSystem

/// The proxy libcurl takes for a URL, worked out as libcurl 7.88 does it (`detect_proxy` and
/// `Curl_check_noproxy`), so that a failure can name the proxy rather than the server. Only
/// messages use it: libcurl still reads the variables itself, and a failure checks the port
/// libcurl connected to before it blames the proxy.
struct CurlProxy: Equatable {
    /// "http", "https", "socks4", "socks4a", "socks5", "socks5h", or what the variable said.
    let scheme: String
    let host: String
    let port: Int
    /// The variable it came from ("https_proxy"), nil when set in the configuration.
    let variable: String?

    /// "the proxy 127.0.0.1 port 3128", "the socks proxy …", "the https proxy …".
    var words: String {
        let kind = scheme.hasPrefix("socks") ? "socks proxy" : scheme == "https" ? "https proxy" : "proxy"
        return "the \(kind) \(host) port \(port)"
    }

    /// Whether libcurl can use a proxy of this scheme.
    var isSupported: Bool {
        ["http", "https", "socks", "socks4", "socks4a", "socks5", "socks5h"].contains(scheme)
    }

    /// The proxy for `target` under `configuration`, reading `environment` as libcurl does
    /// (nil: the process's own), or nil for a direct connection.
    static func forTarget(_ target: RequestTarget, configuration: HTTPTransportConfiguration,
                          environment: [String: String]? = nil) -> CurlProxy? {
        // libcurl's curl_getenv takes a variable set to "" as unset.
        let environment = (environment ?? ProcessEnvironment.current()).filter { !$0.value.isEmpty }
        let noProxy = configuration.noProxy ?? environment["no_proxy"] ?? environment["NO_PROXY"]
        if let noProxy, matchesNoProxy(target.host, noProxy) { return nil }
        if let proxy = configuration.proxy { return parse(proxy, variable: nil) }
        // "<scheme>_proxy", then (except for http_proxy) its upper-case form, then all_proxy,
        // ALL_PROXY.
        var names = ["\(target.scheme)_proxy"]
        if target.scheme != "http" { names.append("\(target.scheme)_proxy".uppercased()) }
        if let name = names.first(where: { environment[$0] != nil }) {
            return parse(environment[name]!, variable: name)
        }
        for name in ["all_proxy", "ALL_PROXY"] {
            if let value = environment[name] { return parse(value, variable: name) }
        }
        return nil
    }

    /// `[scheme://][user[:password]@]host[:port][/…]`, read by ``URLReference`` ("http://" put
    /// in front when no "://" names a scheme, as libcurl does); the credentials are dropped. The
    /// port defaults to libcurl's for a proxy: 443 for https, 1080 for the rest. nil when the
    /// text is not a URL with a host.
    static func parse(_ text: String, variable: String?) -> CurlProxy? {
        guard !text.isEmpty else { return nil }
        guard let parts = URLReference.parse(givenScheme(text) != nil ? text : "http://" + text), let scheme = parts.scheme,
              let host = parts.bareHost, !host.isEmpty else { return nil }
        return CurlProxy(scheme: scheme, host: host, port: parts.port ?? (scheme == "https" ? 443 : 1080),
                         variable: variable)
    }

    /// The scheme of a proxy written "scheme://…", lower-cased; nil when no "://" follows one
    /// (libcurl then takes it as a host: "proxy.example:3128").
    static func givenScheme(_ text: String) -> String? {
        guard let scheme = URLReference.scheme(of: text),
              text.utf8.dropFirst(scheme.utf8.count).starts(with: "://".utf8) else { return nil }
        return scheme
    }

    /// libcurl's no-proxy match: "*" alone is every host; else each comma- or space-separated
    /// pattern matches the host itself or, for a name, any host under it (leading and
    /// trailing dots ignored). An address matches a pattern equal to it; an address range
    /// (`10.0.0.0/8`) counts as a match, as the proxy is then the less likely culprit.
    static func matchesNoProxy(_ host: String, _ list: String) -> Bool {
        if list == "*" { return true }
        let name = host.hasSuffix(".") ? String(host.dropLast()).lowercased() : host.lowercased()
        let isAddress = name.contains(":") || name.allSatisfy { $0.isNumber || $0 == "." }
        for token in list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            var pattern = Substring(token.lowercased())
            if isAddress {
                if pattern.contains("/") || pattern == name { return true }
                continue
            }
            if pattern.hasSuffix(".") { pattern = pattern.dropLast() }
            if pattern.hasPrefix(".") { pattern = pattern.dropFirst() }
            guard !pattern.isEmpty else { continue }
            if name == pattern || name.hasSuffix("." + pattern) { return true }
        }
        return false
    }
}
