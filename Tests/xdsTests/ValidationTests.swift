import Foundation
import XDSTestSupport
import Testing

@Suite("Validation before writing")
struct ValidationTests {
    static let invalid: [[String]] = [
        ["--id", "bad id"],
        ["--id", ""],
        ["--id", "com.example/app"],
        ["--id", "com..example"],
        ["--id", "com.exämple"],
        ["--id", "-"],
        ["--id", "."],
        ["--id", "com.-app"],
        ["--name", ""],
        ["--name", "   "],
        ["--name", "\u{200B}"],
        ["--name", " \u{202E}\u{2066} \u{200F}"],
        ["--name", "\u{FEFF}\u{00AD}"],
        ["--path", ""],
        ["--app-info-url", "http://example.com/appInfo.json"],
        ["--app-info-url", "ftp://example.com/appInfo.json"],
        ["--app-info-url", "file:///etc/passwd"],
        ["--app-info-url", "appInfo.json"],
        ["--app-info-url", "/appInfo.json"],
        ["--app-info-url", "https:///appInfo.json"],
        ["--app-info-url", "https://exa mple.com/appInfo.json"],
        ["--app-info-url", "https://example.com:port/appInfo.json"],
        ["--app-info-url", "https://example.com/a\u{1}b"],
        ["--bogus-option"],
    ]

    @Test(arguments: invalid)
    func invalidOptionsExit64AndLeaveTheValue(options: [String]) async throws {
        let folder = TemporaryFolder()
        folder.file("a.txt")
        #expect(try await xds("set", "a.txt", "--id", "com.example.app", "--name", "Old", in: folder.path).status == 0)
        let before = try await folder.attribute("a.txt")
        let result = try await xds(["set", "a.txt"] + options, in: folder.path)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("Error: "))
        #expect(try await folder.attribute("a.txt") == before)
    }

    @Test(arguments: [
        ["--app-info-url", "http://example.com/appInfo.json", "--allow-http"],
        ["--app-info-url", "HTTPS://example.com:8443/a%20b/appInfo.json?x=1#y"],
        ["--app-info-url", "https://[::1]:8080/appInfo.json"],
        ["--id", "com.example.App-2"],
        ["--name", "Working Copy 文 😀"],
    ])
    func validOptionsAreAccepted(options: [String]) async throws {
        let folder = TemporaryFolder()
        folder.file("a.txt")
        let result = try await xds(["set", "a.txt", "--id", "com.example.app", "--name", "N"] + options, in: folder.path)
        #expect(result.status == 0, "\(result)")
    }

    @Test func messagesNameTheOptionAndProblem() async throws {
        let folder = TemporaryFolder()
        folder.file("a.txt")
        let http = try await xds("set", "a.txt", "--id", "a.b", "--name", "N", "--app-info-url", "http://x.org/a", in: folder.path)
        #expect(http.stderr.hasPrefix("Error: --app-info-url 'http://x.org/a' uses http, which is allowed only with --allow-http; use https.\n"))
        let ftp = try await xds("set", "a.txt", "--id", "a.b", "--name", "N", "--app-info-url", "ftp://x.org/a", in: folder.path)
        #expect(ftp.stderr.hasPrefix("Error: --app-info-url 'ftp://x.org/a' uses the scheme 'ftp'; only https is allowed (http with --allow-http).\n"))
        let relative = try await xds("set", "a.txt", "--id", "a.b", "--name", "N", "--app-info-url", "appInfo.json", in: folder.path)
        #expect(relative.stderr.hasPrefix("Error: --app-info-url 'appInfo.json' is not an absolute URL"))
        let id = try await xds("set", "a.txt", "--id", "bad id", "--name", "N", in: folder.path)
        #expect(id.stderr.hasPrefix("Error: --id 'bad id' contains a space"))
        let dash = try await xds("set", "a.txt", "--id", "-", "--name", "N", in: folder.path)
        #expect(dash.stderr.hasPrefix("Error: --id '-' has a part that starts or ends with '-' (reverse-DNS"))
        let dot = try await xds("set", "a.txt", "--id", ".", "--name", "N", in: folder.path)
        #expect(dot.stderr.hasPrefix("Error: --id '.' has an empty part between dots"))
        // The invisible name is shown escaped, so the message says what was typed.
        let invisible = try await xds("set", "a.txt", "--id", "a.b", "--name", "\u{200B}\u{202E}", in: folder.path)
        #expect(invisible.stderr.hasPrefix("Error: --name '\\u{200b}\\u{202e}' has no visible character.\n"))
        #expect(try await folder.attribute("a.txt") == nil)
    }
}
