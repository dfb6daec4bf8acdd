import Foundation
import XDSTestSupport
import Testing

/// Cases where the plain message would mislead the person reading it.
@Suite("Messages that say what is really going on")
struct MessagesCLITests {
    /// Linux names are bytes; Swift repairs a non-UTF-8 argument, which then names another
    /// file. The user must learn why, not read "no such file or folder" about a file `ls` shows.
    @Test func fileNameThatIsNotUTF8() async throws {
        let folder = TemporaryFolder()
        #expect(try await sh(#"touch "$(printf 'caf\351.txt')""#, in: folder.path).status == 0)
        let message = "xds: caf\u{FFFD}.txt: the file name is not valid UTF-8, which xds cannot handle (rename the file)\n"
        for command in ["show", "show --json --", "set --id a.b --name N", "remove"] {
            let result = try await sh("'\(xdsPath)' \(command) \"$(printf 'caf\\351.txt')\"", in: folder.path)
            #expect(result.status == 66, "\(command): \(result)")
            #expect(result.stderr == message, "\(command)")
        }
        // A valid name that merely contains U+FFFD is an ordinary name.
        folder.file("caf\u{FFFD}.txt")
        #expect(try await xds("set", "caf\u{FFFD}.txt", "--id", "a.b", "--name", "N", in: folder.path).status == 0)
        #expect(try await xds("show", "caf\u{FFFD}.txt", in: folder.path).status == 0)
    }

    /// `xds mask` too: a non-UTF-8 input is not "no such file", and a non-UTF-8 -o must not
    /// quietly write the PNG under the repaired name.
    @Test func maskFileNamesThatAreNotUTF8() async throws {
        let folder = TemporaryFolder()
        let onePixel = """
            import struct, zlib
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
            open('ic.png', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 1, 1, 8, 6, 0, 0, 0))
                + chunk(b'IDAT', zlib.compress(b'\\0\\xff\\0\\0\\xff')) + chunk(b'IEND', b''))
            """
        #expect(try await python(onePixel, in: folder.path).status == 0)
        #expect(try await sh("cp ic.png \"$(printf 'ic\\351.png')\"", in: folder.path).status == 0)
        let input = try await sh("'\(xdsPath)' mask \"$(printf 'ic\\351.png')\" -o out.png", in: folder.path)
        #expect(input.status == 66, "\(input)")
        #expect(input.stderr == "xds: ic\u{FFFD}.png: the file name is not valid UTF-8, which xds cannot handle (rename the file)\n")
        let output = try await sh("'\(xdsPath)' mask ic.png -o \"$(printf 'out\\351.png')\"", in: folder.path)
        #expect(output.status == 64, "\(output)")
        #expect(output.stderr == "xds: out\u{FFFD}.png: the file name is not valid UTF-8, which xds cannot handle (rename the file)\n")
        // Nothing written under the repaired name (or any other).
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 2)
        #expect(try await sh("'\(xdsPath)' mask ic.png -o out.png", in: folder.path).status == 0)
    }

    /// A hostile file name cannot split `xds mask`'s error line or reach the terminal raw.
    @Test func maskErrorNamesAreOneSafeLine() async throws {
        let folder = TemporaryFolder()
        let result = try await xds("mask", "a\nb\u{1B}[31m.png", "-o", "out.png", in: folder.path)
        #expect(result.status == 66)
        #expect(result.stderr == "xds: a\\nb\\u{1b}[31m.png: no such file\n")
    }

    @Test func mergeOverAMalformedValueSaysHowToReplaceIt() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("a.txt")
        let garbage = Array("bplist00 garbage, not a property list".utf8)
        try await folder.setAttribute(file, garbage)
        let result = try await xds("set", "a.txt", "--id", "a.b", "--name", "N", in: folder.path)
        #expect(result.status == 65)
        #expect(result.errorLines.count == 1)
        #expect(result.errorLines.first?.hasPrefix("xds: a.txt: malformed x-document-source value: ") == true)
        #expect(result.errorLines.first?.hasSuffix("; --replace writes a new value without reading it") == true)
        #expect(try await folder.attribute(file) == Data(garbage))
        // And the hint is right.
        #expect(try await xds("set", "a.txt", "--replace", "--id", "a.b", "--name", "N", in: folder.path).status == 0)
        #expect(try await xds("show", "a.txt", in: folder.path).status == 0)
    }

    @Test func removeSaysWhenTheValueLivesInASidecar() async throws {
        let folder = TemporaryFolder()
        folder.file("Report.pdf")
        let sidecar = folder.path + "/._Report.pdf"
        try await Data(appleDoubleBytes(attributes: [("x-document-source", try plistlib(#"{"identifier": "a.b", "name": "N"}"#))]))
            .write(to: URL(fileURLWithPath: sidecar))
        let result = try await xds("remove", "Report.pdf", in: folder.path)
        #expect(result.status == 1)
        let resolved = URL(fileURLWithPath: sidecar).resolvingSymlinksInPath().path
        #expect(result.stderr == "xds: Report.pdf: the attribute is only in the AppleDouble sidecar \(resolved); xds remove --sidecar removes it\n")
        #expect(FileManager.default.fileExists(atPath: sidecar))
        // Without a sidecar, the plain words.
        folder.file("plain.txt")
        #expect(try await xds("remove", "plain.txt", in: folder.path).stderr == "xds: plain.txt: no x-document-source attribute\n")
    }

    /// A right-to-left override in a hostile value must not reorder what the terminal shows.
    @Test func bidiOverridesAreMadeVisible() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("a.txt")
        try await folder.setAttribute(file, try plistlib(#"{"identifier": "a.b", "name": "Safe\u202Etxt.exe\u2066x\u2069"}"#))
        let human = try await xds("show", "a.txt", in: folder.path)
        #expect(human.status == 0)
        #expect(human.stdout.contains("  name:       Safe\\u{202e}txt.exe\\u{2066}x\\u{2069}\n"), "\(human)")
        // JSON keeps the exact text (it is for programs, and escaping is JSON's own).
        let json = try await xds("show", "--json", "a.txt", in: folder.path)
        #expect(try json.jsonLines().first?["name"] as? String == "Safe\u{202E}txt.exe\u{2066}x\u{2069}")
        // Hebrew and Arabic names themselves are left alone.
        try await folder.setAttribute(file, try plistlib(#"{"identifier": "a.b", "name": "\u05E2\u05D1\u05E8\u05D9\u05EA"}"#))
        #expect(try await xds("show", "a.txt", in: folder.path).stdout.contains("  name:       עברית\n"))
    }
}
