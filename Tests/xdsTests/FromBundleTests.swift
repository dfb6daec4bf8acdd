import Foundation
import Testing
import XDSTestSupport

/// `xds set FILE... --from-bundle APP|Info.plist`: --id and --name from the bundle, explicit
/// options winning, bundle errors reported with appinfo's codes and nothing written.
@Suite("xds set --from-bundle (built binary)")
struct FromBundleTests {
    func shown(_ file: String) async throws -> [String: Any]? {
        try await xds("show", "--json", file).jsonLines().first
    }

    func bundle(_ fixture: AppBundleFixture) async throws {
        try await fixture.infoPlist("Editor.app/Info.plist", """
            <key>CFBundleIdentifier</key><string>com.example.editor</string>
            <key>CFBundleDisplayName</key><string>Editor Pro</string>
            """)
        try await fixture.infoPlist("Mac.app/Contents/Info.plist", """
            <key>CFBundleIdentifier</key><string>com.example.mac</string>
            <key>CFBundleName</key><string>Mac Editor</string>
            """, xml: true)
    }

    @Test("identifier and name from an iOS bundle, a macOS bundle and an Info.plist, on several files")
    func fromBundle() async throws {
        let fixture = try AppBundleFixture()
        try await bundle(fixture)
        try fixture.write("a.txt", Data("a".utf8))
        try fixture.write("b.txt", Data("b".utf8))
        let set = try await xds("set", fixture.path("a.txt"), fixture.path("b.txt"), "--from-bundle", fixture.path("Editor.app"))
        #expect(set.status == 0, "\(set)")
        for file in ["a.txt", "b.txt"] {
            let value = try await shown(fixture.path(file))
            #expect(value?["identifier"] as? String == "com.example.editor")
            #expect(value?["name"] as? String == "Editor Pro")
        }
        for source in ["Mac.app", "Mac.app/Contents/Info.plist"] {
            let again = try await xds("set", fixture.path("a.txt"), "--from-bundle", fixture.path(source), "--path", "docs/a.txt")
            #expect(again.status == 0, "\(again)")
            let value = try await shown(fixture.path("a.txt"))
            #expect(value?["identifier"] as? String == "com.example.mac")
            #expect(value?["name"] as? String == "Mac Editor")
            #expect(value?["path"] as? String == "docs/a.txt")
        }
    }

    @Test("explicit --id and --name win over the bundle's; --replace works with --from-bundle alone")
    func explicitWins() async throws {
        let fixture = try AppBundleFixture()
        try await bundle(fixture)
        try fixture.write("a.txt", Data("a".utf8))
        let name = try await xds("set", fixture.path("a.txt"), "--from-bundle", fixture.path("Editor.app"), "--name", "Custom")
        #expect(name.status == 0, "\(name)")
        #expect(try await shown(fixture.path("a.txt"))?["name"] as? String == "Custom")
        #expect(try await shown(fixture.path("a.txt"))?["identifier"] as? String == "com.example.editor")
        let id = try await xds("set", fixture.path("a.txt"), "--id", "org.other.app", "--from-bundle", fixture.path("Editor.app"), "--replace")
        #expect(id.status == 0, "\(id)")
        let value = try await shown(fixture.path("a.txt"))
        #expect(value?["identifier"] as? String == "org.other.app")
        #expect(value?["name"] as? String == "Editor Pro")

        // A bundle without CFBundleIdentifier is fine when --id is given.
        try await fixture.infoPlist("NoId/Info.plist", "<key>CFBundleName</key><string>Nameless Id</string>")
        let noId = try await xds("set", fixture.path("a.txt"), "--id", "org.x.y", "--from-bundle", fixture.path("NoId/Info.plist"))
        #expect(noId.status == 0, "\(noId)")
        #expect(try await shown(fixture.path("a.txt"))?["name"] as? String == "Nameless Id")
    }

    @Test("bundle errors: missing 66, malformed 65, no identifier 65, naming the file; no file is written")
    func bundleErrors() async throws {
        let fixture = try AppBundleFixture()
        try fixture.write("a.txt", Data("a".utf8))
        try fixture.write("Bad.app/Info.plist", Data("bplist00 broken".utf8))
        try await fixture.infoPlist("NoId.app/Info.plist", "<key>CFBundleName</key><string>X</string>")
        for (bundle, status, words) in [("Nowhere.app", Int32(66), "Nowhere.app"), ("Bad.app", 65, "Bad.app/Info.plist"),
                                        ("NoId.app", 65, "CFBundleIdentifier")] {
            let result = try await xds("set", fixture.path("a.txt"), "--from-bundle", fixture.path(bundle))
            #expect(result.status == status, "\(bundle): \(result)")
            #expect(result.stderr.contains(words), "\(result.stderr)")
            #expect(try await xds("show", fixture.path("a.txt")).status == 1, "nothing written for \(bundle)")
        }
    }

    @Test("--from-bundle takes a value: the word after it is never a file")
    func optionTakesValue() async throws {
        let fixture = try AppBundleFixture()
        try await bundle(fixture)
        try fixture.write("a.txt", Data("a".utf8))
        let result = try await run(xdsPath, ["set", "--from-bundle", "Editor.app", "a.txt"], in: fixture.root.path)
        #expect(result.status == 0, "\(result)")
        #expect(try await xds("show", "--json", fixture.path("Editor.app")).status == 1, "the bundle itself was not labelled")
    }
}
