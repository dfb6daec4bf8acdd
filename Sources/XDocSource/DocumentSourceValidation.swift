/// The checks a writer applies to field values before writing them (SPEC §5).
///
/// Each check returns nil for a good value, or one line in words saying what is wrong with a
/// bad one ("contains a space"), so a caller can prefix it with the field's name.
public enum DocumentSourceValidation {
    /// Checks a bundle identifier: non-empty, only ASCII letters, digits, `.` and `-`
    /// (the characters of `CFBundleIdentifier`), no empty dot-separated part.
    public static func identifierProblem(_ identifier: String) -> String? {
        if identifier.isEmpty { return "is empty" }
        for scalar in identifier.unicodeScalars {
            let ok = scalar.isASCII
                && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                    || ("0"..."9").contains(scalar) || scalar == "." || scalar == "-")
            if !ok {
                return "contains \(describe(scalar)); use only letters, digits, '.' and '-' (reverse-DNS, e.g. com.example.app)"
            }
        }
        if identifier.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return "has an empty part between dots (reverse-DNS, e.g. com.example.app)"
        }
        return nil
    }

    /// Checks an app name: not empty and not only white space, no control characters.
    public static func nameProblem(_ name: String) -> String? {
        if name.unicodeScalars.allSatisfy(\.properties.isWhitespace) { return "is empty" }
        if let bad = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            return "contains \(describe(bad))"
        }
        return nil
    }

    /// Checks an `appInfoURL`: an absolute `https` URL with a host (`http` too when
    /// `allowHTTP`), in URL syntax: no spaces, no control or non-ASCII characters (write them
    /// percent-encoded), a numeric port if any.
    public static func appInfoURLProblem(_ url: String, allowHTTP: Bool = false) -> String? {
        if url.isEmpty { return "is empty" }
        for scalar in url.unicodeScalars {
            if scalar == " " { return "contains a space (write it as %20)" }
            if !scalar.isASCII || scalar.value < 0x21 || scalar.value == 0x7F {
                return "contains \(describe(scalar)) (write it percent-encoded)"
            }
            if "<>\"{}|\\^`".unicodeScalars.contains(scalar) {
                return "contains \(describe(scalar)), which URLs do not allow (write it percent-encoded)"
            }
        }
        guard let colon = url.firstIndex(of: ":") else {
            return "is not an absolute URL (it has no scheme; use https://…)"
        }
        let scheme = url[..<colon].lowercased()
        let validScheme = scheme.first.map { $0.isLetter } == true
            && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
        guard validScheme else { return "is not an absolute URL (it has no scheme; use https://…)" }
        switch scheme {
        case "https": break
        case "http":
            if !allowHTTP { return "uses http, which is allowed only with --allow-http; use https" }
        default:
            return "uses the scheme '\(scheme)'; only https is allowed (http with --allow-http)"
        }
        let rest = url[url.index(after: colon)...]
        guard rest.hasPrefix("//") else { return "has no host (expected \(scheme)://host/…)" }
        let afterSlashes = rest.dropFirst(2)
        let authority = afterSlashes.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        // user:password@host:port → host:port
        let hostPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        var host = hostPort[...]
        if hostPort.hasPrefix("[") {  // IPv6 literal
            guard let close = hostPort.firstIndex(of: "]") else { return "has a malformed host" }
            host = hostPort[...close]
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return "has a malformed port" }
                if let problem = portProblem(after.dropFirst()) { return problem }
            }
        } else if let portColon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<portColon]
            if let problem = portProblem(hostPort[hostPort.index(after: portColon)...]) { return problem }
        }
        if host.isEmpty { return "has no host (expected \(scheme)://host/…)" }
        return nil
    }

    /// A port is digits (or nothing, which means the default) naming a TCP port: at most 65535.
    private static func portProblem(_ port: Substring) -> String? {
        guard port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return "has a malformed port" }
        let digits = port.drop { $0 == "0" }
        guard digits.count <= 5, Int(digits).map({ $0 <= 65_535 }) ?? true else {
            return "has a port above 65535"
        }
        return nil
    }

    private static func describe(_ scalar: Unicode.Scalar) -> String {
        if scalar == " " { return "a space" }
        if scalar.properties.generalCategory == .control || !scalar.isASCII {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "the character U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex)"
        }
        return "'\(scalar)'"
    }
}
