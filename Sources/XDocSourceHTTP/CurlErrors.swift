import CCurl
import XDocSourceFetch
import XDSSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a failed libcurl transfer into a ``FetchError`` in words, naming the host.
enum CurlErrors {
    /// What besides the CURLcode tells what went wrong.
    struct Details {
        /// libcurl's error buffer ("" when it said nothing).
        var message: String
        /// CURLINFO_SSL_VERIFYRESULT: OpenSSL's X509_V_ERR code for the peer's chain.
        var verifyResult: Int
        /// CURLINFO_OS_ERRNO: the errno of the failed connect.
        var osErrno: Int32
        /// The body passed the caller's limit (the write callback stopped the transfer).
        var overLimit: Bool
        var limit: Int
        /// The response's Content-Length, when it declared one.
        var declaredLength: Int?
        /// The task was cancelled (the progress callback stopped the transfer).
        var cancelled: Bool
        /// Why the reply's Content-Length is invalid, when the header callback stopped it.
        var invalidLength: String? = nil
        /// The blank line ending the reply's headers had come.
        var headersComplete = false
        /// CURLINFO_PROXY_SSL_VERIFYRESULT: the https proxy's chain.
        var proxyVerifyResult = 0
        /// CURLINFO_PRIMARY_PORT: the port of the peer the connection reached (a proxy's when
        /// one is used), 0 when none was reached.
        var primaryPort = 0
        /// CURLINFO_HTTP_CONNECTCODE: the proxy's answer to CONNECT, 0 when none came.
        var tunnelStatus = 0
        /// Whether the connection (proxy and TLS included) was fully made before the failure;
        /// nil when libcurl could not say.
        var connected: Bool? = nil
        /// The request's time-outs.
        var limits: TimeLimits? = nil
        /// The proxy libcurl takes for the URL (by the variables), for messages.
        var proxy: CurlProxy? = nil

        /// The proxy, when the connection went (or was going) through it: libcurl's peer
        /// port agrees, or no peer was reached yet.
        var proxyUsed: CurlProxy? {
            guard let proxy, proxy.isSupported else { return nil }
            return primaryPort == 0 || primaryPort == proxy.port ? proxy : nil
        }
    }

    /// The one line for a libcurl that cannot be loaded: which package to install, and when one
    /// was found, which and what is wrong with it ("libcurl 7.74.0 (FILE) is too old: …").
    static func notLoaded() -> String {
        if Int(ccurl_load_state()) != CLIBRARY_MISSING {
            return "\(String(cString: ccurl_load_error())) (Debian: apt-get install libcurl4)"
        }
        #if canImport(Darwin)
        return "libcurl could not be loaded (it is part of macOS: /usr/lib/libcurl.4.dylib)"
        #else
        return "libcurl is not installed (Debian: apt-get install libcurl4)"
        #endif
    }

    /// Refuses a trust bundle that is not a regular, readable file before libcurl opens it (a
    /// FIFO would block the open forever).
    static func checkTrustFile(_ path: String, variable: String?, url: String) throws(FetchError) {
        func failure(_ problem: String) -> FetchError {
            let subject = variable.map { "\($0) names \(path), which" } ?? "the certificate bundle \(path)"
            return FetchError(.certificate, url: url, message: "\(subject) \(problem)")
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            let error = Errno(rawValue: errno)
            if error.rawValue == ENOENT { throw failure("does not exist") }
            throw failure("cannot be read: \(error.words)")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw failure("is a folder, not a file of certificates")
        case S_IFIFO: throw failure("is a named pipe, not a file of certificates")
        case S_IFSOCK: throw failure("is a socket, not a file of certificates")
        case S_IFCHR, S_IFBLK: throw failure("is a device, not a file of certificates")
        default: throw failure("is not a regular file")
        }
        guard access(path, R_OK) == 0 else {
            throw failure("cannot be read: \(Errno(rawValue: errno).words)")
        }
    }

    /// The error for `code`, naming `target`'s host (or the proxy, when it is the culprit).
    static func fetchError(code: CURLcode, target: RequestTarget,
                           configuration: HTTPTransportConfiguration, details: Details) -> FetchError {
        let url = target.url, host = target.host, port = target.port
        let said = details.message.httpTrimmed
        func network(_ message: String) -> FetchError { FetchError(.network, url: url, message: message) }
        switch code {
        case CURLE_ABORTED_BY_CALLBACK where details.cancelled:
            return network("the request was cancelled")
        case CURLE_WRITE_ERROR where details.overLimit:
            return FetchError(.tooLarge, url: url, message: "the body is over the limit of \(details.limit) bytes")
        case CURLE_FILESIZE_EXCEEDED:
            if let declared = details.declaredLength {
                return FetchError(.tooLarge, url: url,
                                  message: "the body is \(declared) bytes, over the limit of \(details.limit) bytes")
            }
            return FetchError(.tooLarge, url: url, message: "the body is over the limit of \(details.limit) bytes")
        case CURLE_WRITE_ERROR where details.invalidLength != nil:
            return network("the reply from \(host) is not valid HTTP: \(details.invalidLength!)")
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_WEIRD_SERVER_REPLY:
            // The scheme was checked before libcurl saw the URL: this is about the reply (or
            // the proxy), a failed fetch, not the user's mistake.
            if said.contains("proxy") { return network("\(details.proxyUsed?.words ?? "the proxy") failed (\(said))") }
            if said.hasPrefix("Protocol ") {
                return network("this libcurl cannot fetch \(target.scheme) URLs (\(said))")
            }
            if said.contains("HTTP/0.9") {
                return network("the reply from \(host) is not HTTP: no status line (HTTP/0.9, or another protocol)")
            }
            let why = said.isEmpty ? String(cString: curl_easy_strerror(code)) : said
            return network("the reply from \(host) is not valid HTTP (\(why))")
        case CURLE_URL_MALFORMAT:
            return FetchError(.invalidURL, url: url, message: "not a URL libcurl can fetch")
        case CURLE_COULDNT_RESOLVE_HOST:
            return network("the host \(host) was not found")
        case CURLE_COULDNT_RESOLVE_PROXY:
            if let proxy = details.proxy { return network("the proxy's host \(proxy.host) was not found") }
            return network("the proxy's host was not found (\(said))")
        case CURLE_COULDNT_CONNECT where said.hasPrefix("Unsupported proxy scheme"):
            // libcurl: "Unsupported proxy scheme for 'gopher://host:port'".
            let named = said.split(separator: "'").dropFirst().first.flatMap { CurlProxy.givenScheme(String($0)) }
            let proxy = details.proxy
            let scheme = (proxy?.scheme ?? named).map { " \($0):" } ?? ""
            let source = proxy?.variable.map { " (\($0))" } ?? ""
            return network("the proxy's scheme\(scheme)\(source) is not supported; use http, https, socks4 or socks5")
        case CURLE_COULDNT_CONNECT:
            let reason = details.osErrno != 0 ? Errno(rawValue: details.osErrno).words : "no connection"
            if let (peer, isProxy) = connectPeer(said, host: host, port: port), isProxy {
                return network("could not connect to the proxy \(peer): \(reason)")
            }
            return network("could not connect to \(host): \(reason)")
        case CURLE_OPERATION_TIMEDOUT:
            return FetchError(.timedOut, url: url, message: timeoutMessage(said: said, target: target,
                                                                            configuration: configuration, details: details))
        case _ where details.proxyVerifyResult != 0
            && [CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM].contains(code):
            // The https proxy's certificate, not the server's.
            let proxy = details.proxyUsed.map(\.words) ?? "the https proxy"
            return FetchError(.certificate, url: url,
                              message: certificateReason(details.proxyVerifyResult, said: said, host: proxy))
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM:
            return FetchError(.certificate, url: url,
                              message: certificateReason(details.verifyResult, said: said, host: host))
        case CURLE_SSL_CACERT_BADFILE:
            let path: String
            if case .pemFile(let file) = configuration.trustRoots { path = file } else { path = "the system's bundle" }
            let subject = configuration.trustRootsVariable.map { "\($0) names \(path), which" } ?? "the certificate bundle \(path)"
            return FetchError(.certificate, url: url, message: "\(subject) holds no usable certificate")
        case CURLE_SSL_CONNECT_ERROR where details.proxyUsed?.scheme == "https" && details.tunnelStatus == 0:
            // No tunnel yet: the handshake that failed is the one with the https proxy.
            return FetchError(.certificate, url: url,
                              message: "the TLS handshake with \(details.proxyUsed!.words) failed (\(said))")
        case CURLE_SSL_CONNECT_ERROR:
            return FetchError(.certificate, url: url, message: "the TLS handshake with \(host) failed (\(said))")
        case CURLE_GOT_NOTHING:
            return network("\(host) closed the connection without answering")
        case CURLE_PARTIAL_FILE:
            return network("\(host) closed the connection before the whole body was sent")
        case CURLE_RECV_ERROR where said.hasPrefix("Too large response headers"):
            return network("the headers from \(host) are too large (over libcurl's limit: \(said))")
        case CURLE_OUT_OF_MEMORY where !details.headersComplete, CURLcode(rawValue: 100) where !details.headersComplete:
            // A header line over libcurl's 100 KB (CURLE_OUT_OF_MEMORY before 8.6, then
            // CURLE_TOO_LARGE): the server's fault, not this machine's memory.
            return network("the headers from \(host) are too large (a line over libcurl's limit of 100 KB)")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            if said.contains("CONNECT") || said.lowercased().contains("proxy") {
                return network("\(details.proxyUsed?.words ?? "the proxy") did not open a tunnel to \(host) (\(said))")
            }
            let reason = details.osErrno != 0 ? Errno(rawValue: details.osErrno).words : said
            return network("the connection to \(host) failed: \(reason)")
        case CURLE_PROXY:
            return network("\(details.proxyUsed?.words ?? "the proxy") failed (\(said))")
        case CURLE_OUT_OF_MEMORY:
            return network("out of memory")
        default:
            let words = said.isEmpty ? String(cString: curl_easy_strerror(code)) : said
            return network("the request to \(host) failed: \(words)")
        }
    }

    /// The words for a time-out: which limit passed (the connect time-out, the transport's
    /// total, or the fetch's shared budget) and what did not answer (the server, or the proxy
    /// on the way to it).
    private static func timeoutMessage(said: String, target: RequestTarget,
                                       configuration: HTTPTransportConfiguration,
                                       details: Details) -> String {
        let host = target.host, port = target.port
        let limits = details.limits ?? TimeLimits(configuration: configuration, budget: nil)
        let budgetRanOut = limits.budgetTotal.map { "before the \(seconds($0)) for the whole fetch ran out" }
        let connectLimit = limits.budgetBoundsConnect ? budgetRanOut! : "within \(seconds(limits.connect))"
        // libcurl's words tell the phase ("Operation timed out" once the request is sent);
        // its timings back them up for words it may use in other versions.
        let transferring = said.hasPrefix("Operation timed out")
        let connecting = !transferring && (details.connected == false || said.hasPrefix("Connection timed out")
            || said.hasPrefix("Failed to connect") || said.hasPrefix("Resolving") || said.hasPrefix("connect timeout")
            || said.hasPrefix("SSL connection timeout") || said.hasPrefix("Proxy CONNECT"))
        let proxy = details.proxyUsed
        guard connecting else {
            let through = proxy.map { " through \($0.words)" } ?? ""
            return "no complete answer from \(host)\(through) \(budgetRanOut ?? "within \(seconds(limits.total))")"
        }
        let https = target.scheme == "https"
        // libcurl records the peer's port once the TCP connection is up, so a stall after
        // that is in a handshake: the proxy's (socks, CONNECT, TLS to an https proxy) or TLS.
        let tcpUp = details.primaryPort != 0 || said.hasPrefix("SSL") || said.hasPrefix("Proxy CONNECT")
        if said.hasPrefix("Resolving") {
            return proxy.map { "could not resolve \($0.words) \(connectLimit)" } ?? "could not resolve \(host) \(connectLimit)"
        }
        if let (peer, isProxy) = connectPeer(said, host: host, port: port), isProxy {
            return "could not connect to the proxy \(peer) \(connectLimit)"
        }
        if let proxy, tcpUp {
            if proxy.scheme.hasPrefix("socks") {
                return "\(proxy.words) did not answer \(connectLimit) (on the way to \(host))"
            }
            if details.tunnelStatus == 0 {
                // No answer to CONNECT yet (for https), or the TLS handshake with an https
                // proxy stalled.
                if proxy.scheme == "https" && (said.hasPrefix("SSL") || !https) {
                    return "the TLS handshake with \(proxy.words) did not finish \(connectLimit)"
                }
                if https { return "\(proxy.words) did not open a tunnel to \(host) \(connectLimit)" }
            }
        }
        if https && tcpUp {
            return "the TLS handshake with \(host) did not finish \(connectLimit)"
        }
        return "could not connect to \(host) \(connectLimit)"
    }

    /// "HOST port PORT" from libcurl's "Failed to connect to HOST port PORT after N ms: …", and
    /// whether that is not the URL's host and port (so a proxy's).
    private static func connectPeer(_ said: String, host: String, port: Int) -> (String, Bool)? {
        let prefix = "Failed to connect to "
        guard said.hasPrefix(prefix) else { return nil }
        var rest = Substring(said.dropFirst(prefix.count))
        if let after = rest.firstRange(of: " after ") { rest = rest[..<after.lowerBound] }
        return (String(rest), String(rest) != "\(host) port \(port)")
    }

    /// The reason a chain was refused, from OpenSSL's verify result and libcurl's words.
    static func certificateReason(_ verifyResult: Int, said: String, host: String) -> String {
        switch verifyResult {
        case 10: return "the certificate of \(host) has expired"
        case 9: return "the certificate of \(host) is not valid yet"
        case 18: return "the certificate of \(host) is self-signed, and not trusted"
        case 19: return "the certificate of \(host) is signed by a self-signed root that is not trusted"
        case 20, 21: return "the certificate of \(host) is from an unknown issuer, not trusted (unable to get the local issuer certificate)"
        case 62: return "the certificate of \(host) is for another host name"
        case 23: return "the certificate of \(host) has been revoked"
        case 26: return "the certificate of \(host) is not meant for a server"
        default: break
        }
        let lowered = said.lowercased()
        if lowered.contains("subject name") || lowered.contains("does not match") || lowered.contains("hostname") {
            return "the certificate of \(host) is for another host name"
        }
        if lowered.contains("expired") { return "the certificate of \(host) has expired" }
        if lowered.contains("self-signed") || lowered.contains("self signed") {
            return "the certificate of \(host) is self-signed, and not trusted"
        }
        return "the certificate of \(host) is not trusted (\(said))"
    }

    /// "10 s", "0.5 s".
    static func seconds(_ duration: Duration) -> String {
        let (whole, atto) = duration.components
        if atto == 0 { return "\(whole) s" }
        return "\(Double(whole) + Double(atto) / 1e18) s"
    }
}
