import Testing
import XDSProvenance

/// URL fields in marks are printed without credentials, and without query and fragment with
/// --redact: SPEC §6's one rule, for text that parses as a URL and text that does not.
@Suite struct ProvenanceURLTests {
    @Test func credentialsAreHidden() {
        #expect(ProvenanceURL.withoutCredentials("https://joe:secret@example.com/a?t=1#f") == "https://***@example.com/a?t=1#f")
        #expect(ProvenanceURL.withoutCredentials("ftp://token@files.example.com") == "ftp://***@files.example.com")
        #expect(ProvenanceURL.withoutCredentials("https://a:b@c@example.com:8443/") == "https://***@example.com:8443/")
        // An @ after the authority is no credential; URLs without an authority are kept.
        #expect(ProvenanceURL.withoutCredentials("https://example.com/u/@joe?x=a@b") == "https://example.com/u/@joe?x=a@b")
        #expect(ProvenanceURL.withoutCredentials("mailto:joe@example.com") == "mailto:joe@example.com")
        #expect(ProvenanceURL.withoutCredentials("Joe <joe@example.com>") == "Joe <joe@example.com>")
        #expect(ProvenanceURL.withoutCredentials("") == "")
    }

    @Test func redactedDropsQueryAndFragment() {
        #expect(ProvenanceURL.redacted("https://joe:secret@example.com/a/b.zip?X-Amz-Signature=abc#top") == "https://***@example.com/a/b.zip")
        #expect(ProvenanceURL.redacted("https://example.com#frag") == "https://example.com")
        #expect(ProvenanceURL.redacted("about:internet") == "about:internet")
        // Text that is not a URL (Mail's Subject in a WhereFroms list) is kept.
        #expect(ProvenanceURL.redacted("Re: what now?") == "Re: what now?")
        #expect(!ProvenanceURL.isURL("Re: what now?"))
        #expect(ProvenanceURL.isURL("https://example.com/"))
    }

    @Test("SPEC §6's examples, with and without --redact")
    func specExamples() {
        let examples = [
            ("https://alice:pa ss@h/a b", "https://***@h/a b"),
            ("https:/alice:pw@h/a", "https:/***@h/a"),
            ("svn+ssh://a:p@h/x y", "svn+ssh://***@h/x y"),
            ("https://a:b@c@h/x", "https://***@h/x"),
        ]
        for (text, shown) in examples {
            #expect(ProvenanceURL.withoutCredentials(text) == shown)
            #expect(ProvenanceURL.redacted(text) == shown)
            #expect(ProvenanceURL.withoutCredentials(text + "?sig=1#f") == shown + "?sig=1#f")
            #expect(ProvenanceURL.redacted(text + "?sig=1#f") == shown)
        }
        // A text in which no authority is found is shown unchanged, --redact included.
        for text in ["mailto:joe@example.com", "mailto:joe@example.com?subject=hi#x", "Re: what now? #2", "urn:isbn:0451450523?x"] {
            #expect(ProvenanceURL.withoutCredentials(text) == text)
            #expect(ProvenanceURL.redacted(text) == text)
        }
    }

    @Test("the issue's cases: blanks, tab, newline, DEL, NUL, backslashes, one slash, no path")
    func issueCases() {
        let cases = [
            ("https://alice:s3cret@host.example/a b", "https://***@host.example/a b"),
            ("https://alice:s3\tcret@h/x\ty", "https://***@h/x\ty"),
            ("https://alice:s3\ncret@h/x", "https://***@h/x"),
            ("https://ali\u{7F}ce:pw@h/x", "https://***@h/x"),
            ("https://alice:p\u{0}w@h/x", "https://***@h/x"),
            (#"https:\\alice:pw@h\x"#, #"https:\\***@h\x"#),
            (#"https:/\alice:pw@h"#, #"https:/\***@h"#),
            ("https:/alice:pw@h", "https:/***@h"),
            ("HTTP:alice:pw@h/x", "HTTP:***@h/x"),
            ("wss:alice:pw@h", "wss:***@h"),
            // Control characters after the colon are skipped, C1 ones too; blanks before the scheme.
            ("https:\t//alice:pw@h/x", "https:\t//***@h/x"),
            ("svn+ssh:\u{85}//a:pw@h/x", "svn+ssh:\u{85}//***@h/x"),
            (" \t\nhttps://a:pw@h", " \t\nhttps://***@h"),
            ("https://@h/", "https://***@h/"),
        ]
        for (text, shown) in cases {
            #expect(ProvenanceURL.withoutCredentials(text) == shown, "\(text)")
        }
    }

    @Test("a scheme anywhere after a character that cannot be part of one; the search resumes after each authority")
    func severalSchemes() {
        #expect(ProvenanceURL.withoutCredentials("see https://a:pw@h/x and ftp://b:pw@i/y.")
            == "see https://***@h/x and ftp://***@i/y.")
        #expect(ProvenanceURL.withoutCredentials("urn:https://a:pw@h/") == "urn:https://***@h/")
        #expect(ProvenanceURL.withoutCredentials("«https://a:pw@h»") == "«https://***@h»")
        // No authority without a slash, but for the schemes that always have one.
        #expect(ProvenanceURL.withoutCredentials("news:joe@example.com") == "news:joe@example.com")
        #expect(ProvenanceURL.withoutCredentials("ssh:a:pw@h") == "ssh:a:pw@h")
        // --redact cuts at the first ? or # after the first authority; later URLs go with it.
        #expect(ProvenanceURL.redacted("https://a:pw@h/x?q=1 https://b:pw@i/") == "https://***@h/x")
        #expect(ProvenanceURL.redacted("Re: what? see https://h/x#y") == "Re: what? see https://h/x")
        // Authorities between the first one and the cut keep no credentials (found by the fuzzer).
        #expect(ProvenanceURL.redacted(#"svn+ssh:\\a:p@h/x y http:/b@c@d?e"#) == #"svn+ssh:\\***@h/x y http:/***@d"#)
        #expect(ProvenanceURL.redacted(bytes: Array("ftp://h/ https://a:pw@i/?q".utf8)) == Array("ftp://h/ https://***@i/".utf8))
        // The rule is idempotent.
        let once = ProvenanceURL.withoutCredentials("https://a:b@c@h/x https:/d@e")
        #expect(ProvenanceURL.withoutCredentials(once) == once)
    }

    @Test("bytes that are not UTF-8 get the same rule")
    func bytes() {
        let value = Array("https://alice:s3cret@h/caf".utf8) + [0xE9] + Array("?sig=1".utf8)
        #expect(ProvenanceURL.withoutCredentials(bytes: value) == Array("https://***@h/caf".utf8) + [0xE9] + Array("?sig=1".utf8))
        #expect(ProvenanceURL.redacted(bytes: value) == Array("https://***@h/caf".utf8) + [0xE9])
        let latin1 = Array("https://j".utf8) + [0xF6] + Array("rg:pw@h/".utf8)
        #expect(ProvenanceURL.withoutCredentials(bytes: latin1) == Array("https://***@h/".utf8))
        #expect(ProvenanceURL.withoutCredentials(bytes: [0xFF, 0xFE]) == [0xFF, 0xFE])
    }

    @Test("a URL field that is not UTF-8: the rule runs on all its bytes before they are cut to the bytes kept")
    func undecodableURLField() throws {
        let long = Array("https://".utf8) + Array(repeating: UInt8(ascii: "p"), count: 300) + Array("@h/".utf8) + [0xFF]
        let value = UndecodableValue(hidingCredentialsIn: long, reason: "the xdg url is not UTF-8 text", isURL: true)
        #expect(value.isURL)
        #expect(value.bytes == Array("https://***@h/".utf8) + [0xFF])
        #expect(!UndecodableValue(bytes: long, reason: "x").isURL)
        // Through the decoder: an xdg url that is not UTF-8, and one over its bound.
        let match = try #require(ProvenanceNames.match(attributeName: Array("user.xdg.origin.url".utf8)))
        let notUTF8 = ProvenanceValue(name: "user.xdg.origin.url", match: match, bytes: long)
        #expect(ProvenanceDecoder.content(of: notUTF8) == .undecodable(value))
        let start = Array("https://alice:pw@h/".utf8) + Array(repeating: UInt8(ascii: "x"), count: 500)
        let tooLarge = ProvenanceValue(name: "user.xdg.origin.url", match: match, bytes: start, size: 70_000)
        guard case .undecodable(let kept) = ProvenanceDecoder.content(of: tooLarge) else {
            Issue.record("not undecodable")
            return
        }
        #expect(kept.isURL && kept.bytes.starts(with: Array("https://***@h/xx".utf8)) && kept.bytes.count == 256)
        let whole = ProvenanceDecoder.content(of: .xdg, start + Array(repeating: UInt8(ascii: "x"), count: 70_000))
        guard case .undecodable(let big) = whole else {
            Issue.record("not undecodable")
            return
        }
        #expect(big.isURL && big.bytes.starts(with: Array("https://***@h/xx".utf8)))
        // Only the start of a longer value: an authority running to its end is hidden whole.
        let cut = ProvenanceValue(name: "user.xdg.origin.url", match: match, bytes: Array("https://alice:pw".utf8), size: 70_000)
        #expect(ProvenanceDecoder.content(of: cut) == .undecodable(
            UndecodableValue(hidingCredentialsIn: Array("https://***".utf8), reason: "the xdg value is 70000 bytes, more than the 64 KiB accepted (damaged data)", isURL: true)))
    }

    @Test("a WhereFroms list or Zone.Identifier that does not decode is shown as hex without the credentials in it")
    func undecodableWholeValues() {
        // A string, then an integer (not a string): the list does not decode.
        let list = MarkBytes.bplistArray([MarkBytes.string("https://a:pw@h.ex/x"), [0x10, 0x01]])
        let content = ProvenanceDecoder.content(of: .whereFroms, list)
        guard case .undecodable(let value) = content else {
            Issue.record("\(content)")
            return
        }
        #expect(!value.isURL)
        #expect(value.bytes.starts(with: Array("bplist00".utf8)))
        #expect(value.bytes.firstRange(of: Array("https://***@h.ex/x".utf8)) != nil, "\(value)")
        let zone = Array("[ZoneTransfer]\r\nZoneId=x\r\nHostUrl=https://a:pw@h.ex/x?sig=1\r\n".utf8)
        #expect(ProvenanceDecoder.content(of: .zoneIdentifier, zone) == .undecodable(UndecodableValue(
            bytes: Array("[ZoneTransfer]\r\nZoneId=x\r\nHostUrl=https://***@h.ex/x?sig=1\r\n".utf8),
            reason: "the ZoneId \"x\" is not a number")))
        #expect(ProvenanceURL.withoutCredentials(prefix: Array("x https://a:pw@h/y".utf8)) == Array("x https://***@h/y".utf8))
        #expect(ProvenanceURL.withoutCredentials(prefix: Array("x https://a:pw@h".utf8)) == Array("x https://***".utf8))
    }

    @Test("hostile values: a long authority, many @, many schemes (one linear pass)", .timeLimit(.minutes(1)))
    func hostile() {
        let ats = "https://" + String(repeating: "a@", count: 200_000) + "h/x"
        #expect(ProvenanceURL.withoutCredentials(ats) == "https://***@h/x")
        let schemes = String(repeating: "a:", count: 200_000)
        #expect(ProvenanceURL.withoutCredentials(schemes) == schemes)
        #expect(ProvenanceURL.redacted(schemes) == schemes)
        let slashes = String(repeating: "http:/", count: 100_000)
        #expect(ProvenanceURL.withoutCredentials(slashes) == slashes)
        let many = String(repeating: "ftp://u:p@h/ ", count: 50_000)
        #expect(ProvenanceURL.withoutCredentials(many) == String(repeating: "ftp://***@h/ ", count: 50_000))
        #expect(ProvenanceURL.host(ats) == "h")
    }

    @Test func hosts() {
        #expect(ProvenanceURL.host("https://joe:pw@Example.COM:8443/x") == "example.com")
        #expect(ProvenanceURL.host("http://[::1]:80/") == "[::1]")
        #expect(ProvenanceURL.host("mailto:joe@example.com") == nil)
        #expect(ProvenanceURL.host("file:///etc/passwd") == nil)
    }

    @Test("hosts of URLs that do not parse: the authority after the last @, without :PORT, lower-cased")
    func hostsOfTextThatDoesNotParse() {
        #expect(ProvenanceURL.host("https://alice:pa ss@Host.Example:8443/a b") == "host.example")
        #expect(ProvenanceURL.host("svn+ssh://a:p@h/x y") == "h")
        #expect(ProvenanceURL.host("ftp:\\\\b:p w@Other.Example") == "other.example")
        #expect(ProvenanceURL.host("https://[::1]:80/a b") == "[::1]")
        #expect(ProvenanceURL.host("https://h x/") == "h x")
        #expect(ProvenanceURL.host("Re: what now?") == nil)
        #expect(ProvenanceURL.host("see mailto:joe@example.com now") == nil)
        #expect(ProvenanceURL.host("https://a@:8080/ b") == nil)
    }
}
