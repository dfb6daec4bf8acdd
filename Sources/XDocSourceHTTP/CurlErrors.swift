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

    static func fetchError(code: CURLcode, url: String, host: String, port: Int,
                           configuration: HTTPTransportConfiguration, details: Details) -> FetchError {
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
        case CURLE_UNSUPPORTED_PROTOCOL:
            return FetchError(.refused, url: url, message: "the URL's scheme is not allowed here")
        case CURLE_URL_MALFORMAT:
            return FetchError(.invalidURL, url: url, message: "not a URL libcurl can fetch")
        case CURLE_COULDNT_RESOLVE_HOST:
            return network("the host \(host) was not found")
        case CURLE_COULDNT_RESOLVE_PROXY:
            return network("the proxy's host was not found (\(said))")
        case CURLE_COULDNT_CONNECT:
            let reason = details.osErrno != 0 ? Errno(rawValue: details.osErrno).words : "no connection"
            if let (peer, isProxy) = connectPeer(said, host: host, port: port), isProxy {
                return network("could not connect to the proxy \(peer): \(reason)")
            }
            return network("could not connect to \(host): \(reason)")
        case CURLE_OPERATION_TIMEDOUT:
            if said.hasPrefix("Connection timed out") || said.hasPrefix("Failed to connect") || said.hasPrefix("Resolving") {
                return FetchError(.timedOut, url: url,
                                  message: "could not connect to \(host) within \(seconds(configuration.connectTimeout))")
            }
            return FetchError(.timedOut, url: url,
                              message: "no complete answer from \(host) within \(seconds(configuration.totalTimeout))")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM:
            return FetchError(.certificate, url: url,
                              message: certificateReason(details.verifyResult, said: said, host: host))
        case CURLE_SSL_CACERT_BADFILE:
            let path: String
            if case .pemFile(let file) = configuration.trustRoots { path = file } else { path = "the system's bundle" }
            let subject = configuration.trustRootsVariable.map { "\($0) names \(path), which" } ?? "the certificate bundle \(path)"
            return FetchError(.certificate, url: url, message: "\(subject) holds no usable certificate")
        case CURLE_SSL_CONNECT_ERROR:
            return FetchError(.certificate, url: url, message: "the TLS handshake with \(host) failed (\(said))")
        case CURLE_GOT_NOTHING:
            return network("\(host) closed the connection without answering")
        case CURLE_PARTIAL_FILE:
            return network("\(host) closed the connection before the whole body was sent")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            if said.contains("CONNECT") || said.lowercased().contains("proxy") {
                return network("the proxy did not open a tunnel to \(host) (\(said))")
            }
            let reason = details.osErrno != 0 ? Errno(rawValue: details.osErrno).words : said
            return network("the connection to \(host) failed: \(reason)")
        case CURLE_PROXY:
            return network("the proxy failed (\(said))")
        case CURLE_OUT_OF_MEMORY:
            return network("out of memory")
        default:
            let words = said.isEmpty ? String(cString: curl_easy_strerror(code)) : said
            return network("the request to \(host) failed: \(words)")
        }
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
