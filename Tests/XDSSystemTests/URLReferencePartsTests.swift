import Testing
import XDSSystem

/// The parts of a URL the transport and the fetcher read (scheme, host, port with the
/// scheme's default, user information), all from ``URLReference``: the one parser.
@Suite("URL references: the parts a request is made from")
struct URLReferencePartsTests {
    @Test("the scheme alone: lower-cased, RFC 3986 §3.1 characters, the rest need not parse")
    func schemeOnly() {
        #expect(URLReference.scheme(of: "HTTPS://Example.COM/") == "https")
        #expect(URLReference.scheme(of: "Http://a b/") == "http", "a space later does not matter")
        #expect(URLReference.scheme(of: "svn+ssh.x-y://h") == "svn+ssh.x-y")
        #expect(URLReference.scheme(of: "file:/x") == "file")
        #expect(URLReference.scheme(of: "C:x") == "c")
        for none in ["", ":x", "1http://a/", "a_b:c", "./a:b", "a/b:c", "a?b:c", "a#b:c", "appInfo.json", "/abs/path",
                     "é:x"] {
            #expect(URLReference.scheme(of: none) == nil, "\(none)")
        }
        // The same rule as the parser's.
        for text in ["HTTPS://h/", "a:b", "1a:b", "a_b:c", ":x", "//h", "mailto:a@b.c"] {
            if let parts = URLReference.parse(text) { #expect(parts.scheme == URLReference.scheme(of: text), "\(text)") }
        }
    }

    @Test("default ports: 443 for https, 80 for http, none for the rest; a given port wins")
    func defaultPorts() {
        #expect(URLReference.defaultPort(forScheme: "https") == 443)
        #expect(URLReference.defaultPort(forScheme: "http") == 80)
        #expect(URLReference.defaultPort(forScheme: "ftp") == nil)
        #expect(URLReference.parse("https://a/")?.portOrDefault == 443)
        #expect(URLReference.parse("HTTP://a/")?.portOrDefault == 80, "an upper-case scheme is the same scheme")
        #expect(URLReference.parse("http://a:/")?.portOrDefault == 80, "an empty port is the default")
        #expect(URLReference.parse("https://a:8443/")?.portOrDefault == 8443)
        #expect(URLReference.parse("http://a:443/")?.portOrDefault == 443)
        #expect(URLReference.parse("ftp://a/")?.portOrDefault == nil)
        #expect(URLReference.parse("ftp://a:21/")?.portOrDefault == 21)
        #expect(URLReference.parse("//a/")?.portOrDefault == nil)
    }

    @Test("IPv6 literals: brackets kept in host, dropped in bareHost; the port after them, else the default")
    func ipv6() throws {
        let plain = try #require(URLReference.parse("https://[::1]/a.json"))
        #expect(plain.host == "[::1]" && plain.bareHost == "::1" && plain.port == nil && plain.portOrDefault == 443)
        let ported = try #require(URLReference.parse("http://[2001:DB8::1]:8080"))
        #expect(ported.bareHost == "2001:DB8::1" && ported.portOrDefault == 8080 && ported.path == "")
        #expect(URLReference.parse("https://user@[::1]:3129/")?.bareHost == "::1")
        #expect(URLReference.parse("https://[::1]:99999/") == nil, "a port past 65535")
        #expect(URLReference.parse("https://[::1]:x/") == nil)
    }

    @Test("user information: kept apart from the host and port, never part of them")
    func userinfo() throws {
        let parts = try #require(URLReference.parse("https://user:secret@proxy.example:3128/"))
        #expect(parts.userinfo == "user:secret" && parts.bareHost == "proxy.example" && parts.portOrDefault == 3128)
        #expect(URLReference.parse("https://user@h/")?.userinfo == "user")
        #expect(URLReference.parse("https://@h/")?.userinfo == "")
        #expect(URLReference.parse("https://@h/")?.bareHost == "h")
        #expect(URLReference.parse("https://h/")?.userinfo == nil)
        #expect(URLReference.parse("https://u%40x:p%3A@h/")?.userinfo == "u%40x:p%3A", "escapes kept as written")
        #expect(URLReference.parse("https://u:p@ss@h/") == nil, "an unescaped second @")
    }

    @Test("upper-case schemes are lower-cased; hosts are kept as written")
    func upperCase() throws {
        let parts = try #require(URLReference.parse("HTTPS://Files.Example.COM:8443/A.json"))
        #expect(parts.scheme == "https" && parts.host == "Files.Example.COM" && parts.port == 8443 && parts.path == "/A.json")
        #expect(URLReference.parse("HtTp://a/")?.scheme == "http")
    }
}
