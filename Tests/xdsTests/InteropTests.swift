import Foundation
import XDSTestSupport
import Testing

@Suite("Interop with plistlib, plistutil, getfattr and setfattr")
struct InteropTests {
    @Test(arguments: ["BINARY", "XML"])
    func valuesWrittenByPlistlibAreRead(format: String) async throws {
        let folder = TemporaryFolder()
        let file = folder.file("a.txt")
        try await folder.setAttribute(file, try plistlib("""
            {"identifier": "com.example.app", "name": "Exämple", "path": "d/f.txt",
             "appInfoURL": "https://example.com/appInfo.json", "org.other": [1, {"k": True}]}
            """, format: format))
        let json = try await xds("show", "--json", "a.txt", in: folder.path)
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout == """
            {"file":"a.txt","identifier":"com.example.app","name":"Exämple","path":"d/f.txt",\
            "appInfoURL":"https://example.com/appInfo.json","store":"xattr","other":{"org.other":[1,{"k":true}]}}

            """)
    }

    @Test func plistlibAndPlistutilReadWhatXdsWrites() async throws {
        let folder = TemporaryFolder()
        folder.file("a.txt")
        let set = try await xds("set", "a.txt", "--id", "com.example.app", "--name", "Exämple 😀",
                          "--path", "d/f.txt", "--app-info-url", "https://example.com/appInfo.json", in: folder.path)
        #expect(set.status == 0, "\(set)")
        let bytes = try #require(try await folder.attribute("a.txt"))
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        try await expectAttribute(folder, "a.txt", equals: """
            {"identifier": "com.example.app", "name": "Exämple 😀", "path": "d/f.txt",
             "appInfoURL": "https://example.com/appInfo.json"}
            """)
        // plistutil (libplist's own tool) converts it to XML.
        try bytes.write(to: URL(fileURLWithPath: folder.path + "/value.bplist"))
        let xml = try await run("/usr/bin/plistutil", ["-i", "value.bplist", "-o", "-", "-f", "xml"], in: folder.path)
        #expect(xml.status == 0, "\(xml)")
        #expect(xml.stdout.contains("<key>identifier</key>\n\t<string>com.example.app</string>"))
        #expect(xml.stdout.contains("<key>name</key>\n\t<string>Exämple 😀</string>"))
        #expect(xml.stdout.contains("<key>appInfoURL</key>\n\t<string>https://example.com/appInfo.json</string>"))
    }
}
