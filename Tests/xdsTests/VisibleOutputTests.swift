import Foundation
import XDSTestSupport
import Testing

/// Human output and error lines go through the one escaper: `\` doubled, controls, zero-width,
/// bidi marks, U+00AD and U+FEFF shown as escapes.
@Suite("Escaped human output and error lines")
struct VisibleOutputTests {
    @Test("show escapes backslashes and invisible characters in values, keys and file names", arguments: [
        ("a\\u{1b}b", "a\\\\u{1b}b"),  // typed literally: not to be read as an escaped ESC
        ("a\u{1B}b", "a\\u{1b}b"),
        ("x\u{200B}y", "x\\u{200b}y"),
        ("x\u{200E}\u{200F}\u{061C}y", "x\\u{200e}\\u{200f}\\u{61c}y"),
        ("x\u{202E}y\u{2066}z\u{2069}", "x\\u{202e}y\\u{2066}z\\u{2069}"),
        ("soft\u{00AD}hyphen\u{FEFF}", "soft\\u{ad}hyphen\\u{feff}"),
        ("line\nbreak\ttab", "line\\nbreak\\ttab"),
        ("plain ü 文", "plain ü 文"),
    ])
    func humanOutput(raw: String, shown: String) async throws {
        let folder = TemporaryFolder()
        folder.file("a.txt")
        // Written by Python so the value holds exactly `raw`, whatever xds set would accept.
        let bytes = try await plistlib(#"{"identifier": "com.example.app", "name": sys.argv[1], "other": sys.argv[1]}"#
            .replacingOccurrences(of: "sys.argv[1]", with: pythonLiteral(raw)))
        try await folder.setAttribute("a.txt", bytes)
        let result = try await xds("show", "a.txt", in: folder.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("  name:       \(shown)\n"), "\(result.stdout)")
        #expect(result.stdout.contains("    other: \"\(shown)\"\n"), "\(result.stdout)")
        for scalar in result.stdout.unicodeScalars where scalar != "\n" {
            #expect(scalar.value >= 0x20 && !(0x7F...0x9F).contains(scalar.value) && ![0xAD, 0xFEFF, 0x200B, 0x202E, 0x2066].contains(scalar.value))
        }
    }

    @Test("file names in show output and in error lines are escaped the same way")
    func fileNames() async throws {
        let folder = TemporaryFolder()
        let name = "a\\u{1b}b\u{202E}"
        folder.file(name)
        #expect(try await xds("set", name, "--id", "com.example.app", "--name", "N", in: folder.path).status == 0)
        let shown = try await xds("show", name, in: folder.path)
        #expect(shown.stdout.hasPrefix("a\\\\u{1b}b\\u{202e}\n"), "\(shown)")
        let missing = try await xds("show", "gone\\n\u{200B}", in: folder.path)
        #expect(missing.status == 66)
        #expect(missing.stderr == "xds: gone\\\\n\\u{200b}: no such file or folder\n")
    }

    @Test("input quoted in a library's error message is escaped once in the error line")
    func libraryMessagesAreNotEscapedTwice() async throws {
        let folder = TemporaryFolder()
        folder.file("a.txt")
        // An XML value whose dictionary has the key ESC-b twice: the library quotes the key with
        // its escape, and the error line must show that escape as it is, not doubled.
        let xml = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>"#
            + "<key>&#27;b</key><true/><key>&#27;b</key><true/></dict></plist>"
        try await folder.setAttribute("a.txt", Array(xml.utf8))
        let result = try await xds("show", "a.txt", in: folder.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("the key '\\u{1b}b' twice"), "\(result.stderr)")
        #expect(!result.stderr.contains("\\\\u{1b}"), "\(result.stderr)")
        #expect(!result.stderr.unicodeScalars.contains("\u{1B}"))
    }

    /// A Python string literal for `text` (every scalar as `\U` escape).
    func pythonLiteral(_ text: String) -> String {
        "\"" + text.unicodeScalars.map { String(format: "\\U%08x", $0.value) }.joined() + "\""
    }
}
