import Testing
import XDocSource

@Suite("Field validation")
struct DocumentSourceValidationTests {
    typealias Problem = DocumentSourceValidation.Problem

    @Test(arguments: ["com.appliedphasor.working-copy", "a", "A-1.b-2", "com.example.App42", "com.1password.x"])
    func goodIdentifiers(id: String) {
        #expect(DocumentSourceValidation.identifierProblem(id) == nil)
    }

    @Test(arguments: [
        ("", Problem.empty),
        ("com example", .invalidCharacter(" ")),
        ("com/example", .invalidCharacter("/")),
        ("com.exämple", .invalidCharacter("ä")),
        ("com_example", .invalidCharacter("_")),
        ("com.example\n", .invalidCharacter("\n")),
        ("com..example", .emptyLabel),
        (".com", .emptyLabel),
        ("com.", .emptyLabel),
        (".", .emptyLabel),
        ("..", .emptyLabel),
        ("-", .hyphenAtLabelEdge),
        ("com.-app", .hyphenAtLabelEdge),
        ("com.app-", .hyphenAtLabelEdge),
        ("-com.app", .hyphenAtLabelEdge),
    ])
    func badIdentifiers(id: String, problem: Problem) {
        #expect(DocumentSourceValidation.identifierProblem(id) == problem)
    }

    @Test(arguments: ["Working Copy", "文 😀", "a\u{200B}b", " x ", "\u{202E}abc"])
    func goodNames(name: String) {
        #expect(DocumentSourceValidation.nameProblem(name) == nil)
    }

    @Test(arguments: [
        ("", Problem.empty),
        (" \t ", .noVisibleCharacter),
        ("\u{200B}", .noVisibleCharacter),
        ("\u{200E}\u{200F}\u{061C}", .noVisibleCharacter),
        (" \u{202E} \u{2066}\u{2069}", .noVisibleCharacter),
        ("\u{FEFF}\u{00AD}", .noVisibleCharacter),
        ("\u{3000}\u{3164}", .noVisibleCharacter),
        ("a\u{1B}[31m", .controlCharacter("\u{1B}")),
        ("a\nb", .controlCharacter("\n")),
    ])
    func badNames(name: String, problem: Problem) {
        #expect(DocumentSourceValidation.nameProblem(name) == problem)
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
        ("", Problem.empty),
        ("appInfo.json", .notAbsolute),
        ("/abs/appInfo.json", .notAbsolute),
        ("1http://example.com", .notAbsolute),
        ("http://example.com/a", .httpNotAllowed),
        ("ftp://example.com/a", .unsupportedScheme("ftp")),
        ("FILE:///etc/passwd", .unsupportedScheme("file")),
        ("https:example.com", .noHost(scheme: "https")),
        ("https:///a", .noHost(scheme: "https")),
        ("https://[::1/a", .malformedHost),
        ("https://example.com:80a/", .malformedPort),
        ("https://example.com:65536/", .portOutOfRange),
        ("https://example.com:99999/", .portOutOfRange),
        ("https://example.com:123456789012345678901/", .portOutOfRange),
        ("https://[::1]:70000/", .portOutOfRange),
        ("https://[::1]x/", .malformedPort),
        ("https://exa mple.com/", .space),
        ("https://example.com/é", .notEncoded("é")),
        ("https://example.com/a\u{7F}", .notEncoded("\u{7F}")),
        ("https://example.com/<x>", .notAllowedInURL("<")),
    ])
    func badURLs(url: String, problem: Problem) {
        #expect(DocumentSourceValidation.appInfoURLProblem(url) == problem)
    }

    @Test func httpWithAllowHTTP() {
        #expect(DocumentSourceValidation.appInfoURLProblem("http://example.com/a", allowHTTP: true) == nil)
        #expect(DocumentSourceValidation.appInfoURLProblem("ftp://example.com/a", allowHTTP: true) == .unsupportedScheme("ftp"))
    }

    /// Descriptions are phrases in the library's words: they follow a field's name and never
    /// name a command-line option.
    @Test(arguments: [
        (Problem.empty, "is empty"),
        (.invalidCharacter(" "), "contains a space; use only letters, digits, '.' and '-' (reverse-DNS, e.g. com.example.app)"),
        (.invalidCharacter("\u{200B}"), "contains the character U+200B; use only letters, digits, '.' and '-' (reverse-DNS, e.g. com.example.app)"),
        (.emptyLabel, "has an empty part between dots (reverse-DNS, e.g. com.example.app)"),
        (.hyphenAtLabelEdge, "has a part that starts or ends with '-' (reverse-DNS, e.g. com.example.my-app)"),
        (.noVisibleCharacter, "has no visible character"),
        (.controlCharacter("\u{1B}"), "contains the character U+001B"),
        (.space, "contains a space (write it as %20)"),
        (.notEncoded("é"), "contains the character U+00E9 (write it percent-encoded)"),
        (.notAllowedInURL("<"), "contains '<', which URLs do not allow (write it percent-encoded)"),
        (.notAbsolute, "is not an absolute URL (it has no scheme; use https://…)"),
        (.httpNotAllowed, "uses http; use https"),
        (.unsupportedScheme("ftp"), "uses the scheme 'ftp'; only https is allowed"),
        (.noHost(scheme: "https"), "has no host (expected https://host/…)"),
        (.malformedHost, "has a malformed host"),
        (.malformedPort, "has a malformed port"),
        (.portOutOfRange, "has a port above 65535"),
    ])
    func descriptions(problem: Problem, text: String) {
        #expect(problem.description == text)
        #expect(!text.contains("--"))
    }
}
