/// The character-level grammar of RFC 3986 behind ``URLReference/parse(_:)``: the authority
/// (§3.2), IP literals (§3.2.2), percent-encoding (§2.1) and the character classes (§2.2–2.3).
extension URLReference {
    /// Checks the authority `scan` found in `whole` and fills in its parts: user information
    /// (before the last `@`, which a valid authority has at most one of), host and port.
    static func parseAuthority(_ whole: [UInt8], _ scan: AuthorityScan, into parts: inout Components) -> Bool {
        let bytes = whole[scan.range]
        var rest = bytes
        if let at = scan.userInfoEnd {
            guard let userinfo = encoded(rest[rest.startIndex..<at], allowing: .userinfo, encodeNonASCII: false) else {
                return false
            }
            parts.userinfo = userinfo
            rest = rest[(at + 1)...]
        }
        var hostEnd = rest.endIndex
        if rest.first == UInt8(ascii: "[") {
            guard let close = rest.firstIndex(of: UInt8(ascii: "]")),
                  isIPLiteral(rest[(rest.startIndex + 1)..<close]) else { return false }
            hostEnd = close + 1
            guard hostEnd == rest.endIndex || rest[hostEnd] == UInt8(ascii: ":") else { return false }
        } else if let colon = rest.firstIndex(of: UInt8(ascii: ":")) {
            hostEnd = colon
        }
        if rest.first == UInt8(ascii: "[") {
            parts.host = String(decoding: rest[rest.startIndex..<hostEnd], as: UTF8.self)
        } else {
            guard let host = encoded(rest[rest.startIndex..<hostEnd], allowing: .host, encodeNonASCII: false) else { return false }
            parts.host = host
        }
        if hostEnd < rest.endIndex {
            let portBytes = rest[(hostEnd + 1)...]
            guard portBytes.allSatisfy(isDigit) else { return false }
            if !portBytes.isEmpty {
                // Leading zeros are allowed by the grammar; the value must fit a TCP port.
                let digits = portBytes.drop { $0 == UInt8(ascii: "0") }
                guard digits.count <= 5, let value = Int(String(decoding: digits.isEmpty ? [UInt8(ascii: "0")] : Array(digits), as: UTF8.self)),
                      value <= 65535 else { return false }
                parts.port = value
            }
        }
        parts.authority = String(decoding: bytes, as: UTF8.self)
        return true
    }

    /// IP-literal (§3.2.2): an IPv6 address or IPvFuture; zone identifiers are refused.
    static func isIPLiteral(_ bytes: ArraySlice<UInt8>) -> Bool {
        if let first = bytes.first, first == UInt8(ascii: "v") || first == UInt8(ascii: "V") {
            let rest = bytes.dropFirst()
            guard let dot = rest.firstIndex(of: UInt8(ascii: ".")) else { return false }
            let version = rest[rest.startIndex..<dot], tail = rest[(dot + 1)...]
            return !version.isEmpty && version.allSatisfy { Hex.value($0) != nil }
                && !tail.isEmpty && tail.allSatisfy { isUnreserved($0) || isSubDelim($0) || $0 == UInt8(ascii: ":") }
        }
        return isIPv6(bytes)
    }

    static func isIPv6(_ bytes: ArraySlice<UInt8>) -> Bool {
        let text = Array(bytes)
        // Split around "::" (at most one).
        var doubleColon: Int?
        var k = 0
        while k + 1 < text.count {
            if text[k] == UInt8(ascii: ":"), text[k + 1] == UInt8(ascii: ":") {
                guard doubleColon == nil else { return false }
                doubleColon = k
                k += 2
                continue
            }
            k += 1
        }
        func groups(_ part: ArraySlice<UInt8>, isLast: Bool) -> Int? {
            if part.isEmpty { return 0 }
            let pieces = part.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            var count = 0
            for (n, piece) in pieces.enumerated() {
                if isLast, n == pieces.count - 1, piece.contains(UInt8(ascii: ".")) {
                    guard isIPv4(piece) else { return nil }
                    count += 2
                } else {
                    guard (1...4).contains(piece.count), piece.allSatisfy({ Hex.value($0) != nil }) else { return nil }
                    count += 1
                }
            }
            return count
        }
        if let dc = doubleColon {
            guard let left = groups(text[0..<dc], isLast: false), let right = groups(text[(dc + 2)...], isLast: true) else {
                return false
            }
            return left + right <= 7
        }
        return groups(text[...], isLast: true) == 8
    }

    static func isIPv4(_ bytes: ArraySlice<UInt8>) -> Bool {
        let octets = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard octets.count == 4 else { return false }
        return octets.allSatisfy { octet in
            guard (1...3).contains(octet.count), octet.allSatisfy(isDigit),
                  octet.count == 1 || octet.first != UInt8(ascii: "0"),
                  let value = Int(String(decoding: octet, as: UTF8.self)) else { return false }
            return value <= 255
        }
    }

    /// Which characters a component may hold (§3): path, query/fragment, userinfo, reg-name.
    enum Allowed { case path, query, userinfo, host }

    /// The component as ASCII text: checked against the characters `allowed`, `%XX` kept,
    /// non-ASCII percent-encoded as UTF-8 (or refused when `encodeNonASCII` is false); nil
    /// on anything else.
    static func encoded(_ bytes: ArraySlice<UInt8>, allowing allowed: Allowed, encodeNonASCII: Bool = true) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte >= 0x80 {
                guard encodeNonASCII else { return nil }
                Hex.appendPercentEncoded(byte, to: &out)
            } else if byte == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex, Hex.value(bytes[i + 1]) != nil, Hex.value(bytes[i + 2]) != nil else { return nil }
                out += bytes[i...(i + 2)]
                i += 2
            } else {
                let ok: Bool
                switch allowed {
                case .path: ok = isPChar(byte) || byte == UInt8(ascii: "/")
                case .query: ok = isPChar(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?")
                case .userinfo: ok = isUnreserved(byte) || isSubDelim(byte) || byte == UInt8(ascii: ":")
                case .host: ok = isUnreserved(byte) || isSubDelim(byte)
                }
                guard ok else { return nil }
                out.append(byte)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isPChar(_ b: UInt8) -> Bool {
        isUnreserved(b) || isSubDelim(b) || b == UInt8(ascii: ":") || b == UInt8(ascii: "@")
    }

    static func isUnreserved(_ b: UInt8) -> Bool {
        isAlpha(b) || isDigit(b) || "-._~".utf8.contains(b)
    }

    static func isSubDelim(_ b: UInt8) -> Bool { "!$&'()*+,;=".utf8.contains(b) }
    static func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }
    static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}
