/// Why an appInfo.json list or an icon could not be had.
///
/// ``message`` is one line in words without the URL; ``description`` puts the URL (or path)
/// in front of it. ``kind`` groups failures the way callers act on them; `xds` maps them to
/// the exit statuses of SPEC §5 (see each case).
public struct FetchError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The groups of failures.
    public enum Kind: Sendable, Hashable {
        /// The URL is refused by the policy: `http` without allowing it, a `file:` URL or
        /// local path that came from an attribute, a scheme other than https/http, a local
        /// `src` outside the appInfo's folder.
        /// (`xds`: 64 for what the user typed, 65 for what an attribute or list holds.)
        case refused
        /// The URL or path is not well-formed, or a `src` cannot be resolved against the base.
        case invalidURL
        /// The connection failed: host not found, refused, reset, proxy failure. (69)
        case network
        /// The TLS handshake failed: the certificate is not trusted, expired, or for another
        /// host; the message names the host and the reason. (69)
        case certificate
        /// The connect or total time-out passed. (69)
        case timedOut
        /// The server answered with an error status (404, 500…). (69)
        case httpStatus
        /// A redirect from https to plain http, which would drop the protection the first URL
        /// asked for. (69)
        case insecureRedirect
        /// More than the allowed number of redirects, or a redirect without a `Location`. (69)
        case tooManyRedirects
        /// A redirect to a URL the policy refuses as a remote URL: a scheme other than https
        /// (or allowed http) such as `file:`, `data:` or `ftp:`, a URL without a host, or a
        /// `Location` that is not a URL at all. The server, not the user, chose it, so it is a
        /// failed fetch. (69)
        case redirectRefused
        /// The body (or a local file) is larger than the limit: 256 KiB for appInfo.json,
        /// 8 MiB for an icon. (69 from a server, 65 for a local file)
        case tooLarge
        /// appInfo.json is not valid JSON or has no icon list. (65)
        case malformedAppInfo
        /// The list has no usable icon entry. (1)
        case noIcon
        /// `--offline` and nothing usable in the cache. (69)
        case notCached
        /// A local file or the cache folder could not be read or written. (66 missing, 74)
        case io
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// The URL or local path the failure is about, as text.
    public let url: String
    /// One line in words naming the problem, without the URL.
    public let message: String
    /// The errno behind an ``Kind/io`` failure, when a system call failed.
    public let errorNumber: Int32?
    /// The HTTP status behind an ``Kind/httpStatus`` failure.
    public let httpStatus: Int?

    /// Creates an error; ``description`` becomes "`url`: `message`".
    public init(_ kind: Kind, url: String, message: String, errorNumber: Int32? = nil, httpStatus: Int? = nil) {
        self.kind = kind
        self.url = url
        self.message = message
        self.errorNumber = errorNumber
        self.httpStatus = httpStatus
    }

    /// "URL: message".
    public var description: String { "\(url): \(message)" }
}
