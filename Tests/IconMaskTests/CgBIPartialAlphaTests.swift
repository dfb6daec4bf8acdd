import Foundation
import Testing
import XDSTestSupport
import IconMask

/// CgBI files made by scripts/make_cgbi_png.py (premultiplied BGRA, raw deflate, every filter
/// type) from PNGs with partial alpha decode back to the original.
@Suite struct CgBIPartialAlphaTests {
    /// An image whose alpha takes every value 0…255 and whose colours vary independently.
    static func original(width: Int, height: Int) -> RGBAImage {
        var random = SplitMix64(seed: 42)
        var px = (0..<width * height * 4).map { _ in UInt8.random(in: 0...255, using: &random) }
        for i in 0..<min(256, width * height) { px[i * 4 + 3] = UInt8(i) }
        return RGBAImage(width: width, height: height, pixels: px)
    }

    @Test func partialAlphaSurvivesTheRoundTrip() async throws {
        let folder = try ScratchFolder.make(prefix: "cgbi-tests")
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = Self.original(width: 37, height: 29)
        let input = folder.appendingPathComponent("in.png"), output = folder.appendingPathComponent("out.png")
        try Data(try PNGEncoder.encode(image)).write(to: input)
        let run = try await ProcessRunner.runOnPath(["python3", Repository.url("scripts/make_cgbi_png.py").path,
                                               input.path, output.path])
        #expect(run.status == 0, "\(run)")
        let cgbi = Array(try Data(contentsOf: output))
        // The CgBI chunk comes first, before IHDR, and standard zlib framing is absent.
        #expect(Array(cgbi[12..<16]) == Array("CgBI".utf8))
        #expect(try PNGDecoder.header(cgbi).isCgBI)
        let decoded = try PNGDecoder.decode(cgbi)
        #expect(decoded.width == image.width && decoded.height == image.height)

        var worst = 0
        for i in stride(from: 0, to: image.pixels.count, by: 4) {
            let a = Int(image.pixels[i + 3])
            #expect(Int(decoded.pixels[i + 3]) == a)
            if a == 0 {
                // Premultiplied colour under alpha 0 is 0: nothing to recover.
                #expect(Array(decoded.pixels[i..<i + 3]) == [0, 0, 0])
                continue
            }
            for k in 0..<3 {
                let c = Int(image.pixels[i + k]), got = Int(decoded.pixels[i + k])
                // Exact: the script premultiplies with rounding, the decoder straightens as stb does.
                let premultiplied = (c * a + 127) / 255
                #expect(got == min(255, (premultiplied * 255 + a / 2) / a))
                // Premultiplying to 8 bits loses up to half a step of c·a/255, which straightening
                // magnifies by 255/a: the error is at most floor(127.5/a + 0.5), ±1 for a ≥ 128
                // (the ±1 of the brief cannot hold where alpha is small: at a = 1, c' is 0 or 1).
                let allowed = Int(127.5 / Double(a) + 0.5)
                #expect(abs(got - c) <= allowed, "pixel \(i / 4) channel \(k): \(c) → \(got) at alpha \(a)")
                if a >= 128 { worst = max(worst, abs(got - c)) }
            }
        }
        #expect(worst <= 1)
    }

    @Test func opaqueRGBInputComesBackExactly() async throws {
        let folder = try ScratchFolder.make(prefix: "cgbi-tests")
        defer { try? FileManager.default.removeItem(at: folder) }
        var image = Self.original(width: 20, height: 11)
        for i in stride(from: 3, to: image.pixels.count, by: 4) { image.pixels[i] = 255 }
        let input = folder.appendingPathComponent("in.png"), output = folder.appendingPathComponent("out.png")
        try Data(try PNGEncoder.encode(image)).write(to: input)
        let run = try await ProcessRunner.runOnPath(["python3", Repository.url("scripts/make_cgbi_png.py").path,
                                               input.path, output.path])
        #expect(run.status == 0, "\(run)")
        #expect(try PNGDecoder.decode(Array(try Data(contentsOf: output))) == image)
    }
}
