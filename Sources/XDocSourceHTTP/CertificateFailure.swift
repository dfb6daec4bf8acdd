import NIOSSL

/// Why a TLS handshake failed, in words, from NIOSSL's and BoringSSL's errors.
enum CertificateFailure {
    /// The reason for the end of "the TLS handshake with HOST failed: REASON".
    static func reason(for error: any Error, host: String) -> String {
        if let error = error as? NIOSSLExtraError {
            if String(describing: error).contains("Couldn't find") || error == .failedToValidateHostname {
                return "the certificate of \(host) is for another host name"
            }
            return "\(error)"
        }
        let text: String
        switch error {
        case NIOSSLError.handshakeFailed(let inner): text = describe(inner)
        case let inner as BoringSSLError: text = describe(inner)
        case NIOSSLError.uncleanShutdown: return "\(host) closed the connection during the handshake"
        default: text = "\(error)"
        }
        return words(forBoringSSL: text, host: host)
    }

    private static func describe(_ error: BoringSSLError) -> String {
        switch error {
        case .sslError(let stack), .unknownError(let stack): stack.map(\.description).joined(separator: "; ")
        default: "\(error)"
        }
    }

    /// BoringSSL's reason codes (upper-case names inside its error strings) in words.
    static func words(forBoringSSL text: String, host: String) -> String {
        let table: [(String, String)] = [
            ("CERTIFICATE_VERIFY_FAILED", "the certificate of \(host) is not trusted"),
            ("SELF_SIGNED", "the certificate of \(host) is self-signed and not trusted"),
            ("CERTIFICATE_HAS_EXPIRED", "the certificate of \(host) has expired"),
            ("CERT_HAS_EXPIRED", "the certificate of \(host) has expired"),
            ("UNABLE_TO_GET_ISSUER_CERT", "the certificate of \(host) is issued by an unknown authority"),
            ("WRONG_VERSION_NUMBER", "\(host) does not speak TLS on this port"),
            ("TLSV1_ALERT_PROTOCOL_VERSION", "\(host) offers no TLS version in common"),
            ("NO_SHARED_CIPHER", "\(host) offers no cipher in common"),
            ("HANDSHAKE_FAILURE", "\(host) refused the handshake"),
            ("TLSV1_ALERT_UNKNOWN_CA", "\(host) does not trust the client's certificate authority"),
        ]
        for (code, words) in table where text.contains(code) { return words }
        return "\(host): \(text)"
    }
}
