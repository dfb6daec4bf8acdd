import Foundation
import Testing
import XDSTestSupport

/// Issue 31, "Credentials printed": `xds where` on values written by setfattr (and a zone file
/// and a property list written by Python) never prints the user information of a URL field,
/// whether or not the field parses as a URL (SPEC §6's one rule), in text, JSON, `--redact`
/// and `--summary`; control characters never reach the terminal.
@Suite("where: no credentials of any URL field reach the output", .timeLimit(.minutes(3)))
struct WhereCredentialsCLITests {
    /// A value of `user.xdg.origin.url` per file, and what `where` shows of it, without and
    /// with `--redact`. Every secret holds `pw`, `s3cret` or `pa ss`.
    static let cases: [(file: String, value: [UInt8], shown: String, redacted: String)] = [
        ("space", bytes("https://alice:pa ss@host.example/a b?sig=XYZ#frag"),
         "https://***@host.example/a b?sig=XYZ#frag", "https://***@host.example/a b"),
        ("issue", bytes("https://alice:s3cret@host.example/a b"), "https://***@host.example/a b", "https://***@host.example/a b"),
        ("tab", bytes("https://alice:s3\tcret@h.example/x\ty?q=1"), "https://***@h.example/x\ty?q=1", "https://***@h.example/x\ty"),
        ("newline", bytes("https://alice:s3\ncret@h.example/x"), "https://***@h.example/x", "https://***@h.example/x"),
        ("del", bytes("https://ali\u{7F}ce:pw@h.example/x"), "https://***@h.example/x", "https://***@h.example/x"),
        ("nul", bytes("https://alice:p") + [0] + bytes("w@h.example/x"), "https://***@h.example/x", "https://***@h.example/x"),
        ("backslash", bytes(#"https:\\alice:pw@h.example\x?y"#), #"https:\\***@h.example\x?y"#, #"https:\\***@h.example\x"#),
        ("oneslash", bytes("https:/alice:pw@h.example/a"), "https:/***@h.example/a", "https:/***@h.example/a"),
        ("bare", bytes("https:/alice:pw@h.example"), "https:/***@h.example", "https:/***@h.example"),
        ("svn", bytes("svn+ssh://a:pw@h.example/x y"), "svn+ssh://***@h.example/x y", "svn+ssh://***@h.example/x y"),
        ("twoats", bytes("https://a:pw@c@h.example/x"), "https://***@h.example/x", "https://***@h.example/x"),
        ("two", bytes(#"svn+ssh:\\a:pw@h.example/x y http:/b:pw@c@d.example?e"#), #"svn+ssh:\\***@h.example/x y http:/***@d.example?e"#,
         #"svn+ssh:\\***@h.example/x y http:/***@d.example"#),
        ("mailto", bytes("mailto:joe@example.com?subject=pw"), "mailto:joe@example.com?subject=pw", "mailto:joe@example.com?subject=pw"),
    ]

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// One file per case, its value set with setfattr.
    func folder() async throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        folder.folder("u")
        for item in Self.cases {
            let file = folder.file("u/" + item.file)
            try await folder.setAttribute(file, item.value, name: "user.xdg.origin.url")
        }
        return folder
    }

    /// The `url` of each file's xdg mark, by file.
    func urls(_ stdout: String) throws -> [String: String] {
        var urls: [String: String] = [:]
        for line in stdout.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let file = try #require(object["file"] as? String)
            let marks = try #require(object["marks"] as? [[String: Any]])
            urls[String(file.dropFirst(2))] = marks.first?["url"] as? String
        }
        return urls
    }

    @Test("JSON and --redact: user information hidden whatever the URL holds (blanks, tab, newline, DEL, NUL, backslashes, one slash, svn+ssh:, two @)")
    func json() async throws {
        let folder = try await folder()
        let names = Self.cases.map { "u/" + $0.file }
        for redact in [false, true] {
            let result = try await xds(["where", "--json"] + (redact ? ["--redact"] : []) + names, in: folder.path)
            #expect(result.status == 0, "\(result)")
            let urls = try urls(result.stdout)
            for item in Self.cases {
                #expect(urls[item.file] == (redact ? item.redacted : item.shown), "\(item.file): \(result.stdout)")
            }
            #expect(!result.stdout.contains("pw@") && !result.stdout.contains("s3") && !result.stdout.contains("pa ss"))
        }
    }

    @Test("text: the rule runs on the raw value, escaping after; no control character reaches the terminal")
    func text() async throws {
        let folder = try await folder()
        let names = Self.cases.map { "u/" + $0.file }
        for redact in [false, true] {
            let result = try await xds(["where"] + (redact ? ["--redact"] : []) + names, in: folder.path)
            #expect(result.status == 0, "\(result)")
            for item in Self.cases {
                var shown = (redact ? item.redacted : item.shown).replacingOccurrences(of: "\\", with: "\\\\")
                shown = shown.replacingOccurrences(of: "\t", with: "\\t")
                #expect(result.stdout.contains("u/\(item.file)\n  xdg (xattr)\n    url:       \(shown)\n"), "\(item.file): \(result.stdout)")
            }
            #expect(!result.stdout.contains("pw@") && !result.stdout.contains("s3") && !result.stdout.contains("pa ss"))
            #expect(!result.output.contains { $0 < 0x20 && $0 != 0x0A || $0 == 0x7F }, "\(result.stdout)")
        }
    }

    @Test("a URL that is not UTF-8: the rule runs on its bytes before the hex (and --redact's cut); status 65")
    func notUTF8() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("latin1")
        let value = Self.bytes("https://alice:s3cret@h.example/caf") + [0xE9] + Self.bytes("?sig=XYZ")
        try await folder.setAttribute(file, value, name: "user.xdg.origin.url")
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
        for redact in [false, true] {
            let shown = Self.bytes("https://***@h.example/caf") + [0xE9] + (redact ? [] : Self.bytes("?sig=XYZ"))
            let json = try await xds(["where", "--json"] + (redact ? ["--redact"] : []) + ["latin1"], in: folder.path)
            #expect(json.status == 65, "\(json)")
            #expect(json.stdout.contains(#""hex":"\#(hex(shown))""#), "\(json.stdout)")
            #expect(!json.stdout.contains(hex(Self.bytes("s3cret"))))
            let text = try await xds(["where"] + (redact ? ["--redact"] : []) + ["latin1"], in: folder.path)
            #expect(text.status == 65, "\(text)")
            #expect(text.stdout.contains("hex:       \(hex(shown))\n"), "\(text.stdout)")
            #expect(!text.stdout.contains(hex(Self.bytes("s3cret"))))
        }
    }

    @Test("a WhereFroms list and a zone file that do not decode: their hex holds no credentials; status 65")
    func undecodableWholeValues() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("doc.pdf")
        let froms = try await plistlib(#"["https://alice:pw@dl.example/a", 1]"#)
        try await folder.setAttribute(file, froms, name: "user.com.apple.metadata:kMDItemWhereFroms")
        folder.write("doc.pdf:Zone.Identifier", bytes: Self.bytes("[ZoneTransfer]\r\nZoneId=x\r\nHostUrl=https://carol:pw@cdn.example/f\r\n"))
        let hex = { (text: String) in Self.bytes(text).map { String(format: "%02x", $0) }.joined() }
        for arguments in [["where", "--json", "doc.pdf"], ["where", "doc.pdf"]] {
            let result = try await xds(arguments, in: folder.path)
            #expect(result.status == 65, "\(result)")
            #expect(result.stdout.contains(hex("https://***@dl.example/a")), "\(result.stdout)")
            #expect(result.stdout.contains(hex("https://***@cdn.example/f")), "\(result.stdout)")
            #expect(!result.stdout.contains(hex(":pw@")), "\(result.stdout)")
        }
    }

    @Test("WhereFroms strings, a zone file's hostURL and referrerURL, an appInfoURL: the same rule; a Mail subject and mailto: unchanged")
    func otherFields() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("doc.pdf")
        let froms = try await plistlib(#"["https://alice:pa ss@dl.example/a b?t=1", "mailto:joe@example.com", "Re: what? #1"]"#)
        try await folder.setAttribute(file, froms, name: "user.com.apple.metadata:kMDItemWhereFroms")
        let source = try await plistlib(#"{"identifier": "com.example.app", "appInfoURL": "https://bob:pw@apps.example/appInfo.json?k=1"}"#)
        try await folder.setAttribute(file, source, name: "user.x-document-source")
        folder.write("doc.pdf:Zone.Identifier", bytes: Self.bytes(
            "[ZoneTransfer]\r\nZoneId=3\r\nHostUrl=https://carol:pw@cdn.example/f g?x=1\r\nReferrerUrl=https:/dave:pw@ref.example/p\r\n"))
        for redact in [false, true] {
            let result = try await xds(["where", "--json"] + (redact ? ["--redact"] : []) + ["doc.pdf"], in: folder.path)
            #expect(result.status == 0, "\(result)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let marks = try #require(object["marks"] as? [[String: Any]])
            let byKind = Dictionary(marks.map { ($0["kind"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
            #expect(byKind["where-froms"]?["urls"] as? [String] == [
                redact ? "https://***@dl.example/a b" : "https://***@dl.example/a b?t=1", "mailto:joe@example.com", "Re: what? #1"])
            #expect(byKind["zone-identifier"]?["hostURL"] as? String == (redact ? "https://***@cdn.example/f g" : "https://***@cdn.example/f g?x=1"))
            #expect(byKind["zone-identifier"]?["referrerURL"] as? String == "https:/***@ref.example/p")
            let documentSource = byKind["x-document-source"]?["documentSource"] as? [String: Any]
            #expect(documentSource?["appInfoURL"] as? String
                == (redact ? "https://***@apps.example/appInfo.json" : "https://***@apps.example/appInfo.json?k=1"))
            #expect(!result.stdout.contains("pw") && !result.stdout.contains("pa ss"), "\(result.stdout)")
            let text = try await xds(["where"] + (redact ? ["--redact"] : []) + ["doc.pdf"], in: folder.path)
            #expect(text.status == 0, "\(text)")
            #expect(text.stdout.contains(redact ? "https://***@dl.example/a b\n" : "https://***@dl.example/a b?t=1\n"), "\(text.stdout)")
            #expect(text.stdout.contains(redact ? "https://***@apps.example/appInfo.json\n" : "https://***@apps.example/appInfo.json?k=1\n"))
            #expect(text.stdout.contains("Re: what? #1\n") && text.stdout.contains("https:/***@ref.example/p\n"))
            #expect(!text.stdout.contains("pw") && !text.stdout.contains("pa ss"), "\(text.stdout)")
        }
    }

    @Test("--summary: the host of a URL that does not parse is its authority after the last @, without :PORT, lower-cased; no authority, not counted")
    func summary() async throws {
        let folder = TemporaryFolder()
        folder.folder("t")
        for (name, value) in [("a", "https://alice:pa ss@Host.Example:8443/a b"), ("b", "https://a:pw@c@host.example/x"),
                              ("c", "svn+ssh://a:pw@SVN.example/x y"), ("d", "ftp:\\b:p w@Other.example:21/"),
                              ("e", "mailto:joe@example.com"), ("f", "Re: not a URL")] {
            try await folder.setAttribute(folder.file("t/" + name), Self.bytes(value), name: "user.xdg.origin.url")
        }
        let text = try await xds("where", "-r", "--summary", "-j", "1", "t", in: folder.path)
        #expect(text.status == 0, "\(text)")
        let hosts = text.stdout.split(separator: "\n").filter { $0.contains("  host ") }.map { String($0) }
        #expect(hosts == ["2  host   host.example", "1  host   other.example", "1  host   svn.example"], "\(text.stdout)")
        #expect(!text.stdout.contains("pw") && !text.stdout.contains("pa ss") && !text.stdout.contains("p w"))
        let json = try await xds("where", "-r", "--summary", "--json", "-j", "1", "t", in: folder.path)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["hosts"] as? [String: Int] == ["host.example": 2, "other.example": 1, "svn.example": 1], "\(json.stdout)")
    }
}
