internal import XDSSystem

/// The checks a writer applies to field values before writing them (SPEC §5).
///
/// Each check returns nil for a good value, or a ``Problem`` saying what is wrong with a bad
/// one. A problem's `description` is one phrase in the library's words ("contains a space"),
/// so a caller can prefix it with the field's name; a command-line tool can instead switch
/// over the cases and word them with its own option names.
public enum DocumentSourceValidation {
    /// What is wrong with a field value.
    public enum Problem: Error, Hashable, Sendable, CustomStringConvertible {
        /// The value is empty.
        case empty
        /// An identifier holds a character other than an ASCII letter, digit, `.` or `-`.
        case invalidCharacter(Unicode.Scalar)
        /// An identifier has an empty dot-separated part (`com..app`, `.com`, `com.`).
        case emptyLabel
        /// An identifier part starts or ends with `-` (`-`, `com.-app`), which reverse-DNS
        /// names (DNS labels) do not allow.
        case hyphenAtLabelEdge
        /// A name shows nothing: only spaces, zero-width, directional or other invisible marks.
        case noVisibleCharacter
        /// A name holds a control character (a line break, an escape sequence).
        case controlCharacter(Unicode.Scalar)
        /// A URL holds a space.
        case space
        /// A URL holds a control or non-ASCII character, which must be percent-encoded.
        case notEncoded(Unicode.Scalar)
        /// A URL holds a character URLs do not allow (`<>"{}|\^` and backquote).
        case notAllowedInURL(Unicode.Scalar)
        /// A URL has no scheme (it is relative).
        case notAbsolute
        /// A URL uses `http` where only `https` is accepted.
        case httpNotAllowed
        /// A URL uses a scheme other than `https` and `http` (lower-cased here).
        case unsupportedScheme(String)
        /// A URL has no host (`https:///a`, `https:a`); carries the scheme for the message.
        case noHost(scheme: String)
        /// A URL's bracketed IPv6 host is not closed.
        case malformedHost
        /// A URL's port is not made of digits.
        case malformedPort
        /// A URL's port is above 65535.
        case portOutOfRange

        /// The problem as a phrase that follows the value's name ("is empty").
        public var description: String {
            switch self {
            case .empty: "is empty"
            case .invalidCharacter(let scalar):
                "contains \(Self.describe(scalar)); use only letters, digits, '.' and '-' (reverse-DNS, e.g. com.example.app)"
            case .emptyLabel: "has an empty part between dots (reverse-DNS, e.g. com.example.app)"
            case .hyphenAtLabelEdge:
                "has a part that starts or ends with '-' (reverse-DNS, e.g. com.example.my-app)"
            case .noVisibleCharacter: "has no visible character"
            case .controlCharacter(let scalar): "contains \(Self.describe(scalar))"
            case .space: "contains a space (write it as %20)"
            case .notEncoded(let scalar): "contains \(Self.describe(scalar)) (write it percent-encoded)"
            case .notAllowedInURL(let scalar):
                "contains \(Self.describe(scalar)), which URLs do not allow (write it percent-encoded)"
            case .notAbsolute: "is not an absolute URL (it has no scheme; use https://…)"
            case .httpNotAllowed: "uses http; use https"
            case .unsupportedScheme(let scheme): "uses the scheme '\(scheme)'; only https is allowed"
            case .noHost(let scheme): "has no host (expected \(scheme)://host/…)"
            case .malformedHost: "has a malformed host"
            case .malformedPort: "has a malformed port"
            case .portOutOfRange: "has a port above 65535"
            }
        }

        /// A character named so that an invisible or confusable one can still be seen.
        static func describe(_ scalar: Unicode.Scalar) -> String {
            if scalar == " " { return "a space" }
            if scalar.properties.generalCategory == .control || !scalar.isASCII {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                return "the character U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex)"
            }
            return "'\(scalar)'"
        }
    }

    /// Checks a bundle identifier: non-empty, only ASCII letters, digits, `.` and `-`
    /// (the characters of `CFBundleIdentifier`), reverse-DNS shaped: no empty dot-separated
    /// part and no part starting or ending with `-`.
    public static func identifierProblem(_ identifier: String) -> Problem? {
        if identifier.isEmpty { return .empty }
        for scalar in identifier.unicodeScalars {
            let ok = scalar.isASCII
                && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                    || ("0"..."9").contains(scalar) || scalar == "." || scalar == "-")
            if !ok { return .invalidCharacter(scalar) }
        }
        let labels = identifier.split(separator: ".", omittingEmptySubsequences: false)
        if labels.contains(where: \.isEmpty) { return .emptyLabel }
        if labels.contains(where: { $0.hasPrefix("-") || $0.hasSuffix("-") }) { return .hyphenAtLabelEdge }
        return nil
    }

    /// Checks an app name: not empty, at least one visible character (not only white space,
    /// zero-width or directional marks), no control characters.
    public static func nameProblem(_ name: String) -> Problem? {
        if name.isEmpty { return .empty }
        if name.unicodeScalars.allSatisfy(VisibleText.isInvisible) { return .noVisibleCharacter }
        if let bad = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            return .controlCharacter(bad)
        }
        return nil
    }

    /// Checks an `appInfoURL`: an absolute `https` URL with a host (`http` too when
    /// `allowHTTP`), in URL syntax: no spaces, no control or non-ASCII characters (write them
    /// percent-encoded), a numeric port if any.
    public static func appInfoURLProblem(_ url: String, allowHTTP: Bool = false) -> Problem? {
        if url.isEmpty { return .empty }
        for scalar in url.unicodeScalars {
            if scalar == " " { return .space }
            if !scalar.isASCII || scalar.value < 0x21 || scalar.value == 0x7F { return .notEncoded(scalar) }
            if "<>\"{}|\\^`".unicodeScalars.contains(scalar) { return .notAllowedInURL(scalar) }
        }
        // The components as RFC 3986 Appendix B splits them, with URLReference's scanner, the
        // one the fetcher's parse begins with. The rest of the parse is not applied: this check
        // catches what a person types wrong, and accepts what the strict parse refuses later
        // (two `@`, a colon in the host, `[`, `]` or a lone `%` in the path, a second `#`).
        let bytes = Array(url.utf8)
        guard let split = URLReference.Split(bytes[...]), let colon = split.schemeEnd else { return .notAbsolute }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        switch scheme {
        case "https": break
        case "http":
            if !allowHTTP { return .httpNotAllowed }
        default:
            return .unsupportedScheme(scheme)
        }
        guard let authority = split.authority else { return .noHost(scheme: scheme) }
        // user:password@host:port → host:port (after the last `@`)
        let hostStart = authority.userInfoEnd.map { $0 + 1 } ?? authority.range.lowerBound
        let hostPort = Substring(String(decoding: bytes[hostStart..<authority.range.upperBound], as: UTF8.self))
        var host = hostPort[...]
        if hostPort.hasPrefix("[") {  // IPv6 literal
            guard let close = hostPort.firstIndex(of: "]") else { return .malformedHost }
            host = hostPort[...close]
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .malformedPort }
                if let problem = portProblem(after.dropFirst()) { return problem }
            }
        } else if let portColon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<portColon]
            if let problem = portProblem(hostPort[hostPort.index(after: portColon)...]) { return problem }
        }
        if host.isEmpty { return .noHost(scheme: scheme) }
        return nil
    }

    /// A port is digits (or nothing, which means the default) naming a TCP port: at most 65535.
    private static func portProblem(_ port: Substring) -> Problem? {
        guard port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .malformedPort }
        let digits = port.drop { $0 == "0" }
        guard digits.count <= 5, Int(digits).map({ $0 <= 65_535 }) ?? true else { return .portOutOfRange }
        return nil
    }
}
