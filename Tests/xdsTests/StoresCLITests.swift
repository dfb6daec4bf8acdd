import Foundation
import XDSTestSupport
import Testing

@Suite("Samba stream and AppleDouble stores through xds")
struct StoresCLITests {
    @Test func sambaStreamWithTrailingNUL() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("a.txt")
        try await folder.setAttribute(file, try plistlib(#"{"identifier": "com.example.app", "name": "Samba"}"#) + [0],
                                name: "user.DosStream.x-document-source:$DATA")
        let json = try await xds("show", "--json", "a.txt", in: folder.path)
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout == #"{"file":"a.txt","identifier":"com.example.app","name":"Samba","store":"samba-stream","other":{}}"# + "\n")
        let human = try await xds("show", "a.txt", in: folder.path)
        #expect(human.stdout.contains("  store:      samba-stream (user.DosStream.x-document-source:$DATA)\n"))
        // Removing clears the stream too.
        #expect(try await xds("remove", "a.txt", in: folder.path).status == 0)
        #expect(try await folder.attribute(file, name: "user.DosStream.x-document-source:$DATA") == nil)
    }

    @Test func appleDoubleSidecar() async throws {
        let folder = TemporaryFolder()
        folder.file("Report.pdf")
        let value = try await plistlib(#"{"identifier": "com.example.app", "name": "Sidecar", "x": b"\x01"}"#)
        try Data(appleDoubleBytes(attributes: [("com.apple.quarantine", Array("0081;5f;Safari;".utf8)), ("x-document-source", value)]))
            .write(to: URL(fileURLWithPath: folder.path + "/._Report.pdf"))
        let json = try await xds("show", "--json", "Report.pdf", in: folder.path)
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout == #"{"file":"Report.pdf","identifier":"com.example.app","name":"Sidecar","store":"appledouble","other":{"x":"AQ=="}}"# + "\n")
    }

    @Test(arguments: [
        ("entry count out of range", 24, [0x00, 0x63]),
        ("entry offset past the end", 30, [0x7F, 0xFF, 0xFF, 0xFF]),
        ("overlapping entries", 42, [0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x10]),
        ("attribute count absurd", 118, [0xFF, 0xFF]),
        ("attribute value out of range", 124, [0x00, 0x01, 0x00, 0x00]),
    ] as [(String, Int, [UInt8])])
    func malformedAppleDoubleExits65(name: String, at: Int, patch: [UInt8]) async throws {
        let folder = TemporaryFolder()
        folder.file("a.txt")
        var bytes = await appleDoubleBytes(attributes: [("x-document-source", try plistlib(#"{"identifier": "a.b", "name": "N"}"#))])
        bytes.replaceSubrange(at..<at + patch.count, with: patch)
        try Data(bytes).write(to: URL(fileURLWithPath: folder.path + "/._a.txt"))
        let result = try await xds("show", "a.txt", in: folder.path)
        #expect(result.status == 65, "\(name): \(result)")
        #expect(result.errorLines.count == 1)
        #expect(result.errorLines.first?.hasPrefix("xds: a.txt: malformed AppleDouble sidecar ") == true)
    }
}
