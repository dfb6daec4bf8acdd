import Foundation
import Testing
import XDSTestSupport
@testable import XDocSource
@testable import XDSPublish
@testable import XDocSourceFetch

/// A bundle laid out in a scratch folder: Info.plist written with our own binary encoder (or
/// as XML text), icon files as placeholder bytes (the reader only finds files; decoding them
/// is the publisher's, tested through `xds appinfo`).
private final class BundleFolder {
    let root: URL
    init() throws { root = try ScratchFolder.make(prefix: "xds-appbundle") }
    deinit { try? FileManager.default.removeItem(at: root) }

    func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    func write(_ relative: String, _ bytes: [UInt8]) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    func touch(_ relatives: String...) throws {
        for relative in relatives { try write(relative, Array("icon \(relative)".utf8)) }
    }

    func plist(_ relative: String, _ info: [String: PropertyListValue]) throws {
        try write(relative, PropertyList.encodeBinary(.dictionary(info)))
    }
}

private func strings(_ values: String...) -> PropertyListValue { .array(values.map { .string($0) }) }

private func primaryIcon(_ names: String...) -> PropertyListValue {
    .dictionary(["CFBundlePrimaryIcon": .dictionary(["CFBundleIconFiles": .array(names.map { .string($0) })])])
}

/// Expects `body` to throw an ``AppBundleError`` and returns it.
private func bundleError(_ body: () throws -> Void) -> AppBundleError? {
    do { try body() } catch let error as AppBundleError { return error } catch { Issue.record("not an AppBundleError: \(error)") }
    return nil
}

@Suite("AppBundle: Info.plist, identifier, name and icon files")
struct AppBundleTests {
    @Test("iOS .app with a binary Info.plist: identifier, display name, @2x/@3x files of CFBundleIcons, nothing unlisted")
    func iOSBundle() throws {
        let folder = try BundleFolder()
        try folder.plist("Editor.app/Info.plist", [
            "CFBundleIdentifier": .string("com.example.editor"),
            "CFBundleDisplayName": .string("Editor Pro"),
            "CFBundleName": .string("Editor"),
            "CFBundleIcons": primaryIcon("AppIcon60x60"),
        ])
        try folder.touch("Editor.app/AppIcon60x60@2x.png", "Editor.app/AppIcon60x60@3x.png", "Editor.app/Other@2x.png")
        let bundle = try AppBundle(path: folder.path("Editor.app"))
        #expect(bundle.layout == .iOS)
        #expect(bundle.infoPlistPath == folder.path("Editor.app/Info.plist"))
        #expect(try bundle.identifier() == "com.example.editor")
        #expect(try bundle.name() == "Editor Pro")
        let icons = try bundle.iconFiles()
        #expect(icons.map(\.fileName) == ["AppIcon60x60@2x.png", "AppIcon60x60@3x.png"])
        #expect(icons.map(\.scale) == [2, 3])
        #expect(icons.allSatisfy { $0.format == .png && !$0.isIPad && $0.key == "CFBundleIcons" })
        #expect(icons.map(\.path) == [folder.path("Editor.app/AppIcon60x60@2x.png"), folder.path("Editor.app/AppIcon60x60@3x.png")])
    }

    @Test("iPad-only bundle: CFBundleIcons~ipad resolves the ~ipad files")
    func iPadOnly() throws {
        let folder = try BundleFolder()
        try folder.plist("Pad.app/Info.plist", [
            "CFBundleIdentifier": .string("com.example.pad"),
            "CFBundleName": .string("Pad"),
            "CFBundleIcons~ipad": primaryIcon("AppIcon76x76"),
        ])
        try folder.touch("Pad.app/AppIcon76x76~ipad.png", "Pad.app/AppIcon76x76@2x~ipad.png")
        let icons = try AppBundle(path: folder.path("Pad.app")).iconFiles()
        #expect(icons.map(\.fileName) == ["AppIcon76x76~ipad.png", "AppIcon76x76@2x~ipad.png"])
        #expect(icons.map(\.scale) == [1, 2])
        #expect(icons.allSatisfy { $0.isIPad && $0.key == "CFBundleIcons~ipad" })
    }

    @Test("macOS .app: Contents/Info.plist, CFBundleIconFile with and without .icns, icons in Contents/Resources")
    func macOSBundle() throws {
        for listed in ["AppIcon", "AppIcon.icns"] {
            let folder = try BundleFolder()
            try folder.plist("Mac.app/Contents/Info.plist", [
                "CFBundleIdentifier": .string("com.example.mac"),
                "CFBundleIconFile": .string(listed),
            ])
            try folder.touch("Mac.app/Contents/Resources/AppIcon.icns", "Mac.app/Contents/Resources/Other.icns")
            let bundle = try AppBundle(path: folder.path("Mac.app"))
            #expect(bundle.layout == .macOS)
            #expect(bundle.iconFolder == folder.path("Mac.app/Contents/Resources"))
            #expect(try bundle.name() == "Mac", "no CFBundleDisplayName or CFBundleName: the bundle's file name")
            let icons = try bundle.iconFiles()
            #expect(icons.map(\.fileName) == ["AppIcon.icns"], "listed as \(listed)")
            #expect(icons.first?.format == .icns)

            // The same Info.plist named directly still finds Resources and the bundle's name.
            let direct = try AppBundle(path: folder.path("Mac.app/Contents/Info.plist"))
            #expect(direct.layout == .infoPlist)
            #expect(direct.iconFolder == folder.path("Mac.app/Contents/Resources"))
            #expect(try direct.name() == "Mac")
            #expect(try direct.iconFiles().map(\.fileName) == ["AppIcon.icns"])
        }
    }

    @Test("bare XML Info.plist: names with and without .png, resolved in its folder, CFBundleName as the name")
    func bareXMLInfoPlist() throws {
        let folder = try BundleFolder()
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
              <key>CFBundleIdentifier</key><string>org.example.legacy-app</string>
              <key>CFBundleName</key><string>Legacy</string>
              <key>CFBundleIconFiles</key><array><string>Icon.png</string><string>Icon-Small</string></array>
              <key>CFBundleIconFile</key><string>Icon-72.png</string>
            </dict></plist>
            """
        try folder.write("plain/Info.plist", Array(xml.utf8))
        try folder.touch("plain/Icon.png", "plain/Icon@2x.png", "plain/Icon-Small.png", "plain/Icon-Small@3x.png", "plain/Icon-72.png")
        let bundle = try AppBundle(path: folder.path("plain/Info.plist"))
        #expect(bundle.layout == .infoPlist)
        #expect(bundle.bundleFileName == nil)
        #expect(try bundle.identifier() == "org.example.legacy-app")
        #expect(try bundle.name() == "Legacy")
        let icons = try bundle.iconFiles()
        #expect(icons.map(\.fileName) == ["Icon.png", "Icon@2x.png", "Icon-Small.png", "Icon-Small@3x.png", "Icon-72.png"])
        #expect(icons.map(\.key) == ["CFBundleIconFiles", "CFBundleIconFiles", "CFBundleIconFiles", "CFBundleIconFiles", "CFBundleIconFile"])
    }

    @Test("names are matched ignoring ASCII case when the exact file is missing (bundles built on case-insensitive disks)")
    func caseInsensitiveMatch() throws {
        let folder = try BundleFolder()
        try folder.plist("A.app/Info.plist", ["CFBundleIdentifier": .string("a.b"), "CFBundleIconFiles": strings("appicon")])
        try folder.touch("A.app/AppIcon.png", "A.app/APPICON@2x.PNG")
        #expect(try AppBundle(path: folder.path("A.app")).iconFiles().map(\.fileName) == ["AppIcon.png", "APPICON@2x.PNG"])
    }

    @Test("an icon name that leaves the folder is refused in words, and nothing outside is listed", arguments: [
        "../secret", "../secret.png", "sub/icon", "..", ".", "",
    ])
    func traversalRefused(name: String) throws {
        let folder = try BundleFolder()
        try folder.plist("T.app/Info.plist", ["CFBundleIdentifier": .string("t.t"), "CFBundleIconFiles": strings("AppIcon", name)])
        try folder.touch("T.app/AppIcon.png", "secret.png", "T.app/sub/icon.png")
        let error = bundleError { _ = try AppBundle(path: folder.path("T.app")).iconFiles() }
        #expect(error?.kind == .unsafeIconName)
        #expect(error?.file == folder.path("T.app/Info.plist"))
        #expect(error?.message.contains("CFBundleIconFiles") == true, "\(String(describing: error))")
    }

    @Test("a symbolic link named like an icon is not an icon (it could point anywhere)")
    func symlinkIsNotAnIcon() throws {
        let folder = try BundleFolder()
        try folder.plist("L.app/Info.plist", ["CFBundleIdentifier": .string("l.l"), "CFBundleIconFiles": strings("AppIcon")])
        try folder.touch("outside.png", "L.app/AppIcon.png")
        try FileManager.default.createSymbolicLink(atPath: folder.path("L.app/AppIcon@2x.png"), withDestinationPath: "../outside.png")
        #expect(try AppBundle(path: folder.path("L.app")).iconFiles().map(\.fileName) == ["AppIcon.png"])
    }

    @Test("a symbolic link for Contents/Resources, Contents or Info.plist inside a bundle is not followed")
    func symlinkedFoldersAreNotFollowed() throws {
        let folder = try BundleFolder()
        let info: [String: PropertyListValue] = ["CFBundleIdentifier": .string("m.m"), "CFBundleIconFile": .string("AppIcon.png")]
        // Outside the bundles: a Resources folder with the icon, a Contents folder, an Info.plist.
        try folder.plist("outside/Contents/Info.plist", info)
        try folder.touch("outside/Resources/AppIcon.png", "outside/Contents/Resources/AppIcon.png")
        try folder.plist("R.app/Contents/Info.plist", info)
        try FileManager.default.createSymbolicLink(atPath: folder.path("R.app/Contents/Resources"), withDestinationPath: "../../outside/Resources")
        let resources = bundleError { _ = try AppBundle(path: folder.path("R.app")).iconFiles() }
        #expect(resources?.kind == .unreadable)
        #expect(resources?.file == folder.path("R.app/Contents/Resources"))
        #expect(resources?.message.contains("symbolic link") == true)
        // The same through Contents/Info.plist named directly.
        let named = bundleError { _ = try AppBundle(path: folder.path("R.app/Contents/Info.plist")).iconFiles() }
        #expect(named?.kind == .unreadable)
        // A symlinked Contents: the bundle is refused before anything in it is read.
        try FileManager.default.createDirectory(atPath: folder.path("C.app"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path("C.app/Contents"), withDestinationPath: "../outside/Contents")
        let contents = bundleError { _ = try AppBundle(path: folder.path("C.app")) }
        #expect(contents?.kind == .unreadable)
        #expect(contents?.file == folder.path("C.app/Contents"))
        // A symlinked Info.plist in an iOS bundle.
        try FileManager.default.createDirectory(atPath: folder.path("I.app"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path("I.app/Info.plist"), withDestinationPath: "../outside/Contents/Info.plist")
        let plist = bundleError { _ = try AppBundle(path: folder.path("I.app")) }
        #expect(plist?.kind == .unreadable)
        #expect(plist?.file == folder.path("I.app/Info.plist"))
        // A real Resources folder still works.
        try folder.plist("G.app/Contents/Info.plist", info)
        try folder.touch("G.app/Contents/Resources/AppIcon.png")
        #expect(try AppBundle(path: folder.path("G.app")).iconFiles().map(\.fileName) == ["AppIcon.png"])
    }

    @Test("asset-catalog-only app: its own error kind naming Assets.car and the keys looked at")
    func assetCatalogOnly() throws {
        let folder = try BundleFolder()
        try folder.plist("C.app/Info.plist", [
            "CFBundleIdentifier": .string("c.c"),
            "CFBundleIcons": .dictionary(["CFBundlePrimaryIcon": .dictionary(["CFBundleIconName": .string("AppIcon")])]),
        ])
        try folder.touch("C.app/Assets.car")
        let error = bundleError { _ = try AppBundle(path: folder.path("C.app")).iconFiles() }
        #expect(error?.kind == .assetCatalogOnly)
        let message = error?.message ?? ""
        for word in ["Assets.car", "CFBundleIconName 'AppIcon'", "CFBundleIconFiles", "CFBundleIconFile", "CFBundleIcons~ipad"] {
            #expect(message.contains(word), "\(message) names \(word)")
        }
        // CFBundleIconName alone (no Assets.car file) is reported the same way.
        try FileManager.default.removeItem(atPath: folder.path("C.app/Assets.car"))
        #expect(bundleError { _ = try AppBundle(path: folder.path("C.app")).iconFiles() }?.kind == .assetCatalogOnly)
    }

    @Test("no icon named, or none of the named files exists: noIcon naming what was looked for")
    func noIcon() throws {
        let folder = try BundleFolder()
        try folder.plist("N.app/Info.plist", ["CFBundleIdentifier": .string("n.n")])
        let none = bundleError { _ = try AppBundle(path: folder.path("N.app")).iconFiles() }
        #expect(none?.kind == .noIcon)
        #expect(none?.message.contains("CFBundleIconFiles") == true)
        try folder.plist("M.app/Info.plist", ["CFBundleIdentifier": .string("m.m"), "CFBundleIconFiles": strings("Gone")])
        let missing = bundleError { _ = try AppBundle(path: folder.path("M.app")).iconFiles() }
        #expect(missing?.kind == .noIcon)
        #expect(missing?.message.contains("'Gone'") == true, "\(String(describing: missing))")
    }

    @Test("missing bundle or Info.plist: notFound; not a plist, not a dictionary, wrong key types: malformedInfoPlist naming the Info.plist")
    func readErrors() throws {
        let folder = try BundleFolder()
        #expect(bundleError { _ = try AppBundle(path: folder.path("Nope.app")) }?.kind == .notFound)
        try FileManager.default.createDirectory(atPath: folder.path("Empty.app"), withIntermediateDirectories: true)
        let empty = bundleError { _ = try AppBundle(path: folder.path("Empty.app")) }
        #expect(empty?.kind == .notFound)
        #expect(empty?.message.contains("Contents/Info.plist") == true)

        try folder.write("Bad.app/Info.plist", Array("bplist00 this is not a plist at all".utf8))
        let bad = bundleError { _ = try AppBundle(path: folder.path("Bad.app")) }
        #expect(bad?.kind == .malformedInfoPlist)
        #expect(bad?.file == folder.path("Bad.app/Info.plist"))

        try folder.write("Array.app/Info.plist", try PropertyList.encodeBinary(.array([.string("x")])))
        #expect(bundleError { _ = try AppBundle(path: folder.path("Array.app")) }?.message.contains("not a dictionary") == true)

        try folder.plist("Types.app/Info.plist", ["CFBundleIdentifier": .integer(3), "CFBundleIconFiles": .string("Icon")])
        let types = try AppBundle(path: folder.path("Types.app"))
        let identifier = bundleError { _ = try types.identifier() }
        #expect(identifier?.kind == .malformedInfoPlist)
        #expect(identifier?.message == "CFBundleIdentifier is an integer, not a string")
        let icons = bundleError { _ = try types.iconFiles() }
        #expect(icons?.message == "CFBundleIconFiles is a string, not an array of strings")
    }

    @Test("identifier and name are checked as set checks them; a missing identifier has its own kind")
    func identifierAndNameChecks() throws {
        let folder = try BundleFolder()
        try folder.plist("I.app/Info.plist", ["CFBundleIdentifier": .string("com.example/evil"), "CFBundleDisplayName": .string("Line\nbreak")])
        let bundle = try AppBundle(path: folder.path("I.app"))
        #expect(bundleError { _ = try bundle.identifier() }?.kind == .malformedInfoPlist)
        #expect(bundleError { _ = try bundle.name() }?.message.contains("CFBundleDisplayName") == true)
        try folder.plist("J/Info.plist", ["CFBundleDisplayName": .string("")])
        let bare = try AppBundle(path: folder.path("J/Info.plist"))
        #expect(bundleError { _ = try bare.identifier() }?.kind == .noIdentifier)
        #expect(bundleError { _ = try bare.name() }?.kind == .noName, "an empty display name counts as missing")
    }

    @Test("an Info.plist over the attribute's 64 KiB is read (bound 4 MiB); the attribute path keeps its 64 KiB bound")
    func largeInfoPlist() throws {
        let folder = try BundleFolder()
        let types = PropertyListValue.array((0..<4000).map { .string("public.example-document-type-number-\($0)") })
        try folder.plist("Big.app/Info.plist", ["CFBundleIdentifier": .string("big.app"), "CFBundleDocumentTypes": types])
        let size = try FileManager.default.attributesOfItem(atPath: folder.path("Big.app/Info.plist"))[.size] as? Int ?? 0
        #expect(size > PropertyList.maximumSize)
        #expect(try AppBundle(path: folder.path("Big.app")).identifier() == "big.app")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder.path("Big.app/Info.plist"))))
        #expect(throws: PropertyListError.self) { _ = try PropertyList.decode(bytes) }

        try folder.write("Huge.app/Info.plist", [UInt8](repeating: 0x20, count: AppBundle.maximumInfoPlistSize + 1))
        let huge = bundleError { _ = try AppBundle(path: folder.path("Huge.app")) }
        #expect(huge?.kind == .malformedInfoPlist)
        #expect(huge?.message.contains("4 MiB") == true)
    }

    @Test("appInfo.json text from (width, height, src) entries reads back the same list")
    func appInfoJSONRoundTrip() throws {
        let list = AppInfo(icons: [AppInfo.Icon(width: 29, height: 29, src: "img/icon-29.png"),
                                   AppInfo.Icon(width: 1024, height: 1024, src: "img/icon \"1024\".png")])
        let text = list.jsonText
        #expect(text.hasPrefix("{\"icons\": [\n"))
        #expect(try AppInfo(json: Array(text.utf8)) == list)
        #expect(try AppInfo(json: Array(AppInfo(icons: []).jsonText.utf8)).icons.isEmpty)
    }
}
