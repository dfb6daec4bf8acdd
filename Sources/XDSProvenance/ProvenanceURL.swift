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
/// password holding an unencoded `/`, `\`, `?` or `#` cannot be told from a path.
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
        let bytes = Array(text.utf8)
        let clean = rewritten(bytes, cutQuery: false)
        // Only ASCII bytes were replaced or cut at, so the result is UTF-8 like the text.
        return clean == bytes ? text : String(decoding: clean, as: UTF8.self)
    }

    /// ``withoutCredentials(_:)``, then cut at the first `?` or `#` after the first authority
    /// (the query and the fragment). A text without an authority is returned unchanged.
    public static func redacted(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let clean = rewritten(bytes, cutQuery: true)
        return clean == bytes ? text : String(decoding: clean, as: UTF8.self)
    }

    /// ``withoutCredentials(_:)`` on bytes that need not be UTF-8 (a URL field that is not
    /// text, shown as hex).
    public static func withoutCredentials(bytes: some Collection<UInt8>) -> [UInt8] {
        rewritten(Array(bytes), cutQuery: false)
    }

    /// ``withoutCredentials(bytes:)`` of the first bytes of a longer value (one over its
    /// bound, not read whole): an authority that runs to their end may have its last `@` past
    /// them, so all of it is shown as `***`.
    public static func withoutCredentials(prefix bytes: some Collection<UInt8>) -> [UInt8] {
        let bytes = Array(bytes)
        var open: Int?
        forEachAuthority(bytes) { authority in
            if authority.range.upperBound == bytes.count { open = authority.range.lowerBound }
            return true
        }
        guard let open else { return rewritten(bytes, cutQuery: false) }
        return rewritten(Array(bytes[..<open]), cutQuery: false) + [0x2A, 0x2A, 0x2A]
    }

    /// ``redacted(_:)`` on bytes that need not be UTF-8.
    public static func redacted(bytes: some Collection<UInt8>) -> [UInt8] {
        rewritten(Array(bytes), cutQuery: true)
    }

    /// Whether `text` reads as a URL: a scheme (a letter, then letters, digits, `+`, `-`,
    /// `.`), a colon and at least one more character, and no space or control character.
    public static func isURL(_ text: String) -> Bool {
        Parts(Array(text.utf8)) != nil
    }

    /// The host of a URL with an authority, for counting by host: lower-cased, without the
    /// user information and a port, brackets of an IPv6 literal kept
    /// (`https://joe@Example.COM:8443/x` → `example.com`). For a text that does not parse as a
    /// URL (``isURL(_:)``), the first authority the rule finds, after its last `@`, without a
    /// trailing `:PORT` (RFC 3986 §3.2.3). Nil for a text without an authority, or an empty host.
    public static func host(_ url: String) -> String? {
        let bytes = Array(url.utf8)
        if let parts = Parts(bytes) {
            guard parts.hasAuthority else { return nil }
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
        var first: Authority?
        forEachAuthority(bytes) { authority in
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

    // MARK: The rule

    /// An authority found by the rule, in byte offsets.
    struct Authority {
        /// From after the skipped run to the first `/`, `\`, `?`, `#` or the end.
        var range: Range<Int>
        /// The offset of the last `@` in it.
        var userInfoEnd: Int?
    }

    /// `bytes` with every authority's user information as `***`, and with `cutQuery`, cut at
    /// the first `?` or `#` after the first authority. One pass, one copy.
    static func rewritten(_ bytes: [UInt8], cutQuery: Bool) -> [UInt8] {
        var out: [UInt8] = []
        var copied = 0
        var cut: Int?
        forEachAuthority(bytes) { authority in
            // Authorities from the cut on are cut away (each one before it ends before it).
            if let cut, authority.range.lowerBound >= cut { return false }
            if let at = authority.userInfoEnd {
                if out.isEmpty { out.reserveCapacity(bytes.count) }
                out += bytes[copied..<authority.range.lowerBound]
                out += [0x2A, 0x2A, 0x2A]
                copied = at
            }
            if cutQuery && cut == nil {
                // The first `?` or `#` after the first authority (none is inside one).
                var index = authority.range.upperBound
                while index < bytes.count, bytes[index] != UInt8(ascii: "?"), bytes[index] != UInt8(ascii: "#") { index += 1 }
                cut = index
            }
            return true
        }
        let end = cut ?? bytes.count
        if copied == 0 && out.isEmpty { return end == bytes.count ? bytes : Array(bytes[..<end]) }
        out += bytes[copied..<end]
        return out
    }

    /// Calls `body` with each authority the rule finds, in order, until it returns false.
    /// Every byte is looked at a bounded number of times: a scheme's letters once, then the
    /// skipped run and the authority once, the search resuming after it.
    static func forEachAuthority(_ bytes: [UInt8], _ body: (Authority) -> Bool) {
        let count = bytes.count
        var index = 0
        while index < count {
            // A scheme starts at a letter at the start of the text or after a byte that
            // cannot be part of a scheme (RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )).
            guard isLetter(bytes[index]), index == 0 || !isSchemeByte(bytes[index - 1]) else {
                index += 1
                continue
            }
            let schemeStart = index
            index += 1
            while index < count, isSchemeByte(bytes[index]) { index += 1 }
            // Not a scheme: the next one can only start after this run of scheme bytes.
            guard index < count, bytes[index] == UInt8(ascii: ":") else { continue }
            let colon = index
            index += 1
            var slash = false
            while index < count {
                if bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "\\") {
                    slash = true
                    index += 1
                } else if let length = controlLength(bytes, index) {
                    index += length
                } else {
                    break
                }
            }
            guard slash || alwaysHasAuthority(bytes[schemeStart..<colon]) else {
                // No authority: the search goes on right after the colon and the run.
                continue
            }
            let start = index
            var userInfoEnd: Int?
            while index < count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "?")
                    || byte == UInt8(ascii: "#")
                {
                    break
                }
                if byte == UInt8(ascii: "@") { userInfoEnd = index }
                index += 1
            }
            guard body(Authority(range: start..<index, userInfoEnd: userInfoEnd)) else { return }
        }
    }

    /// The length of the control character at `index`: C0 and DEL (one byte), a C1 control in
    /// UTF-8 (`C2 80`…`C2 9F`, two bytes); nil for any other byte.
    private static func controlLength(_ bytes: [UInt8], _ index: Int) -> Int? {
        let byte = bytes[index]
        if byte < 0x20 || byte == 0x7F { return 1 }
        if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] >= 0x80, bytes[index + 1] <= 0x9F { return 2 }
        return nil
    }

    /// `http`, `https`, `ftp`, `ws` and `wss` (any case): schemes that always have an
    /// authority, even after a single `/` or none.
    private static func alwaysHasAuthority(_ scheme: ArraySlice<UInt8>) -> Bool {
        guard scheme.count <= 5 else { return false }
        let lower = scheme.map { $0 | 0x20 }
        return [Array("http".utf8), Array("https".utf8), Array("ftp".utf8), Array("ws".utf8), Array("wss".utf8)]
            .contains(lower)
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    /// Where the pieces of a text that parses as a URL are (``isURL(_:)``), in UTF-8 offsets:
    /// what ``host(_:)`` counts.
    private struct Parts {
        /// After `scheme://` (or after `scheme:` when there is no authority).
        let authorityStart: Int
        /// The end of the authority (the first `/`, `?` or `#` after it, or the end).
        let authorityEnd: Int
        /// Whether the URL has `//` after its scheme.
        let hasAuthority: Bool
        /// The offset of the last `@` inside the authority.
        let userInfoEnd: Int?

        init?(_ bytes: [UInt8]) {
            guard let first = bytes.first, ProvenanceURL.isLetter(first) else { return nil }
            var index = 1
            while index < bytes.count, ProvenanceURL.isSchemeByte(bytes[index]) { index += 1 }
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
    }
}

extension XDGOrigin.Field {
    /// Whether the field holds a URL (``XDGOrigin/Field/url``, ``XDGOrigin/Field/referrer``): a
    /// field printers pass through ``ProvenanceURL`` (SPEC §6).
    public var isURLField: Bool { self == .url || self == .referrer }
}
