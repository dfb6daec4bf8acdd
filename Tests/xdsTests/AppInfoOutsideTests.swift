import Foundation
import Testing

/// `xds appinfo APP -o DIR` writes nothing outside DIR, whatever symbolic links DIR holds
/// (SPEC §5): a link where a file goes is replaced, not followed; a linked `img` is refused.
@Suite("appinfo writes nothing outside DIR")
struct AppInfoOutsideTests {
    @Test("links at appInfo.json and img/icon-N.png are replaced; the files they point at are untouched")
    func linksWhereFilesGoAreReplaced() async throws {
        let fixture = try AppBundleFixture()
        try await fixture.iOSApp()
        try fixture.write("victim.txt", Data("victim\n".utf8))
        try fixture.write("victim.png", Data("png victim\n".utf8))
        try fixture.makeFolder("S/img")
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: fixture.path("S/appInfo.json"), withDestinationPath: "../victim.txt")
        try fm.createSymbolicLink(atPath: fixture.path("S/img/icon-29.png"), withDestinationPath: "../../victim.png")
        let r = try await fixture.appinfo(["Editor.app", "-o", "S", "--sizes", "29,58"])
        #expect(r.status == 0, "\(r)")
        #expect(try fixture.bytes("victim.txt") == Data("victim\n".utf8))
        #expect(try fixture.bytes("victim.png") == Data("png victim\n".utf8))
        for file in ["S/appInfo.json", "S/img/icon-29.png", "S/img/icon-58.png"] {
            let type = try fm.attributesOfItem(atPath: fixture.path(file))[.type] as? FileAttributeType
            #expect(type == .typeRegular, "\(file) is a regular file now")
        }
        #expect(try fixture.bytes("S/appInfo.json").starts(with: Data("{".utf8)))
        #expect(try fixture.bytes("S/img/icon-29.png").starts(with: Data([0x89, 0x50, 0x4E, 0x47])))
        #expect(try fixture.listing("S").allSatisfy { !$0.contains(".xds-") })
    }

    @Test("a symbolic link named img is refused (74): nothing is written through it")
    func linkedImageFolderIsRefused() async throws {
        let fixture = try AppBundleFixture()
        try await fixture.iOSApp()
        try fixture.makeFolder("elsewhere")
        try fixture.makeFolder("S")
        try FileManager.default.createSymbolicLink(atPath: fixture.path("S/img"), withDestinationPath: "../elsewhere")
        let r = try await fixture.appinfo(["Editor.app", "-o", "S", "--sizes", "29"])
        #expect(r.status == 74, "\(r)")
        #expect(r.stderr.contains("img: is a symbolic link"), "\(r)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.path("elsewhere")).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: fixture.path("S/appInfo.json")))
    }

    @Test("a macOS bundle whose Contents/Resources is a link outside it: refused, nothing read from there")
    func linkedResourcesAreNotFollowed() async throws {
        let fixture = try AppBundleFixture()
        try await fixture.png("outside/AppIcon.png", size: 64, seed: 3)
        try await fixture.infoPlist("Mac.app/Contents/Info.plist", """
            <key>CFBundleIdentifier</key><string>com.example.mac</string>
            <key>CFBundleName</key><string>Mac</string>
            <key>CFBundleIconFile</key><string>AppIcon.png</string>
            """)
        try FileManager.default.createSymbolicLink(atPath: fixture.path("Mac.app/Contents/Resources"), withDestinationPath: "../../outside")
        let r = try await fixture.appinfo(["Mac.app", "-o", "S", "--sizes", "29"])
        #expect(r.status != 0, "\(r)")
        #expect(r.stderr.contains("Resources: is a symbolic link, which is not followed inside a bundle"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: fixture.path("S/img/icon-29.png")))
    }
}
