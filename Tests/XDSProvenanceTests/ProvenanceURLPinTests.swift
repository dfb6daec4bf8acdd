import Testing
import XDSProvenance

/// `isURL(_:)` and `host(_:)` pinned on the edges where a lenient reading and a strict
/// RFC 3986 parse part: what `xds where --summary` counts must not change with the parser
/// underneath.
@Suite("ProvenanceURL, pinned edges")
struct ProvenanceURLPinTests {
    @Test func whatReadsAsAURL() {
        for text in ["a:b", "https://h/100%", "https:\\\\h", "https://a@b@c:1:2/[x]#a#b", "h:é"] {
            #expect(ProvenanceURL.isURL(text), "\(text)")
        }
        for text in ["a:", "x+y.z-1:", "a: b", "1a:b", "a_b:c", ":b", "", "a/b:c", "https://h/\u{7F}", "https://h/\t", " https://h"] {
            #expect(!ProvenanceURL.isURL(text), "\(text)")
        }
    }

    @Test func hostsOfTextThatReadsAsAURL() {
        #expect(ProvenanceURL.host("https://a:b:80/") == "a", "the first colon ends the host")
        #expect(ProvenanceURL.host("https://[::1") == "[::1", "an unclosed literal runs to the authority's end")
        #expect(ProvenanceURL.host("https://[::1]x/") == "[::1]")
        #expect(ProvenanceURL.host("https://h/100%") == "h")
        #expect(ProvenanceURL.host("https://a@b@C:1:2/[x]") == "c")
        #expect(ProvenanceURL.host("https://u@:80/") == nil)
        #expect(ProvenanceURL.host("https:\\\\h") == nil, "a URL without // has no authority, backslashes or not")
        #expect(ProvenanceURL.host("https:h") == nil)
        #expect(ProvenanceURL.host("HTTPS://EX.com?x@y") == "ex.com")
        #expect(ProvenanceURL.host("https://h#a@b") == "h")
        #expect(ProvenanceURL.host("https://\\a@b/") == "b", "a backslash does not end an authority that parses")
    }

    @Test func hostsOfTextThatDoesNotReadAsAURL() {
        #expect(ProvenanceURL.host("https:/h x") == "h x")
        #expect(ProvenanceURL.host("x https://u@H:80") == "h")
        #expect(ProvenanceURL.host("x https://u@H:") == "h", "an empty port goes too")
        #expect(ProvenanceURL.host("x https://[::1]:80 y") == "[::1]:80 y", "only a trailing :PORT is cut")
        #expect(ProvenanceURL.host("x http:h y") == "h y")
        #expect(ProvenanceURL.host("x urn:h y") == nil)
    }
}
