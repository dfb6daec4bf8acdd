import Testing
import XDSTestSupport
import XDSSystem

@Suite("URL references (RFC 3986)")
struct URLReferenceTests {
    static let base = "http://a/b/c/d;p?q"

    /// RFC 3986 §5.4.1, every example.
    static let normal: [(String, String)] = [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
        ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
        ("../../g", "http://a/g"),
    ]

    /// RFC 3986 §5.4.2, every example (strict parser: "http:g" stays as it is).
    static let abnormal: [(String, String)] = [
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"), ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"), ("http:g", "http:g"),
    ]

    @Test("RFC 3986 §5.4.1 normal examples", arguments: normal)
    func normalExamples(reference: String, expected: String) {
        #expect(URLReference.resolve(reference, against: Self.base) == expected)
    }

    @Test("RFC 3986 §5.4.2 abnormal examples", arguments: abnormal)
    func abnormalExamples(reference: String, expected: String) {
        #expect(URLReference.resolve(reference, against: Self.base) == expected)
    }

    @Test("an icon src against an appInfo.json URL: relative, ../ above the root, //host/, ?q, absolute")
    func iconSources() {
        let appInfo = "https://example.com/apps/demo/appInfo.json?v=3#top"
        let cases: [(String, String)] = [
            ("img/icon-29.png", "https://example.com/apps/demo/img/icon-29.png"),
            ("./img/../icon.png", "https://example.com/apps/demo/icon.png"),
            ("../common/icon.png", "https://example.com/apps/common/icon.png"),
            ("../../../../../icon.png", "https://example.com/icon.png"),
            ("/icon.png", "https://example.com/icon.png"),
            ("//cdn.example.net/i/icon.png", "https://cdn.example.net/i/icon.png"),
            ("?size=58", "https://example.com/apps/demo/appInfo.json?size=58"),
            ("icon.png?size=58#x", "https://example.com/apps/demo/icon.png?size=58#x"),
            ("", "https://example.com/apps/demo/appInfo.json?v=3"),  // the base's fragment is not inherited
            ("https://other.example/icon.png", "https://other.example/icon.png"),
            ("HTTP://Other.Example/a/./b/../c.png", "http://Other.Example/a/c.png"),  // scheme lower-cased, host kept
        ]
        for (src, expected) in cases {
            #expect(URLReference.resolve(src, against: appInfo) == expected, "\(src)")
        }
    }

    @Test("a base with an authority and an empty path merges with a leading slash")
    func emptyBasePath() {
        #expect(URLReference.resolve("icon.png", against: "https://example.com") == "https://example.com/icon.png")
        #expect(URLReference.resolve("icon.png", against: "https://example.com?q") == "https://example.com/icon.png")
        #expect(URLReference.resolve("?x", against: "https://example.com") == "https://example.com?x")
    }

    @Test("percent-escapes are kept as written; non-ASCII in the path, query and fragment is encoded as UTF-8")
    func percentEncoding() {
        let base = "https://example.com/a%20b/appInfo.json"
        #expect(URLReference.resolve("icon%2Fx%zz", against: base) == nil)
        #expect(URLReference.resolve("icon%2fx.png", against: base) == "https://example.com/a%20b/icon%2fx.png")
        #expect(URLReference.resolve("%2E%2E/x.png", against: base) == "https://example.com/a%20b/%2E%2E/x.png")
        #expect(URLReference.resolve("été.png?q=ü#ß", against: base)
                == "https://example.com/a%20b/%C3%A9t%C3%A9.png?q=%C3%BC#%C3%9F")
        #expect(URLReference.resolve("😀", against: base) == "https://example.com/a%20b/%F0%9F%98%80")
        #expect(URLReference.parse("https://exämple.com/") == nil, "no IDNA: a non-ASCII host is refused")
        #expect(URLReference.parse("https://user:pä@example.com/") == nil)
        #expect(URLReference.parse("100%") == nil)
        #expect(URLReference.parse("%4") == nil)
        #expect(URLReference.parse("%41%42")?.path == "%41%42")
    }

    @Test("spaces, control characters and characters RFC 3986 excludes are refused")
    func refusedCharacters() {
        let base = "https://example.com/appInfo.json"
        for bad in ["my icon.png", "icon.png\n", "\ticon.png", "icon\u{7F}.png", "icon\u{0}.png", "a<b", "a>b", "a\"b",
                    "a{b}", "a|b", "a\\b", "a^b", "a`b", "a[b]", "x#a#b", "https://exa mple.com/", "https://a/b c"] {
            #expect(URLReference.resolve(bad, against: base) == nil, "\(bad)")
        }
        // Allowed characters that look odd: sub-delims, ':' and '@' in a path, '?' and '/' in a query.
        #expect(URLReference.resolve("x/a!$&'()*+,;=:@b?c/d?e#f/?g", against: base)
                == "https://example.com/x/a!$&'()*+,;=:@b?c/d?e#f/?g")
        #expect(URLReference.resolve("a!$&'()*+,;=:@b", against: base) == nil, "a colon in a first segment")
    }

    @Test("a base that is not absolute, or not a URI, is refused")
    func badBase() {
        #expect(URLReference.resolve("g", against: "/a/b") == nil)
        #expect(URLReference.resolve("g", against: "a/b") == nil)
        #expect(URLReference.resolve("g", against: "//a/b") == nil)
        #expect(URLReference.resolve("g", against: "") == nil)
        #expect(URLReference.resolve("g", against: "http://a b/") == nil)
        #expect(URLReference.resolve("g", against: "1http://a/") == nil)
    }

    @Test("schemes: letters first, then letters, digits, + - .; a colon in a first segment is not a relative path")
    func schemes() {
        #expect(URLReference.parse("svn+ssh.x-y://h/p")?.scheme == "svn+ssh.x-y")
        #expect(URLReference.parse("HTTPS://h/")?.scheme == "https")
        #expect(URLReference.parse("1a:b") == nil)
        #expect(URLReference.parse("a_b:c") == nil)
        #expect(URLReference.parse(":x") == nil)
        #expect(URLReference.parse("./a:b")?.path == "./a:b", "the RFC's way to write a colon in a first segment")
        #expect(URLReference.resolve("./a:b", against: Self.base) == "http://a/b/c/a:b")
    }

    @Test("components: userinfo, host, port, path, query, fragment")
    func components() throws {
        let parts = try #require(URLReference.parse("https://user:pw@Example.COM:8443/a/b.png?x=1&y#frag"))
        #expect(parts == URLReference.Components(scheme: "https", authority: "user:pw@Example.COM:8443", userinfo: "user:pw",
                                                 host: "Example.COM", port: 8443, path: "/a/b.png", query: "x=1&y",
                                                 fragment: "frag"))
        #expect(parts.text == "https://user:pw@Example.COM:8443/a/b.png?x=1&y#frag")
        #expect(parts.isAbsolute)

        let empty = try #require(URLReference.parse(""))
        #expect(empty == URLReference.Components())
        #expect(!empty.isAbsolute)
        #expect(URLReference.parse("?")?.query == "")
        #expect(URLReference.parse("#")?.fragment == "")
        #expect(URLReference.parse("//h")?.host == "h")
        #expect(URLReference.parse("//h")?.path == "")
        #expect(URLReference.parse("mailto:a@b.c")?.path == "a@b.c")
        #expect(URLReference.parse("mailto:a@b.c")?.authority == nil)
    }

    @Test("ports: digits only, at most 65535, empty means none")
    func ports() {
        #expect(URLReference.parse("http://a:80/")?.port == 80)
        #expect(URLReference.parse("http://a:0/")?.port == 0)
        #expect(URLReference.parse("http://a:00443/")?.port == 443)
        #expect(URLReference.parse("http://a:65535/")?.port == 65535)
        #expect(URLReference.parse("http://a:/")?.port == nil)
        #expect(URLReference.parse("http://a:/")?.authority == "a:")
        #expect(URLReference.parse("http://a:65536/") == nil)
        #expect(URLReference.parse("http://a:99999999999999999999/") == nil)
        #expect(URLReference.parse("http://a:8x/") == nil)
        #expect(URLReference.parse("http://a:-1/") == nil)
        #expect(URLReference.parse("http://a:1:2/") == nil)
        #expect(URLReference.parse("http://a@b@c/") == nil)
    }

    @Test("IPv6, IPv4 and IPvFuture hosts")
    func ipLiterals() throws {
        let v6 = try #require(URLReference.parse("https://[2001:db8::1]:8443/icon.png"))
        #expect(v6.host == "[2001:db8::1]")
        #expect(v6.bareHost == "2001:db8::1")
        #expect(v6.port == 8443)
        #expect(URLReference.resolve("../x.png", against: "http://[::1]/a/b/appInfo.json") == "http://[::1]/a/x.png")
        #expect(URLReference.resolve("//[fe80::1]/x", against: "https://a/") == "https://[fe80::1]/x")
        for good in ["::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6::8", "1::8", "::ffff:192.0.2.128",
                     "1:2:3:4:5:6:1.2.3.4", "ABCD:ef01::", "v1.x:y", "VF.a-b"] {
            #expect(URLReference.parse("http://[\(good)]/") != nil, "\(good)")
        }
        for bad in ["", ":", ":::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1::2::3", "12345::", "g::", ":1::",
                    "1:2:3:4:5:6:7:1.2.3.4", "::1.2.3", "::1.2.3.256", "::01.2.3.4", "::1.2.3.4:5", "fe80::1%25eth0",
                    "v.x", "v1.", "vx.y"] {
            #expect(URLReference.parse("http://[\(bad)]/") == nil, "\(bad)")
        }
        #expect(URLReference.parse("http://[::1]x/") == nil)
        #expect(URLReference.parse("http://[::1/") == nil)
        #expect(URLReference.parse("http://::1/") == nil, "an IPv6 address needs brackets")
        #expect(URLReference.parse("http://192.0.2.1:8080/")?.host == "192.0.2.1")
        #expect(URLReference.parse("http://a.b/")?.bareHost == "a.b")
    }

    @Test("file: bases: triple slash, localhost, relative src")
    func fileBase() {
        let base = "file:///home/user/My%20App/appInfo.json"
        #expect(URLReference.resolve("img/icon.png", against: base) == "file:///home/user/My%20App/img/icon.png")
        #expect(URLReference.resolve("../../../../../etc/passwd", against: base) == "file:///etc/passwd")
        #expect(URLReference.resolve("/x.png", against: base) == "file:///x.png")
        #expect(URLReference.resolve("x.png", against: "file://localhost/a/b") == "file://localhost/a/x.png")
        #expect(URLReference.parse("file:///a")?.host == "")
        #expect(URLReference.parse("file:///a")?.authority == "")
        #expect(URLReference.parse("file:/a")?.authority == nil)
    }

    @Test("a path starting with // and no authority is written so it does not read back as one")
    func doubleSlashPath() {
        let resolved = URLReference.resolve("/.//x", against: "foo:/a/b")
        #expect(resolved == "foo:/.//x")
        #expect(URLReference.parse(resolved ?? "")?.authority == nil)
    }

    @Test("remove_dot_segments (§5.2.4) on its own, and fragments removed for fetching")
    func dotSegmentsAndFragments() {
        #expect(URLReference.removeDotSegments("/a/b/c/./../../g") == "/a/g")
        #expect(URLReference.removeDotSegments("mid/content=5/../6") == "mid/6")
        #expect(URLReference.removeDotSegments("/..") == "/")
        #expect(URLReference.removeDotSegments("../a") == "a")
        #expect(URLReference.removeDotSegments("") == "")
        #expect(URLReference.removingFragment("https://a/b?c#d#e") == "https://a/b?c")
        #expect(URLReference.removingFragment("https://a/b") == "https://a/b")
    }

    @Test("a local src: relative inside the folder, climbing out kept for the caller to judge, absolute URLs passed on")
    func local() {
        typealias T = URLReference.LocalTarget
        let folder = "/var/lib/app"
        let cases: [(String, T?)] = [
            ("img/icon-29.png", .path("/var/lib/app/img/icon-29.png")),
            ("./img/./x/../icon.png", .path("/var/lib/app/img/icon.png")),
            ("../x.png", .path("/var/lib/app/../x.png")),
            ("img/../../x.png", .path("/var/lib/app/../x.png")),
            ("%2E%2E/x.png", .path("/var/lib/app/../x.png")),  // an escaped dot is a dot
            ("my%20icon.png", .path("/var/lib/app/my icon.png")),
            ("%C3%A9t%C3%A9.png", .path("/var/lib/app/été.png")),
            ("été.png", .path("/var/lib/app/été.png")),
            ("icon.png?v=2#f", .path("/var/lib/app/icon.png")),
            ("img/", .path("/var/lib/app/img/")),
            ("/etc/../x.png", .path("/x.png")),
            ("/../../x.png", .path("/x.png")),
            ("file:///var/icons/a%20b.png", .path("/var/icons/a b.png")),
            ("file://localhost/var/x.png", .path("/var/x.png")),
            ("https://example.com/icon.png", .url("https://example.com/icon.png")),
            ("HTTP://example.com/./icon.png", .url("http://example.com/icon.png")),
            ("data:image/png;base64,AAAA", .url("data:image/png;base64,AAAA")),
            ("file://otherhost/x.png", nil), ("file:x.png", nil), ("//cdn.example.com/x.png", nil),
            ("", nil), ("?q", nil), ("#f", nil), (".", nil), ("img/..", nil),
            ("a%2Fb.png", nil), ("a%00b.png", nil), ("a%FFb.png", nil), ("my icon.png", nil),
        ]
        for (src, expected) in cases {
            #expect(URLReference.resolveLocal(src, inFolder: folder) == expected, "\(src)")
        }
        #expect(URLReference.resolveLocal("x.png", inFolder: "/var/lib/app/") == .path("/var/lib/app/x.png"))
        #expect(URLReference.resolveLocal("x.png", inFolder: "/") == .path("/x.png"))
        #expect(URLReference.resolveLocal("x.png", inFolder: "") == .path("./x.png"))
        #expect(URLReference.resolveLocal("../x.png", inFolder: "sub") == .path("sub/../x.png"))
        #expect(URLReference.resolveLocal("a/../../b/x.png", inFolder: ".") == .path("./../b/x.png"))
    }

    @Test("random references: the result is absolute, parses back to itself, has no dot segments, and resolves idempotently")
    func randomReferences() throws {
        var generator = SplitMix64(seed: 0x3986)
        let pieces = ["a", "b", ".", "..", "", "g;x", "%41", "é", "x:y", "@"]
        let bases = ["http://a/b/c/d;p?q", "https://[::1]:8443/x/appInfo.json#f", "file:///home/u/app/appInfo.json",
                     "https://example.com", "foo:/a/b", "urn:x:y"]
        for _ in 0..<3000 {
            var reference = ""
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: reference = "/"
            case 1: reference = "//h" + (Bool.random(using: &generator) ? ":81" : "") + "/"
            default: reference = ""
            }
            let count = Int.random(in: 0...5, using: &generator)
            reference += (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined(separator: "/")
            if Bool.random(using: &generator) { reference += "?" + pieces.randomElement(using: &generator)! }
            if Bool.random(using: &generator) { reference += "#" + pieces.randomElement(using: &generator)! }
            let base = bases.randomElement(using: &generator)!
            guard let resolved = URLReference.resolve(reference, against: base) else {
                // Only a colon in a relative first segment, or an authority made of a piece that
                // is not a host ("x:y" has a bad port, "é" is not ASCII), may refuse a reference
                // built from these pieces.
                let first = reference.split(separator: "/", omittingEmptySubsequences: false).first ?? ""
                #expect((first.contains(":") && !reference.hasPrefix("/")) || reference.hasPrefix("//x:y")
                        || reference.hasPrefix("//é"), "\(reference) against \(base)")
                continue
            }
            let parts = try #require(URLReference.parse(resolved), "\(resolved)")
            #expect(parts.isAbsolute)
            #expect(parts.text == resolved)
            // A path starting with "//" and no authority is written "/.//…" (see doubleSlashPath).
            let path = parts.authority == nil && parts.path.hasPrefix("/.//") ? String(parts.path.dropFirst(2)) : parts.path
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            #expect(!segments.contains(".") && !segments.contains(".."), "\(reference) against \(base) → \(resolved)")
            #expect(URLReference.resolve(resolved, against: base) == resolved)
            #expect(resolved.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value != 0x7F })
        }
    }
}
