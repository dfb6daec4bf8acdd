import ArgumentParser
import IconMask
import Testing
@testable import xds

/// `xds mask` flags parsed in process: defaults, the mapping onto ``MaskOptions``, and the
/// sentences `validate()` gives (the built-binary tests check the exit status 64).
@Suite("xds mask flags (in process)")
struct MaskParsingTests {
    @Test("defaults: 29 pt at 1x, continuous, stroke on, PNG to standard output")
    func defaults() throws {
        let mask = try XDS.Mask.parse(["in.png", "-o", "out.png"])
        #expect(mask.input == "in.png" && mask.output == "out.png")
        #expect(mask.icon.maskOptions == MaskOptions(sizePoints: 29, scale: 1, shape: .continuous, stroke: true))
        #expect(mask.icon.pixelSize == 29)
    }

    @Test("flags map onto MaskOptions", arguments: [
        (["--size", "29", "--scale", "2"], MaskOptions(sizePoints: 29, scale: 2, shape: .continuous, stroke: true)),
        (["--size", "60", "--scale", "3", "--shape", "circular"],
         MaskOptions(sizePoints: 60, scale: 3, shape: .circular, stroke: true)),
        (["--shape", "none", "--no-stroke"], MaskOptions(sizePoints: 29, scale: 1, shape: .none, stroke: false)),
        (["--size", "2048"], MaskOptions(sizePoints: 2048, scale: 1, shape: .continuous, stroke: true)),
        (["--size", "682", "--scale", "3"], MaskOptions(sizePoints: 682, scale: 3, shape: .continuous, stroke: true)),
    ])
    func mapping(flags: [String], expected: MaskOptions) throws {
        let mask = try XDS.Mask.parse(["in.png", "-o", "out.png"] + flags)
        #expect(mask.icon.maskOptions == expected)
    }

    /// `xds mask` skips ArgumentParser for plain command lines (start-up): whatever it takes
    /// must be what ArgumentParser parses, and whatever it declines must be left whole.
    @Test("the fast path takes what ArgumentParser would, or leaves the line to it", arguments: [
        (["in.png"], true), (["in.png", "-o", "out.png"], true), (["-", "--output", "out.png"], true),
        (["in.png", "--size", "29", "--scale", "2", "--shape", "circular", "--no-stroke", "-o", "o.png"], true),
        (["--shape", "none", "in.png", "--size", "+58"], true),
        (["in.png", "--size=58"], false), (["in.png", "--size", "-3"], false), (["in.png", "--scale", "4"], false),
        (["in.png", "--shape", "round"], false), (["in.png", "--size", "29", "--size", "30"], false),
        (["in.png", "-o"], false), (["in.png", "-o", ""], false), (["a.png", "b.png"], false), (["help"], false),
        (["in.png", "-h"], false), (["in.png", "--no-stroke", "--no-stroke"], false), (["--", "-in.png"], false),
        (["in.png", "--size", "683", "--scale", "3"], false), (["in.png", "-o", "-x"], false),
    ])
    func fastPath(flags: [String], taken: Bool) throws {
        let fast = MaskCommandLine(plain: flags[...])
        #expect((fast != nil) == taken)
        if let fast {
            #expect(fast == (try XDS.Mask.parse(flags)).commandLine)
        }
    }

    @Test("bad values are refused with a sentence naming the flag", arguments: [
        (["--scale", "4"], "--scale must be 1, 2 or 3, not 4."),
        (["--size", "0"], "--size must be a positive number of points, not 0."),
        (["--size", "-3"], "--size must be a positive number of points, not -3."),
        (["--scale", "-2"], "--scale must be 1, 2 or 3, not -2."),
        (["-o", ""], "-o needs a file name (or - for standard output), not an empty string."),
        (["--size", "683", "--scale", "3"], "--size 683 at --scale 3 would be 2049 px; the largest icon is 2048 px."),
        (["--size", "8192"], "--size 8192 at --scale 1 would be 8192 px; the largest icon is 2048 px."),
    ])
    func refused(flags: [String], message: String) {
        #expect {
            _ = try XDS.Mask.parse(["in.png", "-o", "out.png"] + flags)
        } throws: { error in
            XDS.Mask.message(for: error) == message
        }
    }

    @Test("mask is a subcommand of xds")
    func subcommand() throws {
        let command = try XDS.parseAsRoot(["mask", "in.png", "-o", "out.png", "--size", "58"])
        let mask = try #require(command as? XDS.Mask)
        #expect(mask.icon.pixelSize == 58)
    }
}
