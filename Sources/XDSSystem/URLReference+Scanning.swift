/// The one scanner of schemes and authorities, shared by every reader of URL text in the
/// package: the strict ``URLReference/parse(_:)``, the split of a text shaped like a URL
/// (``URLReference/Split``, what a check or a count of hosts reads when the rest need not be
/// valid), and the lenient redaction rule (``URLRedaction``), which finds schemes anywhere in a
/// text.
extension URLReference {
    /// Whether `byte` may begin a scheme (RFC 3986 §3.1: `scheme = ALPHA *( ALPHA / DIGIT /
    /// "+" / "-" / "." )`): an ASCII letter.
    package static func isSchemeStart(_ byte: UInt8) -> Bool { isAlpha(byte) }

    /// Whether `byte` may follow the first byte of a scheme (§3.1): an ASCII letter or digit,
    /// `+`, `-` or `.`.
    package static func isSchemeByte(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// Where the scheme at the start of some bytes ends (the index of its colon), whether there
    /// is none, or whether what stands before the first `:` is not a valid scheme.
    package enum SchemeEnd: Equatable { case scheme(Int), none, invalid }

    /// The scheme at the start of `bytes` (RFC 3986 Appendix B: `^([^:/?#]+):`, then §3.1's
    /// characters).
    package static func schemeEnd(_ bytes: ArraySlice<UInt8>) -> SchemeEnd {
        var j = bytes.startIndex
        while j < bytes.endIndex, !isDelimiter(bytes[j]), bytes[j] != UInt8(ascii: ":") { j += 1 }
        guard j < bytes.endIndex, j > bytes.startIndex, bytes[j] == UInt8(ascii: ":") else { return .none }
        let scheme = bytes[bytes.startIndex..<j]
        guard isSchemeStart(scheme.first!), scheme.allSatisfy(isSchemeByte) else { return .invalid }
        return .scheme(j)
    }

    /// An authority found by ``scanAuthority(_:from:endsAtBackslash:)``, in indices of the
    /// bytes scanned.
    package struct AuthorityScan: Equatable {
        /// From the first byte of the authority to its end (exclusive).
        package var range: Range<Int>
        /// The index of the last `@` in it: everything before is the user information.
        package var userInfoEnd: Int?
    }

    /// The authority that starts at `start`, in one pass: it runs to the first `/`, `?`, `#`
    /// (RFC 3986 §3.2) or the end, and with `endsAtBackslash` to a `\` too (the WHATWG URL
    /// Standard's authority state ends at `\` for its special schemes). Its user information
    /// is everything before its *last* `@` (§3.2.1; a host, §3.2.2, cannot hold an `@`, so a
    /// valid authority has at most one).
    package static func scanAuthority(_ bytes: ArraySlice<UInt8>, from start: Int, endsAtBackslash: Bool = false) -> AuthorityScan {
        var index = start
        var userInfoEnd: Int?
        while index < bytes.endIndex {
            let byte = bytes[index]
            if isDelimiter(byte) || (endsAtBackslash && byte == UInt8(ascii: "\\")) { break }
            if byte == UInt8(ascii: "@") { userInfoEnd = index }
            index += 1
        }
        return AuthorityScan(range: start..<index, userInfoEnd: userInfoEnd)
    }

    /// `/`, `?` and `#`: the bytes that end a scheme's search and an authority (RFC 3986
    /// Appendix B).
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// Where the components of a text shaped like a URI reference are (RFC 3986 Appendix B's
    /// `^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?`), with the scheme's
    /// characters checked (§3.1) and nothing else: the first step of ``URLReference/parse(_:)``,
    /// and all that a reader needs which takes a text as it is written (the appInfoURL check,
    /// the hosts of URLs in marks). Indices are those of the bytes split.
    package struct Split: Equatable {
        /// The index of the scheme's colon; nil for a relative reference.
        package var schemeEnd: Int?
        /// The authority after `//`, and where its user information ends; nil without `//`.
        package var authority: AuthorityScan?
        /// The path, possibly empty.
        package var path: Range<Int>
        /// The query without `?`; nil without `?`.
        package var query: Range<Int>?
        /// The fragment without `#`; nil without `#`.
        package var fragment: Range<Int>?

        /// The components of `bytes`, or nil when what stands before its first `:` (and before
        /// any `/`, `?`, `#`) is not a valid scheme: a relative reference may not hold a colon
        /// in its first segment there (§4.2), so such a text is neither.
        package init?(_ bytes: ArraySlice<UInt8>) {
            var i = bytes.startIndex
            switch URLReference.schemeEnd(bytes) {
            case .scheme(let colon):
                schemeEnd = colon
                i = colon + 1
            case .invalid: return nil
            case .none: schemeEnd = nil
            }
            if i + 1 < bytes.endIndex, bytes[i] == UInt8(ascii: "/"), bytes[i + 1] == UInt8(ascii: "/") {
                let scan = URLReference.scanAuthority(bytes, from: i + 2)
                authority = scan
                i = scan.range.upperBound
            } else {
                authority = nil
            }
            var k = i
            while k < bytes.endIndex, bytes[k] != UInt8(ascii: "?"), bytes[k] != UInt8(ascii: "#") { k += 1 }
            path = i..<k
            i = k
            query = nil
            if i < bytes.endIndex, bytes[i] == UInt8(ascii: "?") {
                k = i + 1
                while k < bytes.endIndex, bytes[k] != UInt8(ascii: "#") { k += 1 }
                query = (i + 1)..<k
                i = k
            }
            fragment = i < bytes.endIndex ? (i + 1)..<bytes.endIndex : nil
        }
    }
}
