import ArgumentParser
import IconMask
import Testing
@testable import xds

/// `xds icon` skips ArgumentParser for plain command lines (start-up, as `mask` does): what
/// its fast path takes must be exactly what ArgumentParser parses, and whatever it declines
/// must be left whole to ArgumentParser (which words any problem).
@Suite("xds icon flags (in process)")
struct IconParsingTests {
    @Test("the fast path takes what ArgumentParser would, or leaves the line to it", arguments: [
        ([], true), (["doc.txt"], true), (["doc.txt", "--size", "58", "-o", "icon.png"], true),
        (["--app-info", "https://example.com/appInfo.json", "--offline", "--size", "29", "--scale", "2"], true),
        (["--app-info", "appInfo.json", "--cache-dir", "cache", "--allow-http", "--shape", "circular", "--no-stroke"], true),
        (["--no-cache", "doc.txt", "--output", "out.png", "--size", "+58"], true),
        (["doc.txt", "--size=58"], false), (["doc.txt", "--size", "-3"], false), (["--scale", "4"], false),
        (["--offline", "--no-cache"], false), (["--cache-dir", ""], false), (["--app-info", ""], false),
        (["--app-info"], false), (["--app-info", "-x"], false), (["a.txt", "b.txt"], false), (["help"], false),
        (["-h"], false), (["--offline", "--offline"], false), (["--allow-http", "--allow-http"], false),
        (["--no-cache", "--no-cache"], false), (["--", "-doc.txt"], false), (["-"], false), ([""], false),
        (["--size", "683", "--scale", "3"], false), (["-o", ""], false), (["--shape", "round"], false),
        (["--app-info", "a.json", "--app-info", "b.json"], false), (["--cache-dir", "a", "--cache-dir", "b"], false),
        (["--bogus"], false),
    ])
    func fastPath(flags: [String], taken: Bool) throws {
        let fast = IconCommandLine(plain: flags[...])
        #expect((fast != nil) == taken)
        if let fast {
            #expect(fast == (try XDS.Icon.parse(flags)).commandLine)
        }
    }

    @Test("the flags of mask mean the same in icon")
    func sharedFlags() throws {
        let fast = try #require(IconCommandLine(
            plain: ["--size", "60", "--scale", "3", "--shape", "none", "--no-stroke", "-o", "i.png"]))
        #expect(fast.options == MaskOptions(sizePoints: 60, scale: 3, shape: .none, stroke: false))
        #expect(fast.output == "i.png" && fast.file == nil && fast.appInfo == nil)
    }
}
