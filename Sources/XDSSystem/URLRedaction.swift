/// The rule that keeps credentials out of URL text shown to people, whether or not the text
/// parses as a URL: the user information an authority may carry is replaced by `***`, and
/// ``redacted(_:)`` also drops the query and fragment, where signed download tokens travel.
/// XDSProvenance's `ProvenanceURL` prints the URL fields of marks with it.
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
/// - A text in which no authority is found is returned unchanged by both.
///
/// The scheme's characters and the authority's end and user information are read by
/// ``URLReference``'s scanner (``URLReference/isSchemeByte(_:)``,
/// ``URLReference/scanAuthority(_:from:endsAtBackslash:)``), the one the strict parse uses;
/// what is lenient here is where a scheme may start and what may stand between it and its
/// authority. The rule works on bytes, which need not be UTF-8, and is linear in their number
/// whatever the number of schemes and `@`. Its limit: a password holding an unencoded `/`, `\`,
/// `?` or `#` cannot be told from a path.
package enum URLRedaction {
    /// `text` with the user information of every authority the rule finds replaced by `***`.
    package static func withoutCredentials(_ text: String) -> String {
        // Credentials end at an `@`: a text without one has none (the common URL, asked about
        // for every record of a walk), and is returned without a copy.
        var probe = text
        guard probe.withUTF8({ $0.contains(UInt8(ascii: "@")) }) else { return text }
        let bytes = Array(text.utf8)
        let clean = rewritten(bytes, cutQuery: false)
        // Only ASCII bytes were replaced or cut at, so the result is UTF-8 like the text.
        return clean == bytes ? text : String(decoding: clean, as: UTF8.self)
    }

    /// ``withoutCredentials(_:)``, then cut at the first `?` or `#` after the first authority.
    package static func redacted(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let clean = rewritten(bytes, cutQuery: true)
        return clean == bytes ? text : String(decoding: clean, as: UTF8.self)
    }

    /// ``withoutCredentials(_:)`` of the first bytes of a longer value (one over its bound,
    /// not read whole): an authority that runs to their end may have its last `@` past them, so
    /// all of it is shown as `***`.
    package static func withoutCredentials(prefix bytes: [UInt8]) -> [UInt8] {
        var open: Int?
        forEachAuthority(bytes) { authority in
            if authority.range.upperBound == bytes.count { open = authority.range.lowerBound }
            return true
        }
        guard let open else { return rewritten(bytes, cutQuery: false) }
        return rewritten(Array(bytes[..<open]), cutQuery: false) + [0x2A, 0x2A, 0x2A]
    }

    /// `bytes` with every authority's user information as `***`, and with `cutQuery`, cut at
    /// the first `?` or `#` after the first authority. One pass, one copy.
    package static func rewritten(_ bytes: [UInt8], cutQuery: Bool) -> [UInt8] {
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
    package static func forEachAuthority(_ bytes: [UInt8], _ body: (URLReference.AuthorityScan) -> Bool) {
        let count = bytes.count
        var index = 0
        while index < count {
            // A scheme starts at a letter at the start of the text or after a byte that
            // cannot be part of a scheme.
            guard URLReference.isSchemeStart(bytes[index]), index == 0 || !URLReference.isSchemeByte(bytes[index - 1]) else {
                index += 1
                continue
            }
            let schemeStart = index
            index += 1
            while index < count, URLReference.isSchemeByte(bytes[index]) { index += 1 }
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
            let authority = URLReference.scanAuthority(bytes[...], from: index, endsAtBackslash: true)
            index = authority.range.upperBound
            guard body(authority) else { return }
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
    /// authority, even after a single `/` or none (the WHATWG URL Standard's special schemes
    /// with a host).
    private static func alwaysHasAuthority(_ scheme: ArraySlice<UInt8>) -> Bool {
        guard scheme.count <= 5 else { return false }
        let lower = scheme.map { $0 | 0x20 }
        return [Array("http".utf8), Array("https".utf8), Array("ftp".utf8), Array("ws".utf8), Array("wss".utf8)]
            .contains(lower)
    }
}
