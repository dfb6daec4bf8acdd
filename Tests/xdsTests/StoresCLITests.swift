import Foundation
import Testing

@Suite("Samba stream and AppleDouble stores through xds")
struct StoresCLITests {
    @Test func sambaStreamWithTrailingNUL() throws {
        let folder = Folder()
        let file = folder.file("a.txt")
        try folder.setAttribute(file, try plistlib(#"{"identifier": "com.example.app", "name": "Samba"}"#) + [0],
                                name: "user.DosStream.x-document-source:$DATA")
        let json = try xds("show", "--json", "a.txt", in: folder.path)
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout == #"{"file":"a.txt","identifier":"com.example.app","name":"Samba","store":"samba-stream","other":{}}"# + "\n")
        let human = try xds("show", "a.txt", in: folder.path)
        #expect(human.stdout.contains("  store:      samba-stream (user.DosStream.x-document-source:$DATA)\n"))
        // Removing clears the stream too.
        #expect(try xds("remove", "a.txt", in: folder.path).status == 0)
        #expect(try folder.attribute(file, name: "user.DosStream.x-document-source:$DATA") == nil)
    }

    @Test func appleDoubleSidecar() throws {
        let folder = Folder()
        folder.file("Report.pdf")
        let value = try plistlib(#"{"identifier": "com.example.app", "name": "Sidecar", "x": b"\x01"}"#)
        try Data(appleDouble([("com.apple.quarantine", Array("0081;5f;Safari;".utf8)), ("x-document-source", value)]))
            .write(to: URL(fileURLWithPath: folder.path + "/._Report.pdf"))
        let json = try xds("show", "--json", "Report.pdf", in: folder.path)
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
    func malformedAppleDoubleExits65(name: String, at: Int, patch: [UInt8]) throws {
        let folder = Folder()
        folder.file("a.txt")
        var bytes = appleDouble([("x-document-source", try plistlib(#"{"identifier": "a.b", "name": "N"}"#))])
        bytes.replaceSubrange(at..<at + patch.count, with: patch)
        try Data(bytes).write(to: URL(fileURLWithPath: folder.path + "/._a.txt"))
        let result = try xds("show", "a.txt", in: folder.path)
        #expect(result.status == 65, "\(name): \(result)")
        #expect(result.errorLines.count == 1)
        #expect(result.errorLines.first?.hasPrefix("xds: a.txt: malformed AppleDouble sidecar ") == true)
    }
}

/// An AppleDouble file as macOS writes `._NAME` (INTEROP §3), built byte by byte.
func appleDouble(_ attributes: [(String, [UInt8])]) -> [UInt8] {
    func u32(_ v: Int) -> [UInt8] { be(UInt64(v), 4) }
    func u16(_ v: Int) -> [UInt8] { be(UInt64(v), 2) }
    var entriesSize = 0
    for (name, _) in attributes { entriesSize = (entriesSize + 11 + name.utf8.count + 1 + 3) & ~3 }
    let dataStart = 120 + entriesSize
    let dataLength = attributes.reduce(0) { $0 + $1.1.count }
    let totalSize = dataStart + dataLength
    var out = u32(0x0005_1607) + u32(0x0002_0000) + Array("Mac OS X        ".utf8) + u16(2)
    out += u32(9) + u32(50) + u32(totalSize - 50)  // Finder info + attributes
    out += u32(2) + u32(totalSize) + u32(0)  // empty resource fork, last
    out += [UInt8](repeating: 0, count: 34)  // Finder info, padding
    out += u32(0x4154_5452) + u32(0) + u32(totalSize) + u32(dataStart) + u32(dataLength)
    out += [UInt8](repeating: 0, count: 12) + u16(0) + u16(attributes.count)
    var valueOffset = dataStart
    for (name, value) in attributes {
        while out.count % 4 != 0 { out.append(0) }
        out += u32(valueOffset) + u32(value.count) + u16(0) + [UInt8(name.utf8.count + 1)] + Array(name.utf8) + [0]
        valueOffset += value.count
    }
    while out.count < dataStart { out.append(0) }
    for (_, value) in attributes { out += value }
    return out
}
