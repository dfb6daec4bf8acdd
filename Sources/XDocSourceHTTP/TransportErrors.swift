import AsyncHTTPClient
import NIOCore
import NIOPosix
import NIOSSL
import XDocSource
import XDSSystem

/// Turns what AsyncHTTPClient, NIO and BoringSSL throw into ``FetchError``s in words.
enum TransportErrors {
    static func fetchError(for error: any Error, url: String, host: String,
                           configuration: HTTPTransportConfiguration) -> FetchError {
        switch error {
        case let error as FetchError:
            return error
        case let error as BodyTooLarge:
            if let declared = error.declared {
                return FetchError(.tooLarge, url: url,
                                  message: "the body is \(declared) bytes, over the limit of \(error.limit) bytes")
            }
            return FetchError(.tooLarge, url: url, message: "the body is over the limit of \(error.limit) bytes")
        case is TotalTimeoutPassed:
            return FetchError(.timedOut, url: url,
                              message: "no complete answer within \(seconds(configuration.totalTimeout))")
        case let error as HTTPClientError:
            return clientError(error, url: url, host: host, configuration: configuration)
        case let error as NIOConnectionError:
            return connectionError(error, url: url, host: host)
        case let error as ChannelError:
            if case .connectTimeout = error {
                return connectTimedOut(url: url, host: host, configuration: configuration)
            }
            return FetchError(.network, url: url, message: "the connection to \(host) failed (\(error))")
        case let error as IOError:
            return FetchError(.network, url: url, message: "the connection to \(host) failed: \(words(error))")
        case let error as NIOSSLError:
            return certificateError(error, url: url, host: host)
        case let error as NIOSSLExtraError:
            return certificateError(error, url: url, host: host)
        case let error as BoringSSLError:
            return certificateError(error, url: url, host: host)
        case is CancellationError:
            return FetchError(.network, url: url, message: "the request was cancelled")
        default:
            return FetchError(.network, url: url, message: "the request to \(host) failed (\(error))")
        }
    }

    private static func clientError(_ error: HTTPClientError, url: String, host: String,
                                    configuration: HTTPTransportConfiguration) -> FetchError {
        switch error {
        case .connectTimeout:
            return connectTimedOut(url: url, host: host, configuration: configuration)
        case .readTimeout, .deadlineExceeded:
            return FetchError(.timedOut, url: url,
                              message: "no complete answer within \(seconds(configuration.totalTimeout))")
        case .tlsHandshakeTimeout:
            return FetchError(.timedOut, url: url,
                              message: "the TLS handshake with \(host) did not finish within \(seconds(configuration.connectTimeout))")
        case .httpProxyHandshakeTimeout, .socksHandshakeTimeout:
            return FetchError(.timedOut, url: url, message: "the proxy did not open a tunnel to \(host) in time")
        case .invalidProxyResponse:
            return FetchError(.network, url: url, message: "the proxy refused to open a tunnel to \(host)")
        case .proxyAuthenticationRequired:
            return FetchError(.network, url: url, message: "the proxy asks for credentials")
        case .remoteConnectionClosed:
            return FetchError(.network, url: url, message: "\(host) closed the connection before answering in full")
        case .invalidURL, .emptyHost, .emptyScheme:
            return FetchError(.invalidURL, url: url, message: "not a URL the HTTP client can fetch")
        case .cancelled:
            return FetchError(.network, url: url, message: "the request was cancelled")
        default:
            return FetchError(.network, url: url, message: "the request to \(host) failed (\(error.shortDescription))")
        }
    }

    private static func connectTimedOut(url: String, host: String,
                                        configuration: HTTPTransportConfiguration) -> FetchError {
        FetchError(.timedOut, url: url,
                   message: "could not connect to \(host) within \(seconds(configuration.connectTimeout))")
    }

    private static func connectionError(_ error: NIOConnectionError, url: String, host: String) -> FetchError {
        if error.dnsAError != nil || error.dnsAAAAError != nil, error.connectionErrors.isEmpty {
            return FetchError(.network, url: url, message: "the host \(host) was not found")
        }
        if let first = error.connectionErrors.first {
            if let io = first.error as? IOError {
                return FetchError(.network, url: url, message: "could not connect to \(host): \(words(io))")
            }
            return FetchError(.network, url: url, message: "could not connect to \(host) (\(first.error))")
        }
        return FetchError(.network, url: url, message: "could not connect to \(host)")
    }

    /// "connection refused", "connection reset by peer"… from the errno behind an IOError.
    private static func words(_ error: IOError) -> String {
        Errno(rawValue: error.errnoCode).words
    }

    private static func certificateError(_ error: any Error, url: String, host: String) -> FetchError {
        FetchError(.certificate, url: url,
                   message: "the TLS handshake with \(host) failed: \(CertificateFailure.reason(for: error, host: host))")
    }

    /// "10 s", "0.5 s".
    static func seconds(_ duration: Duration) -> String {
        let (whole, atto) = duration.components
        if atto == 0 { return "\(whole) s" }
        let value = Double(whole) + Double(atto) / 1e18
        return "\(value) s"
    }
}
