import Foundation
import IconMask
import Testing
import XDocSource
import XDocSourceFetch
import XDSTestSupport

/// App bundles built in a scratch folder for `xds appinfo` and `set --from-bundle` tests:
/// images drawn by Python (Pillow, numpy) with partial alpha, turned into Apple CgBI PNGs by
/// scripts/make_cgbi_png.py and into `.icns` files by scripts/make_icns.py, binary
/// Info.plists written by `plistutil` from XML.
final class AppBundleFixture {
    let root: URL

    init() throws { root = try ScratchFolder.make(prefix: "xds-appinfo") }
    deinit { try? FileManager.default.removeItem(at: root) }

    func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    func makeFolder(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
    }

    func write(_ relative: String, _ bytes: some DataProtocol) throws {
        try makeFolder((relative as NSString).deletingLastPathComponent)
        try Data(bytes).write(to: URL(fileURLWithPath: path(relative)))
    }

    func bytes(_ relative: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path(relative))) }

    /// A `width`×`height` RGBA PNG: gradients tinted by `seed`, alpha from 40 to 255 across it
    /// (partial everywhere but the right edge), so premultiplication and resampling both show.
    func png(_ relative: String, size: Int, seed: Int, height: Int? = nil) async throws {
        try makeFolder((relative as NSString).deletingLastPathComponent)
        let script = """
            import sys, numpy as np
            from PIL import Image
            out, w, h, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
            y, x = np.mgrid[0:h, 0:w]
            a = np.zeros((h, w, 4), np.uint8)
            a[..., 0] = (x * 255 // max(w - 1, 1) + seed * 40) % 256
            a[..., 1] = (y * 255 // max(h - 1, 1) + seed * 90) % 256
            a[..., 2] = (((x + y) * 7) + seed * 60) % 256
            a[..., 3] = 40 + x * 215 // max(w - 1, 1)
            Image.fromarray(a, 'RGBA').save(out)
            """
        let made = try await python(script, [path(relative), String(size), String(height ?? size), String(seed)])
        try #require(made.status == 0, "\(made)")
    }

    /// The same drawing stored as an Apple CgBI PNG (premultiplied BGRA, raw deflate).
    func cgbi(_ relative: String, size: Int, seed: Int) async throws {
        let plain = "plain-\(UUID().uuidString).png"
        try await png(plain, size: size, seed: seed)
        try makeFolder((relative as NSString).deletingLastPathComponent)
        let made = try await run("/usr/bin/env", ["python3", packageRoot + "/scripts/make_cgbi_png.py", path(plain), path(relative)])
        try #require(made.status == 0, "\(made)")
        try FileManager.default.removeItem(atPath: path(plain))
    }

    /// An `.icns` of `parts` (`TYPE=RELATIVE-PATH` or `TYPE=legacy`).
    func icns(_ relative: String, _ parts: [String]) async throws {
        try makeFolder((relative as NSString).deletingLastPathComponent)
        let arguments = parts.map { part -> String in
            let split = part.split(separator: "=", maxSplits: 1).map(String.init)
            return split[1] == "legacy" ? part : "\(split[0])=\(path(split[1]))"
        }
        let made = try await run("/usr/bin/env", ["python3", packageRoot + "/scripts/make_icns.py", path(relative)] + arguments)
        try #require(made.status == 0, "\(made)")
    }

    /// An Info.plist from `body` (the XML inside `<dict>`), binary through plistutil unless `xml`.
    func infoPlist(_ relative: String, _ body: String, xml: Bool = false) async throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
            \(body)
            </dict></plist>

            """
        if xml { return try write(relative, Data(text.utf8)) }
        try write(relative + ".xml", Data(text.utf8))
        let made = try await run("/usr/bin/env", ["plistutil", "-i", path(relative + ".xml"), "-o", path(relative), "-f", "bin"])
        try #require(made.status == 0, "\(made)")
        try FileManager.default.removeItem(atPath: path(relative + ".xml"))
        try #require(try bytes(relative).starts(with: Data("bplist00".utf8)))
    }

    /// An iOS app with 120 px (@2x) and 180 px (@3x) CgBI icons listed under CFBundleIcons.
    func iOSApp(_ name: String = "Editor.app", displayName: String = "Editor Pro") async throws {
        try await infoPlist("\(name)/Info.plist", """
            <key>CFBundleIdentifier</key><string>com.example.editor</string>
            <key>CFBundleDisplayName</key><string>\(displayName)</string>
            <key>CFBundleName</key><string>Editor</string>
            <key>CFBundleIcons</key><dict><key>CFBundlePrimaryIcon</key><dict>
              <key>CFBundleIconFiles</key><array><string>AppIcon60x60</string></array>
            </dict></dict>
            """)
        try await cgbi("\(name)/AppIcon60x60@2x.png", size: 120, seed: 1)
        try await cgbi("\(name)/AppIcon60x60@3x.png", size: 180, seed: 2)
    }

    /// Runs `xds appinfo ARGS` in the fixture's folder.
    func appinfo(_ arguments: [String]) async throws -> Run {
        try await run(xdsPath, ["appinfo"] + arguments, in: root.path)
    }

    /// The decoded PNG at `relative`.
    func image(_ relative: String) throws -> RGBAImage {
        try PNGDecoder.decode([UInt8](bytes(relative)))
    }

    /// What `xds appinfo` must write for N px from the source PNG at `relative` (in an .icns:
    /// its bytes given directly): IconRenditions of the decoded source.
    func expected(from relative: String, size: Int) throws -> RGBAImage {
        try IconRenditions.resized(image(relative), toPixelSizes: [size])[0]
    }

    /// The names of every file under `relative`, recursively, sorted.
    func listing(_ relative: String = "") throws -> [String] {
        let base = path(relative)
        guard let walker = FileManager.default.enumerator(atPath: base) else { return [] }
        return walker.compactMap { $0 as? String }.sorted()
    }
}

/// The words of a line printed for a POSIX shell: plain words and '…' quoting with '\'' inside.
func shellWords(_ line: String) -> [String] {
    var words: [String] = []
    var current = ""
    var inWord = false
    var quoted = false
    var index = line.startIndex
    while index < line.endIndex {
        let character = line[index]
        if quoted {
            if character == "'" { quoted = false } else { current.append(character) }
        } else if character == "'" {
            quoted = true
            inWord = true
        } else if character == "\\" {
            index = line.index(after: index)
            if index < line.endIndex { current.append(line[index]) }
            inWord = true
        } else if character == " " || character == "\n" {
            if inWord { words.append(current) }
            current = ""
            inWord = false
        } else {
            current.append(character)
            inWord = true
        }
        index = line.index(after: index)
    }
    if inWord { words.append(current) }
    return words
}

/// The value after `option` in `words`.
func value(of option: String, in words: [String]) -> String? {
    guard let index = words.firstIndex(of: option), index + 1 < words.count else { return nil }
    return words[index + 1]
}

@Suite("xds appinfo (built binary, bundles built by the test)")
struct AppInfoCommandTests {
    @Test("iOS app, binary Info.plist, CgBI @2x/@3x with partial alpha: files, appInfo.json, the set line, and each icon is IconRenditions of the right source")
    func iOSApp() async throws {
        let fixture = try AppBundleFixture()
        try await fixture.iOSApp(displayName: "Editor's Pro")
        let result = try await fixture.appinfo(["Editor.app", "-o", "site"])
        #expect(result.status == 0, "\(result)")
        #expect(try fixture.listing("site") == ["appInfo.json", "img", "img/icon-1024.png", "img/icon-29.png", "img/icon-58.png", "img/icon-87.png"])

        let list = try AppInfo(json: [UInt8](fixture.bytes("site/appInfo.json")))
        #expect(list.icons == [29, 58, 87, 1024].map { AppInfo.Icon(width: $0, height: $0, src: "img/icon-\($0).png") })

        // The set line: shell-quoted values, a placeholder URL and a note saying so.
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 1)
        let words = shellWords(lines.first ?? "")
        #expect(Array(words.prefix(3)) == ["xds", "set", "FILE"])
        #expect(value(of: "--id", in: words) == "com.example.editor")
        #expect(value(of: "--name", in: words) == "Editor's Pro")
        #expect(value(of: "--app-info-url", in: words) == "https://example.com/PATH/appInfo.json")
        #expect(result.stderr.contains("replace https://example.com/PATH/"), "\(result.stderr)")

        // 29, 58 and 87 px come from the 120 px @2x (the smallest ≥ N), 1024 px from the largest.
        for (size, source, other) in [(29, "@2x", "@3x"), (58, "@2x", "@3x"), (87, "@2x", "@3x"), (1024, "@3x", "@2x")] {
            let written = try fixture.image("site/img/icon-\(size).png")
            #expect(written.width == size && written.height == size)
            #expect(written == (try fixture.expected(from: "Editor.app/AppIcon60x60\(source).png", size: size)),
                    "icon-\(size).png is the \(source) source resized")
            #expect(written != (try fixture.expected(from: "Editor.app/AppIcon60x60\(other).png", size: size)),
                    "and not the \(other) one (the sources differ)")
        }
        // Partial alpha survived: the sources are premultiplied CgBI, the output straight RGBA.
        let small = try fixture.image("site/img/icon-58.png")
        let alphas = Set(stride(from: 3, to: small.pixels.count, by: 4).map { small.pixels[$0] })
        #expect(alphas.count > 20 && alphas.contains(where: { $0 > 0 && $0 < 255 }))
    }

    @Test("iPad-only app: CFBundleIcons~ipad and ~ipad files; exact size written unchanged")
    func iPadOnly() async throws {
        let fixture = try AppBundleFixture()
        try await fixture.infoPlist("Pad.app/Info.plist", """
            <key>CFBundleIdentifier</key><string>com.example.pad</string>
            <key>CFBundleName</key><string>Pad</string>
            <key>CFBundleIcons~ipad</key><dict><key>CFBundlePrimaryIcon</key><dict>
              <key>CFBundleIconFiles</key><array><string>AppIcon76x76</string></array>
            </dict></dict>
            """)
        try await fixture.cgbi("Pad.app/AppIcon76x76~ipad.png", size: 76, seed: 3)
        try await fixture.cgbi("Pad.app/AppIcon76x76@2x~ipad.png", size: 152, seed: 4)
        let result = try await fixture.appinfo(["Pad.app", "-o", "out", "--sizes", "76,152,40"])
        #expect(result.status == 0, "\(result)")
        #expect(value(of: "--name", in: shellWords(result.stdout)) == "Pad")
        #expect(try fixture.image("out/img/icon-76.png") == fixture.image("Pad.app/AppIcon76x76~ipad.png"))
        #expect(try fixture.image("out/img/icon-152.png") == fixture.image("Pad.app/AppIcon76x76@2x~ipad.png"))
        #expect(try fixture.image("out/img/icon-40.png") == fixture.expected(from: "Pad.app/AppIcon76x76~ipad.png", size: 40))
    }

    @Test("macOS app: .icns with ic07 and ic10 PNG elements; the legacy element is skipped in words on stderr")
    func macOSIcns() async throws {
        let fixture = try AppBundleFixture()
        try await fixture.infoPlist("Mac.app/Contents/Info.plist", """
            <key>CFBundleIdentifier</key><string>com.example.mac</string>
            <key>CFBundleIconFile</key><string>AppIcon</string>
            """)
        try await fixture.png("parts/128.png", size: 128, seed: 5)
        try await fixture.png("parts/1024.png", size: 1024, seed: 6)
        try await fixture.icns("Mac.app/Contents/Resources/AppIcon.icns",
                         ["ic07=parts/128.png", "ic10=parts/1024.png", "is32=legacy", "s8mk=legacy"])
        let result = try await fixture.appinfo(["Mac.app", "-o", "site", "--base-url", "https://example.org/mac"])
        #expect(result.status == 0, "\(result)")
        #expect(value(of: "--name", in: shellWords(result.stdout)) == "Mac", "the bundle's file name")
        #expect(value(of: "--app-info-url", in: shellWords(result.stdout)) == "https://example.org/mac/appInfo.json")
        #expect(result.stderr.contains("AppIcon.icns: is32 (16×16"), "\(result.stderr)")
        #expect(result.stderr.contains("skipped"))
        #expect(!result.stderr.contains("replace"), "no placeholder note with --base-url")
        #expect(try fixture.image("site/img/icon-29.png") == fixture.expected(from: "parts/128.png", size: 29))
        #expect(try fixture.image("site/img/icon-87.png") == fixture.expected(from: "parts/128.png", size: 87))
        #expect(try fixture.image("site/img/icon-1024.png") == fixture.image("parts/1024.png"))
    }

    @Test("bare XML Info.plist named directly; icon names with and without .png")
    func bareInfoPlist() async throws {
        let fixture = try AppBundleFixture()
        try await fixture.infoPlist("src/Info.plist", """
            <key>CFBundleIdentifier</key><string>org.example.plain</string>
            <key>CFBundleName</key><string>Plain App</string>
            <key>CFBundleIconFiles</key><array><string>Icon.png</string><string>Icon-Large</string></array>
            """, xml: true)
        try await fixture.png("src/Icon.png", size: 57, seed: 7)
        try await fixture.png("src/Icon@2x.png", size: 114, seed: 8)
        try await fixture.png("src/Icon-Large.png", size: 512, seed: 9)
        let result = try await fixture.appinfo(["src/Info.plist", "-o", "out", "--sizes", "57,100,600", "--base-url", "https://example.org/x/"])
        #expect(result.status == 0, "\(result)")
        #expect(value(of: "--name", in: shellWords(result.stdout)) == "Plain App")
        #expect(value(of: "--app-info-url", in: shellWords(result.stdout)) == "https://example.org/x/appInfo.json")
        #expect(try fixture.image("out/img/icon-57.png") == fixture.image("src/Icon.png"))
        #expect(try fixture.image("out/img/icon-100.png") == fixture.expected(from: "src/Icon@2x.png", size: 100))
        #expect(try fixture.image("out/img/icon-600.png") == fixture.expected(from: "src/Icon-Large.png", size: 600))
    }

    @Test("an icon name with ../ is refused (65): nothing outside read, nothing written")
    func traversal() async throws {
        let fixture = try AppBundleFixture()
        try await fixture.infoPlist("Evil.app/Info.plist", """
            <key>CFBundleIdentifier</key><string>com.example.evil</string>
            <key>CFBundleIconFiles</key><array><string>../secret</string></array>
            """)
        try await fixture.png("secret.png", size: 64, seed: 1)
        let result = try await fixture.appinfo(["Evil.app", "-o", "site"])
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("'../secret'") && result.stderr.contains("Info.plist"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.path("site")))
        #expect(result.stdout.isEmpty)
    }

    @Test("asset-catalog-only app: exit 1 naming Assets.car and the keys looked at")
    func assetCatalog() async throws {
        let fixture = try AppBundleFixture()
        try await fixture.infoPlist("Car.app/Info.plist", """
            <key>CFBundleIdentifier</key><string>com.example.car</string>
            <key>CFBundleIcons</key><dict><key>CFBundlePrimaryIcon</key><dict>
              <key>CFBundleIconName</key><string>AppIcon</string></dict></dict>
            """)
        try fixture.write("Car.app/Assets.car", Data("not really a catalog".utf8))
        let result = try await fixture.appinfo(["Car.app", "-o", "site"])
        #expect(result.status == 1, "\(result)")
        for word in ["Assets.car", "CFBundleIconName", "CFBundleIconFiles", "CFBundleIconFile"] {
            #expect(result.stderr.contains(word), "\(result.stderr)")
        }
    }

    @Test("errors: missing Info.plist 66, malformed Info.plist 65, malformed icon and icns 65 naming the file, no icon 1")
    func errors() async throws {
        let fixture = try AppBundleFixture()
        try fixture.makeFolder("Empty.app")
        let missing = try await fixture.appinfo(["Empty.app", "-o", "a"])
        #expect(missing.status == 66, "\(missing)")
        #expect(missing.stderr.contains("Empty.app") && missing.stderr.contains("Info.plist"))
        #expect(try await fixture.appinfo(["Nowhere.app", "-o", "a"]).status == 66)

        try fixture.write("Bad.app/Info.plist", Data("<?xml version=\"1.0\"?><plist><dict><key>x</key>".utf8))
        let malformed = try await fixture.appinfo(["Bad.app", "-o", "a"])
        #expect(malformed.status == 65, "\(malformed)")
        #expect(malformed.stderr.contains("Bad.app/Info.plist"), "\(malformed.stderr)")

        try await fixture.iOSApp("BadIcon.app")
        try fixture.write("BadIcon.app/AppIcon60x60@3x.png", Data("\u{89}PNG\r\n\u{1A}\nthis is not a png at all, not even a header".utf8))
        let badIcon = try await fixture.appinfo(["BadIcon.app", "-o", "a"])
        #expect(badIcon.status == 65, "\(badIcon)")
        #expect(badIcon.stderr.contains("BadIcon.app/AppIcon60x60@3x.png"), "\(badIcon.stderr)")

        // A header that is fine over image data that is not: found only when decoding.
        try await fixture.iOSApp("BadData.app")
        var truncated = try fixture.bytes("BadData.app/AppIcon60x60@3x.png")
        truncated = truncated.prefix(60) + Data(repeating: 0x55, count: 200)
        try fixture.write("BadData.app/AppIcon60x60@3x.png", truncated)
        let badData = try await fixture.appinfo(["BadData.app", "-o", "a", "--sizes", "1024"])
        #expect(badData.status == 65, "\(badData)")
        #expect(badData.stderr.contains("BadData.app/AppIcon60x60@3x.png"), "\(badData.stderr)")
        // Only the chosen images are decoded: sizes the @2x serves never touch the broken @3x data.
        let unchosen = try await fixture.appinfo(["BadData.app", "-o", "b", "--sizes", "29,58"])
        #expect(unchosen.status == 0, "\(unchosen)")
        try FileManager.default.removeItem(atPath: fixture.path("b"))

        try await fixture.infoPlist("BadIcns.app/Contents/Info.plist", "<key>CFBundleIdentifier</key><string>a.b</string><key>CFBundleIconFile</key><string>AppIcon.icns</string>")
        try fixture.write("BadIcns.app/Contents/Resources/AppIcon.icns", Data("icns\u{0}\u{0}\u{0}\u{FF}garbage".utf8))
        let badIcns = try await fixture.appinfo(["BadIcns.app", "-o", "a"])
        #expect(badIcns.status == 65, "\(badIcns)")
        #expect(badIcns.stderr.contains("BadIcns.app/Contents/Resources/AppIcon.icns"), "\(badIcns.stderr)")

        try await fixture.infoPlist("NoIcon.app/Info.plist", "<key>CFBundleIdentifier</key><string>a.b</string>")
        let noIcon = try await fixture.appinfo(["NoIcon.app", "-o", "a"])
        #expect(noIcon.status == 1, "\(noIcon)")
        #expect(noIcon.stderr.contains("names no icon"), "\(noIcon.stderr)")

        try await fixture.infoPlist("NoId.app/Info.plist", "<key>CFBundleIconFiles</key><array><string>x</string></array>")
        #expect(try await fixture.appinfo(["NoId.app", "-o", "a"]).status == 65)
        #expect(!FileManager.default.fileExists(atPath: fixture.path("a")), "no failure wrote anything")
    }

    @Test("DIR: the files written are replaced whole, other files kept, no temporary file left; a failed run changes nothing")
    func outputFolder() async throws {
        let fixture = try AppBundleFixture()
        try await fixture.iOSApp()
        try fixture.write("site/index.html", Data("<p>keep</p>".utf8))
        try fixture.write("site/img/icon-58.png", Data("old".utf8))
        try fixture.write("site/img/banner.png", Data("banner".utf8))
        try fixture.write("site/appInfo.json", Data("{}".utf8))
        let result = try await fixture.appinfo(["Editor.app", "-o", "site", "--sizes", "58,58"])
        #expect(result.status == 0, "\(result)")
        #expect(try fixture.listing("site") == ["appInfo.json", "img", "img/banner.png", "img/icon-58.png", "index.html"])
        #expect(try fixture.bytes("site/index.html") == Data("<p>keep</p>".utf8))
        #expect(try fixture.bytes("site/img/banner.png") == Data("banner".utf8))
        #expect(try fixture.image("site/img/icon-58.png").width == 58)
        #expect(try AppInfo(json: [UInt8](fixture.bytes("site/appInfo.json"))).icons.map(\.src) == ["img/icon-58.png"],
                "duplicate sizes are listed once")

        // The bundle breaks: the run fails before writing, and the folder is as it was.
        let before = try fixture.listing("site").map { ($0, try? fixture.bytes("site/" + $0)) }
        try fixture.write("Editor.app/AppIcon60x60@2x.png", Data("junk".utf8))
        let failed = try await fixture.appinfo(["Editor.app", "-o", "site"])
        #expect(failed.status == 65)
        let after = try fixture.listing("site").map { ($0, try? fixture.bytes("site/" + $0)) }
        #expect(before.map(\.0) == after.map(\.0) && before.map(\.1) == after.map(\.1))

        // -o naming a file, or img being a file: 74 in words.
        try await fixture.iOSApp("Again.app")
        try fixture.write("file.txt", Data("x".utf8))
        let notFolder = try await fixture.appinfo(["Again.app", "-o", "file.txt"])
        #expect(notFolder.status == 74, "\(notFolder)")
        #expect(notFolder.stderr.contains("not a folder"))
    }

    @Test("options: --sizes must be whole numbers 1…2048 (64); --base-url https (http with --allow-http), with or without '/'")
    func options() async throws {
        let fixture = try AppBundleFixture()
        try await fixture.iOSApp()
        for bad in ["0", "2049", "a", "29,,58", "-5", "29;58", ""] {
            let result = try await fixture.appinfo(["Editor.app", "-o", "site", "--sizes", bad])
            #expect(result.status == 64, "--sizes \(bad): \(result)")
        }
        let http = try await fixture.appinfo(["Editor.app", "-o", "site", "--base-url", "http://example.org/a/"])
        #expect(http.status == 64)
        #expect(http.stderr.contains("--allow-http"))
        #expect(try await fixture.appinfo(["Editor.app", "-o", "site", "--base-url", "https://example.org/a?x=1"]).status == 64)
        #expect(try await fixture.appinfo(["Editor.app", "-o", "site", "--base-url", "ftp://example.org/"]).status == 64)
        #expect(!FileManager.default.fileExists(atPath: fixture.path("site")), "usage errors write nothing")

        // 2048 passes the option check (the missing bundle is what fails, 66, not 64).
        #expect(try await fixture.appinfo(["Nowhere.app", "-o", "site", "--sizes", "2048,1"]).status == 66)
        let allowed = try await fixture.appinfo(["Editor.app", "-o", "site", "--sizes", "40", "--base-url", "http://127.0.0.1:8080", "--allow-http"])
        #expect(allowed.status == 0, "\(allowed)")
        let words = shellWords(allowed.stdout)
        #expect(value(of: "--app-info-url", in: words) == "http://127.0.0.1:8080/appInfo.json")
        #expect(words.last == "--allow-http", "the printed line must pass set's own check")
        #expect(try fixture.image("site/img/icon-40.png").width == 40)
        let full = try await fixture.appinfo(["Editor.app", "-o", "site", "--sizes", "29", "--base-url", "https://example.org/b/appInfo.json"])
        #expect(value(of: "--app-info-url", in: shellWords(full.stdout.trimmingCharacters(in: .newlines))) == "https://example.org/b/appInfo.json")
    }

    @Test("help shows an example")
    func help() async throws {
        let help = try await xds("appinfo", "--help")
        #expect(help.status == 0)
        #expect(help.stdout.contains("xds appinfo Build/Editor.app -o site --base-url"))
    }
}
