import Foundation
import IconMask
import Testing

/// `xds mask` run as a process: sizes, output modes, exit statuses, and that failures never
/// touch the output file (SPEC §4, §5).
@Suite("xds mask (built binary)")
struct MaskCommandTests {
    /// An opaque 64×48 input (non-square: exercises fill and centre-crop) with a colour ramp.
    static func opaqueInput(in folder: String) throws -> String {
        let path = folder + "/in.png"
        try MaskHarness.writePNG(path, width: 64, height: 48) { x, y in
            (UInt8(x * 4), UInt8(y * 5), 200, 255)
        }
        return path
    }

    /// Decodes `png` with IconMask, checking first that it is a PNG of the expected kind.
    static func decodeRGBA(_ png: [UInt8], side: Int) throws -> RGBAImage {
        let parsed = MaskHarness.header(png)  // not inline: a failure would print every byte
        let header = try #require(parsed, "not a PNG (\(png.count) bytes)")
        #expect(header.width == side && header.height == side)
        #expect(header.depth == 8 && header.colourType == 6, "8-bit RGBA expected")
        return try PNGDecoder.decode(png)
    }

    /// This process's umask, read without changing it (umask(2) would, for every thread).
    static func umask() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Umask:") } ?? "Umask: 0022"
        return Int(line.split(separator: "\t").last.map(String.init) ?? "", radix: 8) ?? 0o022
    }

    static func alpha(_ image: RGBAImage, _ x: Int, _ y: Int) -> UInt8 {
        image.pixels[(y * image.width + x) * 4 + 3]
    }

    @Test("writes an N×N 8-bit RGBA PNG that pngcheck accepts", arguments: [
        (["--size", "29"], 29),
        (["--size", "29", "--scale", "2"], 58),
        (["--size", "58"], 58),
        (["--size", "60", "--scale", "3"], 180),
        ([], 29),
    ])
    func writesSquarePNG(flags: [String], side: Int) async throws {
        let folder = try MaskHarness.makeFolder()
        defer { MaskHarness.cleanUp(folder) }
        let input = try Self.opaqueInput(in: folder)
        let out = folder + "/out.png"
        let r = try await xds(["mask", input] + flags + ["-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        let png = try #require(MaskHarness.read(out))
        let image = try Self.decodeRGBA(png, side: side)
        // Default shape is continuous: corners are cut away, the centre is the opaque input.
        #expect(Self.alpha(image, 0, 0) == 0)
        #expect(Self.alpha(image, side / 2, side / 2) == 255)
        let check = try await run("/usr/bin/env", ["pngcheck", "-q", out])
        #expect(check.status == 0, "pngcheck: \(check.stdout)")
    }

    @Test("29 pt at 2x and 58 pt at 1x are both 58 px, with a 2 px and a 1 px stroke")
    func scaleVersusSize() async throws {
        let folder = try MaskHarness.makeFolder()
        defer { MaskHarness.cleanUp(folder) }
        let input = try Self.opaqueInput(in: folder)
        let a = try await xds(["mask", input, "--size", "29", "--scale", "2", "-o", folder + "/a.png"])
        let b = try await xds(["mask", input, "--size", "58", "-o", folder + "/b.png"])
        #expect(a.status == 0 && b.status == 0)
        let scaled = try Self.decodeRGBA(try #require(MaskHarness.read(folder + "/a.png")), side: 58)
        let plain = try Self.decodeRGBA(try #require(MaskHarness.read(folder + "/b.png")), side: 58)
        // Row 29 (a straight edge), blue (200 in the input): the stroke's inner half covers the
        // whole first column at 2x (×0.9) but only half of it at 1x (×0.95); column 2 is clear.
        let edge = (29 * 58 + 0) * 4 + 2, inner = (29 * 58 + 2) * 4 + 2
        #expect(scaled.pixels[edge] + 5 < plain.pixels[edge], "the 2 px stroke darkens the edge more")
        #expect(scaled.pixels[inner] == plain.pixels[inner] && plain.pixels[inner] == 200)
    }

    @Test("--shape none --no-stroke keeps an opaque input's corners opaque and its edge colour")
    func shapeAndStrokeFlags() async throws {
        let folder = try MaskHarness.makeFolder()
        defer { MaskHarness.cleanUp(folder) }
        let input = folder + "/flat.png"
        try MaskHarness.writePNG(input, width: 40, height: 40) { _, _ in (100, 150, 200, 255) }
        let runs: [(String, [String])] = [
            ("none", ["--shape", "none", "--no-stroke"]), ("stroked", ["--shape", "none"]),
            ("circular", ["--shape", "circular"]), ("continuous", []),
        ]
        var images: [String: RGBAImage] = [:]
        for (name, flags) in runs {
            let out = "\(folder)/\(name).png"
            let r = try await xds(["mask", input, "--size", "40"] + flags + ["-o", out])
            #expect(r.status == 0, "\(r.stderr)")
            images[name] = try Self.decodeRGBA(try #require(MaskHarness.read(out)), side: 40)
        }
        let none = try #require(images["none"]), stroked = try #require(images["stroked"])
        #expect(none.pixels[0..<4] == [100, 150, 200, 255])
        #expect(stroked.pixels[0] < 100 && stroked.pixels[3] == 255, "stroke darkens the square's edge")
        let circular = try #require(images["circular"]), continuous = try #require(images["continuous"])
        #expect(Self.alpha(circular, 0, 0) == 0 && Self.alpha(continuous, 0, 0) == 0)
        let differ = circular.pixels != continuous.pixels
        #expect(differ, "the two corner shapes differ")
    }

    @Test("without -o (or with -o -) the PNG goes to standard output")
    func standardOutput() async throws {
        let folder = try MaskHarness.makeFolder()
        defer { MaskHarness.cleanUp(folder) }
        let input = try Self.opaqueInput(in: folder)
        let piped = try await xds(["mask", input, "--size", "29", "--scale", "2"])
        #expect(piped.status == 0, "\(piped.stderr)")
        let dash = try await xds(["mask", input, "--size", "29", "--scale", "2", "-o", "-"])
        #expect(dash.status == 0)
        _ = try await xds(["mask", input, "--size", "29", "--scale", "2", "-o", folder + "/f.png"])
        let file = try #require(MaskHarness.read(folder + "/f.png"))
        _ = try Self.decodeRGBA(piped.output, side: 58)
        let same = piped.output == file && dash.output == file
        #expect(same, "stdout and -o give the same bytes")
    }

    @Test("reads a PNG from a pipe (/dev/stdin), larger than the first 64 KiB read")
    func inputFromPipe() async throws {
        let folder = try MaskHarness.makeFolder()
        defer { MaskHarness.cleanUp(folder) }
        // Noise does not compress: a 200×200 stored PNG is ~160 KB, so the buffer must grow.
        let input = folder + "/noise.png"
        var seed: UInt32 = 12345
        try MaskHarness.writePNG(input, width: 200, height: 200) { _, _ in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return (UInt8(truncatingIfNeeded: seed >> 24), UInt8(truncatingIfNeeded: seed >> 16), 90, 255)
        }
        let direct = try await xds(["mask", input, "--size", "40", "-o", folder + "/a.png"])
        let piped = try await run("/bin/sh", ["-c", "cat '\(input)' | '\(xdsPath)' mask /dev/stdin --size 40 -o '\(folder)/b.png'"])
        #expect(direct.status == 0 && piped.status == 0, "\(piped.stdout)")
        let same = MaskHarness.read(folder + "/a.png") == MaskHarness.read(folder + "/b.png")
        #expect(same, "the piped input gives the same PNG")
    }

    @Test("refuses to write PNG data to a terminal (exit 64, suggests -o)")
    func refusesTerminal() async throws {
        let folder = try MaskHarness.makeFolder()
        defer { MaskHarness.cleanUp(folder) }
        let input = try Self.opaqueInput(in: folder)
        // Standard output on a pseudo-terminal; the message goes to standard error.
        let r = try await run(xdsPath, ["mask", input], terminal: true)
        #expect(r.status == 64)
        let text = r.stderr
        #expect(text.contains("terminal") && text.contains("-o"))
        #expect(!r.stdout.contains("IHDR"), "no PNG bytes reached the terminal")
    }

    @Test("bad flags exit 64 with a sentence naming the flag", arguments: [
        (["--scale", "4"], "--scale"), (["--scale", "0"], "--scale"), (["--size", "0"], "--size"),
        (["--size", "-3"], "--size"), (["--size", "9000"], "--size"), (["--size", "3000", "--scale", "3"], "--size"),
        (["--size", "abc"], "--size"), (["--shape", "squircle"], "--shape"), (["--bogus"], "--bogus"),
    ])
    func badFlags(flags: [String], named: String) async throws {
        let folder = try MaskHarness.makeFolder()
        defer { MaskHarness.cleanUp(folder) }
        let input = try Self.opaqueInput(in: folder)
        let r = try await xds(["mask", input] + flags + ["-o", folder + "/out.png"])
        #expect(r.status == 64)
        #expect(r.stderr.contains(named), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"))
    }

    @Test("a missing input exits 66; a folder as input too")
    func missingInput() async throws {
        let folder = try MaskHarness.makeFolder()
        defer { MaskHarness.cleanUp(folder) }
        let missing = try await xds(["mask", folder + "/nope.png", "-o", folder + "/out.png"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "xds: \(folder)/nope.png: no such file\n")
        let dir = try await xds(["mask", folder, "-o", folder + "/out.png"])
        #expect(dir.status == 66)
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"))
    }

    @Test("a corrupt PNG exits 65, names the file, writes nothing and leaves an old -o untouched",
          arguments: ["truncated", "bad-crc", "not-png", "empty"])
    func corruptInput(kind: String) async throws {
        let folder = try MaskHarness.makeFolder()
        defer { MaskHarness.cleanUp(folder) }
        let good = try #require(MaskHarness.read(try Self.opaqueInput(in: folder)))
        var bad = good
        switch kind {
        case "truncated": bad = Array(good.prefix(good.count / 2))
        case "bad-crc": bad[29] ^= 0xFF  // last CRC byte of IHDR
        case "not-png": bad = Array("hello, I am not a PNG\n".utf8)
        default: bad = []
        }
        let input = folder + "/bad.png"
        try Data(bad).write(to: URL(fileURLWithPath: input))
        let fresh = try await xds(["mask", input, "-o", folder + "/new.png"])
        #expect(fresh.status == 65)
        #expect(fresh.stderr.hasPrefix("xds: \(input): ") && fresh.stderr.split(separator: "\n").count == 1,
                "\(fresh.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/new.png"))
        let old = folder + "/old.png"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: old))
        let again = try await xds(["mask", input, "-o", old])
        #expect(again.status == 65)
        #expect(MaskHarness.read(old) == Array("keep me".utf8))
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(left == ["bad.png", "in.png", "old.png"], "no temporary files left behind")
    }

    @Test("an unwritable output exits 74 and leaves no temporary file")
    func unwritableOutput() async throws {
        let folder = try MaskHarness.makeFolder()
        defer { MaskHarness.cleanUp(folder) }
        let input = try Self.opaqueInput(in: folder)
        for out in [folder + "/no-such-folder/out.png", input + "/out.png", folder] {
            let r = try await xds(["mask", input, "-o", out])
            #expect(r.status == 74, "\(out): \(r.stderr)")
            #expect(r.stderr.hasPrefix("xds: \(out): "), "\(r.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["in.png"])
    }

    @Test("an existing -o is replaced whole and keeps its permissions; a new one gets 0666 less umask")
    func replacesOutput() async throws {
        let folder = try MaskHarness.makeFolder()
        defer { MaskHarness.cleanUp(folder) }
        let input = try Self.opaqueInput(in: folder)
        let out = folder + "/out.png"
        try Data(repeating: 7, count: 100_000).write(to: URL(fileURLWithPath: out))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: out)
        let r = try await xds(["mask", input, "-o", out])
        #expect(r.status == 0)
        _ = try Self.decodeRGBA(try #require(MaskHarness.read(out)), side: 29)
        #expect(try Self.mode(out) == 0o640, "the old file's mode, not mkstemp's 0600")
        let fresh = folder + "/fresh.png"
        #expect(try await xds(["mask", input, "-o", fresh]).status == 0)
        #expect(try Self.mode(fresh) == 0o666 & ~Self.umask())
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["fresh.png", "in.png", "out.png"])
    }

    @Test("-o through a symbolic link replaces the link's target and keeps the link")
    func outputThroughLink() async throws {
        let folder = try MaskHarness.makeFolder()
        defer { MaskHarness.cleanUp(folder) }
        let input = try Self.opaqueInput(in: folder)
        try FileManager.default.createDirectory(atPath: folder + "/real", withIntermediateDirectories: false)
        try Data("old".utf8).write(to: URL(fileURLWithPath: folder + "/real/icon.png"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.png", withDestinationPath: "real/icon.png")
        let r = try await xds(["mask", input, "-o", folder + "/link.png"])
        #expect(r.status == 0, "\(r.stderr)")
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/link.png")
        #expect(link == "real/icon.png")
        _ = try Self.decodeRGBA(try #require(MaskHarness.read(folder + "/real/icon.png")), side: 29)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/real") == ["icon.png"])
    }

    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }
}
