#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDocSource
import XDocSourceFetch

extension ExitStatus {
    /// The SPEC §5 status for a failed fetch. A URL the user typed that the policy refuses is
    /// a usage error (64); the same refusal of what an attribute or a list holds is bad data
    /// (65), as is a local file over its limit.
    init(_ error: FetchError, typed: String?) {
        switch error.kind {
        case .refused, .invalidURL:
            self = error.url == typed ? .usage : .dataError
        case .network, .certificate, .timedOut, .httpStatus, .tooManyRedirects, .insecureRedirect, .redirectRefused,
             .notCached:
            self = .unavailable
        case .tooLarge:
            let remote = ["http", "https"].contains(URLReference.scheme(of: error.url))
            self = remote ? .unavailable : .dataError
        case .malformedAppInfo:
            self = .dataError
        case .noIcon:
            self = .absent
        case .io:
            self = error.errorNumber == ENOENT || error.errorNumber == ENOTDIR ? .noInput : .ioError
        }
    }
}
