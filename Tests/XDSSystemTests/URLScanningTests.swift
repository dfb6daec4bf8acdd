import Testing
import XDSSystem

/// The one scanner of schemes and authorities: the split that the strict parse begins with,
/// and the lenient redaction rule, which must find the same authority in a URL that parses.
@Suite("URL scanning: one scanner for the parse and the redaction")
struct URLScanningTests {
    static func text(_ bytes: [UInt8], _ range: Range<Int>?) -> String? {
        range.map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    @Test("RFC 3986 Appendix B: the components where they are, nothing checked but the scheme")
    func split() throws {
        let bytes = Array("https://u:p@h:1/a b?c?d#e#f".utf8)
        let split = try #require(URLReference.Split(bytes[...]))
        #expect(split.schemeEnd == 5)
        #expect(Self.text(bytes, split.authority?.range) == "u:p@h:1")
        #expect(split.authority?.userInfoEnd == 11)
        #expect(Self.text(bytes, split.path) == "/a b")
        #expect(Self.text(bytes, split.query) == "c?d")
        #expect(Self.text(bytes, split.fragment) == "e#f")
        let relative = try #require(URLReference.Split(Array("a/b:c".utf8)[...]))
        #expect(relative.schemeEnd == nil && relative.authority == nil && relative.query == nil && relative.fragment == nil)
        #expect(URLReference.Split(Array("a_b:c".utf8)[...]) == nil, "not a scheme, and not a relative reference")
        #expect(URLReference.Split(Array("1a:b".utf8)[...]) == nil)
        #expect(URLReference.Split(Array(":b".utf8)[...])?.schemeEnd == nil, "an empty scheme is no scheme")
        let empty = try #require(URLReference.Split([][...]))
        #expect(empty.path == 0..<0 && empty.schemeEnd == nil)
    }

    @Test("an authority ends at / ? # (and \\ for the redaction); its user information at the last @")
    func authority() {
        let bytes = Array(#"a@b@c\d/e"#.utf8)
        let plain = URLReference.scanAuthority(bytes[...], from: 0)
        #expect(plain.range == 0..<7 && plain.userInfoEnd == 3)
        let lenient = URLReference.scanAuthority(bytes[...], from: 0, endsAtBackslash: true)
        #expect(lenient.range == 0..<5 && lenient.userInfoEnd == 3)
        let empty = URLReference.scanAuthority(bytes[...], from: 9)
        #expect(empty.range == 9..<9 && empty.userInfoEnd == nil)
    }

    @Test("the redaction finds the authority and user information the parse reads", arguments: [
        "https://joe:pw@Example.COM:8443/a?b#c", "ftp://h", "svn+ssh://u@h/x", "http://[::1]:80/", "https://h?x@y",
        "HTTPS://a%40b@h", "ws://@h", "x-y.z://u:@h#@", "file://localhost/x",
    ])
    func sameAuthority(url: String) throws {
        let parts = try #require(URLReference.parse(url))
        let bytes = Array(url.utf8)
        var found: URLReference.AuthorityScan?
        URLRedaction.forEachAuthority(bytes) { authority in
            found = authority
            return false
        }
        let authority = try #require(found)
        #expect(Self.text(bytes, authority.range) == parts.authority)
        #expect(authority.userInfoEnd.map { String(decoding: bytes[authority.range.lowerBound..<$0], as: UTF8.self) } == parts.userinfo)
        #expect(authority == URLReference.Split(bytes[...])?.authority)
    }

    @Test("where the redaction is lenient on purpose: any run of / and \\ before the authority")
    func lenientSlashes() {
        let bytes = Array("file:///x/y".utf8)
        #expect(URLReference.Split(bytes[...])?.authority?.range == 7..<7, "RFC 3986: an empty authority, then /x/y")
        var found: Range<Int>?
        URLRedaction.forEachAuthority(bytes) { authority in
            found = authority.range
            return false
        }
        #expect(found == 8..<9, "the WHATWG URL Standard skips the slashes: x")
    }
}
