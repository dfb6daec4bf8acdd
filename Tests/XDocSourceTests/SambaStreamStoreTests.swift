import Testing
import XDSTestSupport
@testable import XDocSource

@Suite("Samba stream store")
struct SambaStreamStoreTests {
    static let names = ["user.DosStream.x-document-source:$DATA", "user.DosStream.x-document-source"]

    @Test(arguments: names, [true, false])
    func readsTheStreamWithOrWithoutTrailingNUL(name: String, trailingNUL: Bool) throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        let value = try sampleSource().binaryPropertyList()
        try setRawAttribute(name, value + (trailingNUL ? [0] : []), on: path)
        let found = try #require(try DocumentSourceFile(path: path).read())
        #expect(found.store == .sambaStream)
        #expect(found.location == name)
        #expect(found.source == sampleSource())
    }

    @Test func xmlValueWithTrailingNULIsRead() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>identifier</key><string>com.example.app</string>
            <key>name</key><string>Example</string></dict></plist>
            """
        try setRawAttribute(Self.names[0], Array(xml.utf8) + [0], on: path)
        let found = try #require(try DocumentSourceFile(path: path).read())
        #expect(found.source == DocumentSource(identifier: "com.example.app", name: "Example"))
    }

    @Test func nativeAttributeComesFirst() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        try setRawAttribute(Self.names[0], try DocumentSource(identifier: "samba.app", name: "S").binaryPropertyList() + [0], on: path)
        try DocumentSourceFile(path: path).write(DocumentSource(identifier: "native.app", name: "N"))
        let found = try #require(try DocumentSourceFile(path: path).read())
        #expect(found.store == .xattr)
        #expect(found.source.identifier == "native.app")
    }

    @Test func aFreshlyCreatedEmptyStreamIsAbsent() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        try setRawAttribute(Self.names[0], [0], on: path)
        #expect(try DocumentSourceFile(path: path).read() == nil)
        try setRawAttribute(Self.names[1], try sampleSource().binaryPropertyList() + [0], on: path)
        #expect(try DocumentSourceFile(path: path).read()?.location == Self.names[1])
    }

    @Test func malformedStreamIsMalformed() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        try setRawAttribute(Self.names[0], Array("garbage".utf8) + [0], on: path)
        let error = #expect(throws: DocumentSourceFileError.self) { _ = try DocumentSourceFile(path: path).read() }
        #expect(error?.kind == .malformedValue)
        #expect(error?.message.contains("user.DosStream.x-document-source:$DATA") == true)
    }

    @Test func mergeStartsFromTheStreamAndRemoveClearsIt() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        try setRawAttribute(Self.names[0], try sampleSource().binaryPropertyList() + [0], on: path)
        let file = DocumentSourceFile(path: path)
        try file.update(with: DocumentSource(path: "moved.pdf"))
        var expected = sampleSource()
        expected.path = "moved.pdf"
        // Updated in the stream it was found in (SPEC §2), with Samba's trailing NUL: no
        // second copy in the native attribute.
        #expect(try file.read() == StoredDocumentSource(source: expected, store: .sambaStream, location: Self.names[0]))
        #expect(try rawAttribute(Self.names[0], on: path)?.last == 0)
        #expect(try rawAttribute("user.x-document-source", on: path) == nil)
        #expect(try file.remove().removed == [.sambaStream])
        #expect(try file.read() == nil)
    }
}

/// Netatalk with `ea = samba`, and Samba with `streams_xattr:prefix = user.` and
/// `store_stream_type = no`, keep the native name but Samba's value form (Samba's
/// source3/modules/vfs_streams_xattr.c).
@Suite("Native attribute in Samba's value form")
struct NativeSambaFormTests {
    @Test(arguments: [false, true])
    func trailingNULIsDropped(xml: Bool) throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        let value: [UInt8] = xml
            ? Array(#"<?xml version="1.0"?><plist version="1.0"><dict><key>identifier</key><string>a.b</string><key>name</key><string>N</string></dict></plist>"#.utf8)
            : try sampleSource().binaryPropertyList()
        try setRawAttribute("user.x-document-source", value + [0], on: path)
        let found = try #require(try DocumentSourceFile(path: path).read())
        #expect(found.store == .xattr)
        #expect(found.source == (xml ? DocumentSource(identifier: "a.b", name: "N") : sampleSource()))
    }

    @Test func aLoneNULIsNoValueYet() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        try setRawAttribute("user.x-document-source", [0], on: path)
        #expect(try DocumentSourceFile(path: path).read() == nil)
        // ... so the Samba stream behind it is still found.
        try setRawAttribute("user.DosStream.x-document-source:$DATA", try sampleSource().binaryPropertyList() + [0], on: path)
        #expect(try DocumentSourceFile(path: path).read()?.store == .sambaStream)
    }

    @Test func onlyOneNULIsDropped() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        try setRawAttribute("user.x-document-source", try sampleSource().binaryPropertyList() + [0, 0], on: path)
        let error = #expect(throws: DocumentSourceFileError.self) { _ = try DocumentSourceFile(path: path).read() }
        #expect(error?.kind == .malformedValue)
    }
}
