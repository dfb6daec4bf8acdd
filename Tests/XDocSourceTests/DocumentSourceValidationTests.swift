import Testing
import XDocSource

@Suite("Field validation")
struct DocumentSourceValidationTests {
    @Test(arguments: ["com.appliedphasor.working-copy", "a", "A-1.b-2", "com.example.App42"])
    func goodIdentifiers(id: String) {
        #expect(DocumentSourceValidation.identifierProblem(id) == nil)
    }

    @Test(arguments: ["", "com example", "com/example", "com..example", ".com", "com.", "com.exämple", "com_example", "com.example\n"])
    func badIdentifiers(id: String) {
        #expect(DocumentSourceValidation.identifierProblem(id) != nil)
    }

    @Test func names() {
        #expect(DocumentSourceValidation.nameProblem("Working Copy") == nil)
        #expect(DocumentSourceValidation.nameProblem("文 😀") == nil)
        #expect(DocumentSourceValidation.nameProblem("") == "is empty")
        #expect(DocumentSourceValidation.nameProblem(" \t ") == "is empty")
        #expect(DocumentSourceValidation.nameProblem("a\u{1B}[31m") == "contains the character U+001B")
    }

    @Test(arguments: [
        "https://workingcopy.app/appInfo.json", "HTTPS://EXAMPLE.COM", "https://example.com:8443/a%20b?q=1#f",
        "https://user@example.com/x", "https://[2001:db8::1]:443/appInfo.json", "https://localhost",
        "https://example.com:65535/", "https://example.com:/", "https://example.com:00443/",
    ])
    func goodURLs(url: String) {
        #expect(DocumentSourceValidation.appInfoURLProblem(url) == nil)
    }

    @Test(arguments: [
        ("", "is empty"),
        ("appInfo.json", "is not an absolute URL (it has no scheme; use https://…)"),
        ("/abs/appInfo.json", "is not an absolute URL (it has no scheme; use https://…)"),
        ("http://example.com/a", "uses http, which is allowed only with --allow-http; use https"),
        ("ftp://example.com/a", "uses the scheme 'ftp'; only https is allowed (http with --allow-http)"),
        ("file:///etc/passwd", "uses the scheme 'file'; only https is allowed (http with --allow-http)"),
        ("https:example.com", "has no host (expected https://host/…)"),
        ("https:///a", "has no host (expected https://host/…)"),
        ("https://example.com:80a/", "has a malformed port"),
        ("https://example.com:65536/", "has a port above 65535"),
        ("https://example.com:99999/", "has a port above 65535"),
        ("https://example.com:123456789012345678901/", "has a port above 65535"),
        ("https://[::1]:70000/", "has a port above 65535"),
        ("https://[::1]x/", "has a malformed port"),
        ("https://exa mple.com/", "contains a space (write it as %20)"),
        ("https://example.com/é", "contains the character U+00E9 (write it percent-encoded)"),
        ("https://example.com/<x>", "contains '<', which URLs do not allow (write it percent-encoded)"),
    ])
    func badURLs(url: String, problem: String) {
        #expect(DocumentSourceValidation.appInfoURLProblem(url) == problem)
    }

    @Test func httpWithAllowHTTP() {
        #expect(DocumentSourceValidation.appInfoURLProblem("http://example.com/a", allowHTTP: true) == nil)
        #expect(DocumentSourceValidation.appInfoURLProblem("ftp://example.com/a", allowHTTP: true) != nil)
    }
}
