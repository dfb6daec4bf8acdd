internal import XDSSystem

/// The text of a URL field of a mark, made fit to print (SPEC §6): the user information an
/// authority may carry is never shown, and `--redact` also drops the query and fragment, where
/// signed download tokens travel.
///
/// Marks keep the raw value (``XDGOrigin/url``, ``ZoneIdentifier/hostURL``, …); whoever prints
/// one applies these. One rule covers every URL field, whether or not it parses as a URL:
///
/// - A *scheme* is an ASCII letter, then ASCII letters, digits, `+`, `-` or `.`, then `:`
///   (RFC 3986 §3.1), at the start of the text or after a byte that cannot be part of one.
/// - After its `:`, a run of `/`, `\` and control characters is skipped. An authority follows
///   when that run holds a `/` or `\` (RFC 3986 §3.2 begins one with `//`; the WHATWG URL
///   Standard's "special authority ignore slashes state" takes any run of `/` and `\`), or when
///   the scheme is `http`, `https`, `ftp`, `ws` or `wss` (any case: the URL Standard's special
///   schemes with a host, which always have one); the search for the next scheme resumes after it.
/// - The authority runs to the first `/`, `\`, `?`, `#` or the end (RFC 3986 §3.2: blanks and
///   control characters do not end it here). Everything before its *last* `@` is the user
///   information (RFC 3986 §3.2.1; a host, §3.2.2, cannot hold an `@`) and is shown as `***`.
/// - ``redacted(_:)`` then cuts at the first `?` or `#` after the first authority (the query
///   and fragment, RFC 3986 §3.4, §3.5).
/// - A text in which no authority is found is returned unchanged by both (`mailto:joe@x`,
///   `urn:…`, the Subject line Mail puts in a WhereFroms list).
///
/// The rule works on bytes (a value that is not UTF-8 goes through ``withoutCredentials(bytes:)``
/// before it is shown as hex); escaping for the terminal comes after it, never before. It is
/// linear in the length of the text, whatever the number of schemes and `@`. Its limit: a
/// password holding an unencoded `/`, `\`, `?` or `#` cannot be told from a path. The rule is
/// the package's (`URLRedaction`, beside its URL parser `URLReference`, whose scanning of
/// schemes and authorities it shares); this type is how library users reach it.
///
/// ```swift
/// ProvenanceURL.withoutCredentials("https://joe:secret@example.com/a?t=1")  // "https://***@example.com/a?t=1"
/// ProvenanceURL.withoutCredentials("https:/alice:pw@h/a b")                // "https:/***@h/a b"
/// ProvenanceURL.redacted("https://joe:secret@example.com/a?t=1#x")         // "https://***@example.com/a"
/// ```
public enum ProvenanceURL {
    /// `text` with the user information of every authority the rule finds (everything before
    /// the authority's last `@`) replaced by `***`. A text without an authority holding an
    /// `@` is returned unchanged.
    public static func withoutCredentials(_ text: String) -> String {
        URLRedaction.withoutCredentials(text)
    }

    /// ``withoutCredentials(_:)``, then cut at the first `?` or `#` after the first authority
    /// (the query and the fragment). A text without an authority is returned unchanged.
    public static func redacted(_ text: String) -> String {
        URLRedaction.redacted(text)
    }

    /// ``withoutCredentials(_:)`` on bytes that need not be UTF-8 (a URL field that is not
    /// text, shown as hex).
    public static func withoutCredentials(bytes: some Collection<UInt8>) -> [UInt8] {
        URLRedaction.rewritten(Array(bytes), cutQuery: false)
    }

    /// ``withoutCredentials(bytes:)`` of the first bytes of a longer value (one over its
    /// bound, not read whole): an authority that runs to their end may have its last `@` past
    /// them, so all of it is shown as `***`.
    public static func withoutCredentials(prefix bytes: some Collection<UInt8>) -> [UInt8] {
        URLRedaction.withoutCredentials(prefix: Array(bytes))
    }

    /// ``redacted(_:)`` on bytes that need not be UTF-8.
    public static func redacted(bytes: some Collection<UInt8>) -> [UInt8] {
        URLRedaction.rewritten(Array(bytes), cutQuery: true)
    }

    /// Whether `text` reads as a URL: a scheme (a letter, then letters, digits, `+`, `-`,
    /// `.`), a colon and at least one more character, and no space or control character.
    public static func isURL(_ text: String) -> Bool {
        isURL(Array(text.utf8))
    }

    /// The host of a URL with an authority, for counting by host: lower-cased, without the
    /// user information and a port, brackets of an IPv6 literal kept
    /// (`https://joe@Example.COM:8443/x` → `example.com`). For a text that does not parse as a
    /// URL (``isURL(_:)``), the first authority the rule finds, after its last `@`, without a
    /// trailing `:PORT` (RFC 3986 §3.2.3). Nil for a text without an authority, or an empty host.
    public static func host(_ url: String) -> String? {
        let bytes = Array(url.utf8)
        if isURL(bytes) {
            // The authority as RFC 3986 Appendix B splits it (`//` after the scheme, to the
            // first `/`, `?` or `#`), its host ending at the close of an IP literal or at the
            // first colon (§3.2.2, §3.2.3); the rest need not be valid.
            guard let authority = URLReference.Split(bytes[...])?.authority else { return nil }
            let start = authority.userInfoEnd.map { $0 + 1 } ?? authority.range.lowerBound
            var end = authority.range.upperBound
            if bytes[start..<end].first == UInt8(ascii: "[") {
                if let close = bytes[start..<end].firstIndex(of: UInt8(ascii: "]")) { end = close + 1 }
            } else if let colon = bytes[start..<end].firstIndex(of: UInt8(ascii: ":")) {
                end = colon
            }
            guard end > start else { return nil }
            return String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
        }
        var first: URLReference.AuthorityScan?
        URLRedaction.forEachAuthority(bytes) { authority in
            first = authority
            return false
        }
        guard let first else { return nil }
        let start = first.userInfoEnd.map { $0 + 1 } ?? first.range.lowerBound
        var end = first.range.upperBound
        var digits = end
        while digits > start, bytes[digits - 1] >= 0x30, bytes[digits - 1] <= 0x39 { digits -= 1 }
        if digits > start, bytes[digits - 1] == UInt8(ascii: ":") { end = digits - 1 }
        guard end > start else { return nil }
        return String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
    }

    /// ``isURL(_:)`` on UTF-8 bytes: a scheme at the start (RFC 3986 §3.1), one more byte
    /// after its colon, and no byte that is a space or a control character.
    private static func isURL(_ bytes: [UInt8]) -> Bool {
        guard case .scheme(let colon) = URLReference.schemeEnd(bytes[...]), colon + 1 < bytes.count else { return false }
        return !bytes.contains { $0 <= 0x20 || $0 == 0x7F }
    }
}

extension XDGOrigin.Field {
    /// Whether the field holds a URL (``XDGOrigin/Field/url``, ``XDGOrigin/Field/referrer``): a
    /// field printers pass through ``ProvenanceURL`` (SPEC §6).
    public var isURLField: Bool { self == .url || self == .referrer }
}
