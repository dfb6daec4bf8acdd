import Testing
import XDocSource

/// `appInfoURLProblem(_:allowHTTP:)` pinned input by input: every ``Problem`` it returns and
/// the inputs it accepts, among them those a strict RFC 3986 parse refuses (two `@`, a colon in
/// the host, `[ ]` or a `%` without two hex digits in the path, an IP literal that is not an
/// address, a second `#`). The check is lenient on purpose: it catches what a person types
/// wrong, and the fetcher's parse refuses the rest when the URL is used.
@Suite("appInfoURL validation, pinned")
struct AppInfoURLValidationPinTests {
    typealias Problem = DocumentSourceValidation.Problem

    /// Accepted as https URLs, strict or not.
    @Test(arguments: [
        "https://h", "hTTpS://h", "https://h?x", "https://h#x", "https://h/a?b?c", "https://h:/", "https://h:0/",
        "https://h:65535", "https://h:065535", "https://h:0000000000000000000080", "https://h:00000",
        "https://[::1]:/", "https://[::1]", "https://u:p@h:1/", "https://:@h/", "https://@h", "https://h/%41",
        "https://h/a:b@c!$&'()*+,;=-._~", "https://h%41/",
        // Refused by a strict parse, accepted here.
        "https://a@b@c/", "https://[zz]/", "https://[]/", "https://a:1:2/", "https://h/100%", "https://h/[x]",
        "https://h/#a#b", "https://h%zz/", "https://h[x]/", "https://[@h/", "https://h]/", "https://h/?[", "https://h:/x:y",
    ])
    func accepted(url: String) {
        #expect(DocumentSourceValidation.appInfoURLProblem(url) == nil, "\(url)")
        #expect(DocumentSourceValidation.appInfoURLProblem(url, allowHTTP: true) == nil, "\(url)")
    }

    @Test(arguments: [
        // The characters, the first bad one in the text.
        ("", Problem.empty),
        ("a b<", .space),
        ("<a b", .notAllowedInURL("<")),
        ("é ", .notEncoded("é")),
        ("https://exa\tmple", .notEncoded("\t")),
        ("\u{0}", .notEncoded("\u{0}")),
        ("https://h/\u{80}", .notEncoded("\u{80}")),
        ("`", .notAllowedInURL("`")),
        ("https://h/\\", .notAllowedInURL("\\")),
        ("https://h/\"", .notAllowedInURL("\"")),
        ("https://h/{", .notAllowedInURL("{")),
        ("https://h/}", .notAllowedInURL("}")),
        ("https://h/|", .notAllowedInURL("|")),
        ("https://h/^", .notAllowedInURL("^")),
        ("https://h/>", .notAllowedInURL(">")),
        // The scheme.
        ("https", .notAbsolute),
        ("ht_tp://h", .notAbsolute),
        ("1://h", .notAbsolute),
        ("+a:b", .notAbsolute),
        (":x", .notAbsolute),
        ("https//h:x", .notAbsolute),
        ("a?b:c", .notAbsolute),
        ("a#b:c", .notAbsolute),
        ("//h:80/x", .notAbsolute),
        ("a+b-c.d://h", .unsupportedScheme("a+b-c.d")),
        ("Ftp://h", .unsupportedScheme("ftp")),
        ("mailto:joe@x", .unsupportedScheme("mailto")),
        ("HTTP://h", .httpNotAllowed),
        ("http:", .httpNotAllowed),
        // The authority.
        ("https:", .noHost(scheme: "https")),
        ("HTTPS:/h", .noHost(scheme: "https")),
        ("https:h//x", .noHost(scheme: "https")),
        ("https://", .noHost(scheme: "https")),
        ("https://h@", .noHost(scheme: "https")),
        ("https://u@/x", .noHost(scheme: "https")),
        ("https://:80", .noHost(scheme: "https")),
        ("https://?x", .noHost(scheme: "https")),
        ("https://#x", .noHost(scheme: "https")),
        ("https://[::1", .malformedHost),
        ("https://u@[::1/x", .malformedHost),
        ("https://[::1]]/", .malformedPort),
        ("https://[::1]:x", .malformedPort),
        ("https://[::1]:1:2/", .malformedPort),
        ("https://h:+1/", .malformedPort),
        ("https://h:-1/", .malformedPort),
        ("https://h:8%30/", .malformedPort),
        ("https://h:1000000", .portOutOfRange),
        ("https://h:65536?x", .portOutOfRange),
        ("https://[::1]:99999#x", .portOutOfRange),
        ("https://h:0065536", .portOutOfRange),
    ])
    func refused(url: String, problem: Problem) {
        #expect(DocumentSourceValidation.appInfoURLProblem(url) == problem, "\(url)")
    }

    @Test func httpOnlyWhenAllowed() {
        #expect(DocumentSourceValidation.appInfoURLProblem("HTTP://h", allowHTTP: true) == nil)
        #expect(DocumentSourceValidation.appInfoURLProblem("http:", allowHTTP: true) == .noHost(scheme: "http"))
        #expect(DocumentSourceValidation.appInfoURLProblem("http://a@b@c:1:2/", allowHTTP: true) == nil)
        #expect(DocumentSourceValidation.appInfoURLProblem("http://h:99999", allowHTTP: true) == .portOutOfRange)
        #expect(DocumentSourceValidation.appInfoURLProblem("Ws://h", allowHTTP: true) == .unsupportedScheme("ws"))
        #expect(DocumentSourceValidation.appInfoURLProblem("h ttp://x", allowHTTP: true) == .space)
    }
}
