/// The text of a URL found in a mark, made fit to print (SPEC §6): credentials are never shown,
/// and `--redact` also drops the query and fragment, where signed download tokens travel.
///
/// Marks keep the raw value (``XDGOrigin/url``, ``ZoneIdentifier/hostURL``, …); whoever prints
/// one applies these. Text that is not a URL (``isURL(_:)``: a scheme, a colon, no spaces or
/// control characters, such as the Subject line Mail puts in a WhereFroms list) is returned as
/// it is by both.
///
/// ```swift
/// ProvenanceURL.withoutCredentials("https://joe:secret@example.com/a?t=1")  // "https://***@example.com/a?t=1"
/// ProvenanceURL.redacted("https://joe:secret@example.com/a?t=1#x")         // "https://***@example.com/a"
/// ```
public enum ProvenanceURL {
    /// `url` with the user name and password of its authority (`user:password@`, or a lone
    /// `user@`) replaced by `***@`. URLs without an authority (`mailto:joe@example.com`,
    /// `urn:…`) and text that is not a URL are returned unchanged.
    public static func withoutCredentials(_ url: String) -> String {
        guard let parts = Parts(url), let at = parts.userInfoEnd else { return url }
        let bytes = Array(url.utf8)
        return String(decoding: bytes[..<parts.authorityStart] + Array("***".utf8) + bytes[at...], as: UTF8.self)
    }

    /// ``withoutCredentials(_:)``, then without the query (`?…`) and the fragment (`#…`).
    /// Text that is not a URL is returned unchanged.
    public static func redacted(_ url: String) -> String {
        let clean = withoutCredentials(url)
        guard isURL(clean) else { return clean }
        let bytes = Array(clean.utf8)
        guard let cut = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else { return clean }
        return String(decoding: bytes[..<cut], as: UTF8.self)
    }

    /// Whether `text` reads as a URL: a scheme (a letter, then letters, digits, `+`, `-`,
    /// `.`), a colon and at least one more character, and no space or control character.
    public static func isURL(_ text: String) -> Bool {
        Parts(text) != nil
    }

    /// The host of a URL with an authority (`https://joe@Example.COM:8443/x` → `example.com`,
    /// lowercased, brackets of an IPv6 literal kept), for counting by host; nil for text
    /// without one.
    public static func host(_ url: String) -> String? {
        guard let parts = Parts(url), parts.hasAuthority else { return nil }
        let bytes = Array(url.utf8)
        var start = parts.authorityStart
        if let at = parts.userInfoEnd { start = at + 1 }
        var end = parts.authorityEnd
        if bytes[start..<end].first == UInt8(ascii: "[") {
            if let close = bytes[start..<end].firstIndex(of: UInt8(ascii: "]")) { end = close + 1 }
        } else if let colon = bytes[start..<end].firstIndex(of: UInt8(ascii: ":")) {
            end = colon
        }
        guard end > start else { return nil }
        return String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
    }

    /// Where a URL's pieces are, in UTF-8 offsets.
    private struct Parts {
        /// After `scheme://` (or after `scheme:` when there is no authority).
        let authorityStart: Int
        /// The end of the authority (the first `/`, `?` or `#` after it, or the end).
        let authorityEnd: Int
        /// Whether the URL has `//` after its scheme.
        let hasAuthority: Bool
        /// The offset of the last `@` inside the authority.
        let userInfoEnd: Int?

        init?(_ text: String) {
            let bytes = Array(text.utf8)
            guard let first = bytes.first, Self.isLetter(first) else { return nil }
            var index = 1
            while index < bytes.count, Self.isSchemeByte(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":"), index + 1 < bytes.count else { return nil }
            guard !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return nil }
            let afterColon = index + 1
            hasAuthority = bytes.count >= afterColon + 2 && bytes[afterColon] == UInt8(ascii: "/")
                && bytes[afterColon + 1] == UInt8(ascii: "/")
            guard hasAuthority else {
                authorityStart = afterColon
                authorityEnd = afterColon
                userInfoEnd = nil
                return
            }
            authorityStart = afterColon + 2
            var end = authorityStart
            while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"),
                bytes[end] != UInt8(ascii: "#")
            {
                end += 1
            }
            authorityEnd = end
            userInfoEnd = bytes[authorityStart..<end].lastIndex(of: UInt8(ascii: "@"))
        }

        private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
        private static func isSchemeByte(_ byte: UInt8) -> Bool {
            Self.isLetter(byte) || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
        }
    }
}
