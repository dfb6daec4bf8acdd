import Testing
import XDSProvenance

/// URLs in marks are printed without credentials, and without query and fragment with --redact.
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

    @Test func hosts() {
        #expect(ProvenanceURL.host("https://joe:pw@Example.COM:8443/x") == "example.com")
        #expect(ProvenanceURL.host("http://[::1]:80/") == "[::1]")
        #expect(ProvenanceURL.host("mailto:joe@example.com") == nil)
        #expect(ProvenanceURL.host("file:///etc/passwd") == nil)
    }
}
