import Foundation
import Testing
import XDocSourceFetch
import XDSTestSupport

@Suite("appInfo.json: the icon list and the choice of icon")
struct AppInfoTests {
    typealias Icon = AppInfo.Icon

    private func read(_ text: String) throws(FetchError) -> AppInfo { try AppInfo(json: Array(text.utf8)) }

    /// The error `text` raises, or nil when it reads.
    private func failure(_ text: String, source: String = "") -> FetchError? {
        do {
            _ = try AppInfo(json: Array(text.utf8), source: source)
            return nil
        } catch {
            return error
        }
    }

    @Test("an object with an icons list and a bare array read the same")
    func roots() throws {
        let entries = #"[{"width": 29, "height": 29, "src": "img/icon.png"}, {"width": 58, "height": 58, "src": "img/icon@2x.png"}]"#
        let expected = AppInfo(icons: [Icon(width: 29, height: 29, src: "img/icon.png"),
                                       Icon(width: 58, height: 58, src: "img/icon@2x.png")])
        #expect(try read(#"{"icons": \#(entries)}"#) == expected)
        #expect(try read(entries) == expected)
        #expect(try read(#"{"name": "Demo", "icons": \#(entries), "version": [1, {"x": null}]}"#) == expected)
        #expect(try read("[]") == AppInfo(icons: []))
        #expect(try read(#"{"icons": []}"#).icons.isEmpty)
    }

    @Test("malformed entries are skipped and counted; extra members are ignored")
    func skipped() throws {
        let info = try read("""
        {"icons": [
          {"width": 29, "height": 29, "src": "a.png", "scale": 2, "comment": "extra members are fine"},
          {"width": 29.0, "height": 2.9e1, "src": "whole-reals.png"},
          {"width": 29, "height": 29},
          {"width": 29, "src": "no-height.png"},
          {"height": 29, "src": "no-width.png"},
          {"width": "29", "height": 29, "src": "string-width.png"},
          {"width": 29, "height": 29.5, "src": "fraction.png"},
          {"width": 0, "height": 29, "src": "zero.png"},
          {"width": -29, "height": 29, "src": "negative.png"},
          {"width": 29, "height": 1e300, "src": "huge.png"},
          {"width": 29, "height": 2147483648, "src": "past-int32.png"},
          {"width": 29, "height": 99999999999999999999, "src": "past-int64.png"},
          {"width": 29, "height": 29, "src": ""},
          {"width": 29, "height": 29, "src": 5},
          {"width": 29, "height": 29, "src": null},
          {"width": true, "height": 29, "src": "bool.png"},
          {"width": null, "height": 29, "src": "null.png"},
          [29, 29, "array.png"],
          "img/string-entry.png",
          null,
          7,
          {"width": 2147483647, "height": 1, "src": "int32-max.png"},
          {"width": 1, "height": 1, "src": "one.png"}
        ]}
        """)
        #expect(info.icons == [Icon(width: 29, height: 29, src: "a.png"), Icon(width: 29, height: 29, src: "whole-reals.png"),
                              Icon(width: 2147483647, height: 1, src: "int32-max.png"), Icon(width: 1, height: 1, src: "one.png")])
        #expect(info.skippedEntries == 19)
        #expect(try read("[1, 2, {}]") == AppInfo(icons: [], skippedEntries: 3))
    }

    @Test("a root that is not an icon list is malformed, with the source named")
    func badRoots() throws {
        for (text, words) in [
            (#"{"icon": []}"#, #"no "icons" list"#),
            (#"{"icons": {"width": 1}}"#, #""icons" of appInfo.json is not an array"#),
            (#"{"icons": null}"#, "not an array"),
            (#""icons""#, "neither an object"),
            ("42", "neither an object"),
            ("null", "neither an object"),
        ] {
            let error = try #require(failure(text, source: "https://example.com/appInfo.json"), "\(text)")
            #expect(error.kind == .malformedAppInfo)
            #expect(error.url == "https://example.com/appInfo.json")
            #expect(error.message.contains(words), "\(error.message)")
            #expect(!error.message.contains("\n"))
            #expect(error.description == "https://example.com/appInfo.json: " + error.message)
        }
    }

    @Test("invalid JSON is malformed, the message naming line and column")
    func badJSON() throws {
        let error = try #require(failure("{\n  \"icons\": [\n    {\"width\": 29,}\n  ]\n}"))
        #expect(error.kind == .malformedAppInfo)
        #expect(error.url == "")
        #expect(error.message == #"appInfo.json is not valid JSON: line 3, column 18: expected a string key, found '}'"#)
        let duplicate = try #require(failure(#"{"icons": [], "icons": [{"width": 1, "height": 1, "src": "x"}]}"#))
        #expect(duplicate.message == #"appInfo.json is not valid JSON: line 1, column 15: duplicate key "icons" in an object"#)
        // A duplicate inside an entry refuses the file too: two readers must not see two lists.
        #expect(failure(#"[{"width": 1, "height": 1, "src": "a", "src": "b"}]"#)?.kind == .malformedAppInfo)
    }

    @Test("more than 256 KiB is refused before it is read; exactly 256 KiB is read")
    func sizeLimit() throws {
        #expect(AppInfo.maximumSize == 262_144)
        let entry = #"{"width": 1, "height": 1, "src": "x"}"#
        var text = "[" + entry
        while text.utf8.count < AppInfo.maximumSize - 1 { text += " " }
        text += "]"
        #expect(text.utf8.count == AppInfo.maximumSize)
        #expect(try read(text).icons.count == 1)
        let over = try #require(failure(text + " "))
        #expect(over.kind == .malformedAppInfo)
        #expect(over.message == "appInfo.json is 262145 bytes, more than the limit of 262144")
    }

    @Test("nesting deeper than 64 levels is refused, 64 is read")
    func depthLimit() throws {
        let deep64 = String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
        #expect(try read("[\(deep64)]").skippedEntries == 1)
        let error = try #require(failure("[" + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "]"))
        #expect(error.message == "appInfo.json is not valid JSON: line 1, column 65: nested deeper than 64 levels")
        // Far deeper input fails the same way and quickly (no recursion past the limit).
        #expect(failure(String(repeating: "[", count: 200_000))?.kind == .malformedAppInfo)
        #expect(failure(String(repeating: #"{"a":"#, count: 50_000))?.kind == .malformedAppInfo)
    }

    @Test("bad UTF-8 is malformed")
    func badUTF8() {
        for bytes: [UInt8] in [[0x5B, 0x22, 0xFF, 0x22, 0x5D], [0x5B, 0x22, 0xC3, 0x22, 0x5D], [0x5B, 0xC3, 0xA9, 0x5D]] {
            #expect(throws: FetchError.self) { try AppInfo(json: bytes) }
        }
    }

    // MARK: choice

    private let square = AppInfo(icons: [Icon(width: 29, height: 29, src: "29"), Icon(width: 58, height: 58, src: "58"),
                                         Icon(width: 87, height: 87, src: "87"), Icon(width: 1024, height: 1024, src: "1024")])

    @Test("an exact N×N entry wins")
    func exact() {
        for n in [29, 58, 87, 1024] {
            #expect(square.icon(forPixelSize: n)?.src == String(n))
        }
        // Exact beats a smaller-area larger entry and an earlier non-square one.
        let info = AppInfo(icons: [Icon(width: 64, height: 40, src: "wide"), Icon(width: 40, height: 40, src: "exact"),
                                   Icon(width: 40, height: 40, src: "second exact")])
        #expect(info.icon(forPixelSize: 40)?.src == "exact")
    }

    @Test("else the smallest entry at least N in both directions")
    func smallestLarger() {
        #expect(square.icon(forPixelSize: 30)?.src == "58")
        #expect(square.icon(forPixelSize: 59)?.src == "87")
        #expect(square.icon(forPixelSize: 88)?.src == "1024")
        #expect(square.icon(forPixelSize: 1)?.src == "29")
        // Order of the list does not matter for "smallest".
        #expect(AppInfo(icons: square.icons.reversed()).icon(forPixelSize: 30)?.src == "58")
    }

    @Test("non-square entries: both sides must reach N; smallest by area; ties go to the first")
    func nonSquare() {
        let info = AppInfo(icons: [
            Icon(width: 200, height: 50, src: "wide"),    // height too small for 60
            Icon(width: 50, height: 200, src: "tall"),    // width too small for 60
            Icon(width: 100, height: 64, src: "100x64"),  // area 6400
            Icon(width: 64, height: 100, src: "64x100"),  // area 6400, a tie: the first wins
            Icon(width: 90, height: 90, src: "90"),       // area 8100
        ])
        #expect(info.icon(forPixelSize: 60)?.src == "100x64")
        #expect(info.icon(forPixelSize: 65)?.src == "90")
        // The original code compared the height to the found width: a 70×300 entry after a
        // 100×100 one would have won for 60 although it is larger.
        let bug = AppInfo(icons: [Icon(width: 100, height: 100, src: "100"), Icon(width: 70, height: 300, src: "70x300")])
        #expect(bug.icon(forPixelSize: 60)?.src == "100")
        let bug2 = AppInfo(icons: [Icon(width: 300, height: 70, src: "300x70"), Icon(width: 100, height: 100, src: "100")])
        #expect(bug2.icon(forPixelSize: 60)?.src == "100")
    }

    @Test("else the largest entry by area, ties to the first")
    func largest() {
        #expect(square.icon(forPixelSize: 2048)?.src == "1024")
        let info = AppInfo(icons: [Icon(width: 10, height: 40, src: "10x40"), Icon(width: 20, height: 20, src: "20"),
                                   Icon(width: 40, height: 10, src: "40x10"), Icon(width: 15, height: 15, src: "15")])
        // None is 41×41 or more; 10×40, 20×20 and 40×10 all have area 400: the first.
        #expect(info.icon(forPixelSize: 41)?.src == "10x40")
        // 25: only... none has both sides ≥ 25, so the largest again.
        #expect(info.icon(forPixelSize: 25)?.src == "10x40")
        // 20: the exact 20×20.
        #expect(info.icon(forPixelSize: 20)?.src == "20")
        // 16: 10×40 and 40×10 have a side under 16; 20×20 is the smallest that covers.
        #expect(info.icon(forPixelSize: 16)?.src == "20")
    }

    @Test("an empty list chooses nothing")
    func empty() {
        #expect(AppInfo(icons: []).icon(forPixelSize: 29) == nil)
    }

    @Test("the choice agrees with a brute-force statement of the rule on random lists")
    func randomChoice() {
        var generator = SplitMix64(seed: 0xA11CE)
        for _ in 0..<2000 {
            let count = Int.random(in: 0...6, using: &generator)
            let icons = (0..<count).map { i in
                Icon(width: Int.random(in: 1...8, using: &generator) * 8, height: Int.random(in: 1...8, using: &generator) * 8,
                     src: "\(i)")
            }
            let n = Int.random(in: 1...72, using: &generator)
            #expect(AppInfo(icons: icons).icon(forPixelSize: n) == reference(icons, n))
        }
    }

    /// The rule as a sort: exact first; then covering entries by area; then the rest by
    /// area, largest first; the list order breaks ties.
    private func reference(_ icons: [Icon], _ n: Int) -> Icon? {
        let ranked = icons.enumerated().map { (index, icon) -> (Int, Int, Int, Icon) in
            let area = icon.width * icon.height
            if icon.width == n && icon.height == n { return (0, 0, index, icon) }
            if icon.width >= n && icon.height >= n { return (1, area, index, icon) }
            return (2, -area, index, icon)
        }
        return ranked.min { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }?.3
    }

    @Test("the repository's own appInfo.json reads, every src resolves to a file in img/")
    func repositoryAppInfo() throws {
        let path = Repository.url("appInfo.json").path
        let info = try AppInfo(json: Repository.bytes("appInfo.json"), source: path)
        #expect(info.skippedEntries == 0)
        #expect(!info.icons.isEmpty)
        let folder = Repository.root.path
        for icon in info.icons {
            guard case .path(let file)? = URLReference.resolveLocal(icon.src, inFolder: folder) else {
                Issue.record("\(icon.src) does not resolve to a local path")
                continue
            }
            #expect(file.hasPrefix(folder + "/img/"))
            #expect(FileManager.default.fileExists(atPath: file), "\(file)")
        }
        let chosen = try #require(info.icon(forPixelSize: 58))
        #expect(chosen.width >= 58 && chosen.height >= 58)
    }
}
