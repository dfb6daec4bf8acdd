import Foundation
import Testing
import XDSTestSupport
@testable import IconMask

/// IconRenditions: the directly filtered sizes are IconMasker's unmasked pixels; the sizes made
/// from shared intermediates stay within Pillow's error against the float64 reference.
@Suite struct IconRenditionsTests {
    /// On the 160×128 synthetic input these sizes are all filtered directly (no intermediate
    /// serves them: S = 128), so they equal the mask byte for byte.
    @Test(arguments: [[29, 58, 87, 1024], [160, 161, 300], [40]])
    func directSizesAreTheMaskWithoutAShape(_ sizes: [Int]) throws {
        let image = TestSupport.syntheticInput()  // 160×128: centre-cropped, partly transparent
        #expect(sizes.allSatisfy { IconRenditions.Plan(image, sizes).source(for: $0) == nil })
        let renditions = try IconRenditions.resized(image, toPixelSizes: sizes)
        #expect(renditions.count == sizes.count)
        for (n, rendition) in zip(sizes, renditions) {
            let masked = try IconMasker.mask(image, options: MaskOptions(sizePoints: n, scale: 1, shape: .none, stroke: false))
            #expect(rendition.width == n && rendition.height == n)
            #expect(rendition == masked, "size \(n)")
        }
    }

    @Test func thePlanSharesIntermediatesBySize() {
        let image = RGBAImage(width: 1024, height: 1024, pixels: [UInt8](repeating: 0, count: 1024 * 1024 * 4))
        let defaults = IconRenditions.Plan(image, [29, 58, 87, 1024])
        #expect(defaults.coarseSizes == [29, 58, 87] && defaults.fine == nil && defaults.coarse != nil)
        #expect(defaults.source(for: 1024) == nil)
        let large = IconRenditions.Plan(image, [29, 120, 180, 183])
        #expect(large.fineSizes == [120, 180] && large.fine != nil && large.coarseSizes == [29])
        #expect(large.source(for: 183) == nil)  // 512 / 183 < 2.8: filtered directly
        let lone = IconRenditions.Plan(image, [180])
        #expect(lone.fine == nil && lone.source(for: 180) == nil)  // one such size: no S/2 image
    }

    /// `.halved` (the 2×2 average made in integers while rows are read) gives exactly what the
    /// passes give on an explicitly averaged, premultiplied half-size image; and the mask path
    /// takes it for reductions of 16× or more only.
    @Test func halvedRowsAreThe2x2Average() {
        let image = ResamplerRingTests.noise(66, 36)
        let w = 33, h = 18
        var level = [Float](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let i = ((2 * y + dy) * 66 + 2 * x + dx) * 4
                    let a = Float(image.pixels[i + 3])
                    for c in 0..<3 { level[(y * w + x) * 4 + c] += Float(image.pixels[i + c]) * a / 4 }
                    level[(y * w + x) * 4 + 3] += 255 * a / 4
                }
            }
        }
        func run(_ source: Resampler.RowSource) -> [Float] {
            var out: [Float] = []
            Resampler.resample(source, width: 5, height: 4, filter: .lanczos3, bandRows: 3, scaled: true) { _, band in
                out += Array(band)
            }
            return out
        }
        #expect(run(.halved(image)) == run(.level(width: w, height: h, pixels: level)))
        #expect(Resampler.RowSource.canHalve(image) && !Resampler.RowSource.canHalve(ResamplerRingTests.noise(5, 4)))
    }

    @Test func theImagesOwnSizeIsReturnedUnchanged() throws {
        var image = TestSupport.syntheticInput()
        image = IconMasker.mask(image, options: MaskOptions(sizePoints: 120, shape: .none, stroke: false), bandRows: 128)
        // Hidden colour under transparent pixels, which masking would clear.
        image.pixels[0..<4] = [9, 8, 7, 0]
        let renditions = try IconRenditions.resized(image, toPixelSizes: [120, 60, 120])
        #expect(renditions[0] == image && renditions[2] == image)
        #expect(renditions[1] == IconMasker.mask(image, options: MaskOptions(sizePoints: 60, shape: .none, stroke: false), bandRows: 128))
        // Same-size masking changes at least the hidden colour.
        #expect(IconMasker.mask(image, options: MaskOptions(sizePoints: 120, shape: .none, stroke: false), bandRows: 128) != image)
    }

    @Test(arguments: [0, -3, MaskOptions.maximumPixelSize + 1])
    func unusableSizesThrow(_ n: Int) {
        #expect(throws: MaskOptionsError.self) {
            _ = try IconRenditions.resized(TestSupport.syntheticInput(), toPixelSizes: [29, n])
        }
    }

    @Test func anEmptyImageGivesTransparentSizes() throws {
        let renditions = try IconRenditions.resized(RGBAImage(width: 0, height: 0, pixels: []), toPixelSizes: [3])
        #expect(renditions == [RGBAImage(width: 3, height: 3, pixels: [UInt8](repeating: 0, count: 36))])
    }

    /// A generated 1024 px input with what resampling finds hardest: a fine checkerboard, hard
    /// edges at full contrast, a transparent disc with garish hidden colour and a soft gradient.
    static func hardInput() -> RGBAImage {
        let n = 1024
        var px = [UInt8](repeating: 0, count: n * n * 4)
        for y in 0..<n {
            for x in 0..<n {
                let i = (y * n + x) * 4
                let dx = x - 700, dy = y - 300
                var p: (Int, Int, Int, Int)
                if dx * dx + dy * dy < 150 * 150 {
                    p = (0, 255, 0, 0)
                } else if x < 256 && y < 256 {
                    p = ((x / 3 + y / 3) % 2 == 0) ? (255, 255, 255, 255) : (0, 0, 0, 255)
                } else if (x / 64 + y / 64) % 2 == 0 {
                    p = (x / 4, 255 - y / 4, (x + y) / 8, 255)
                } else {
                    p = (220, 40, 30, y / 4)
                }
                if y > 900 { p.3 = (x * 7 + y) % 256 }  // noisy alpha
                px[i] = UInt8(p.0); px[i + 1] = UInt8(p.1); px[i + 2] = UInt8(p.2); px[i + 3] = UInt8(p.3)
            }
        }
        return RGBAImage(width: n, height: n, pixels: px)
    }

    /// Every size, from shared intermediates or not, is valid PNG (pngcheck) and at least as close
    /// to `reference_mask.py --shape none --no-stroke` as Pillow's LANCZOS (MAE of premultiplied
    /// 0–255 values, scored by scripts/renditions_quality.py's rules), and within 0.02 of what
    /// a perfect 8-bit rounding of the reference scores.
    @Test("each size within Pillow's error against the float64 reference", arguments: ["img/icon-1024.png", "hard"])
    func qualityBound(_ input: String) async throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path: String
        if input == "hard" {
            path = dir.appendingPathComponent("hard.png").path
            try Data(PNGEncoder.encode(Self.hardInput())).write(to: URL(fileURLWithPath: path))
        } else {
            path = Repository.url(input).path
        }
        let sizes = [29, 58, 87, 120, 180]
        let run = try await ProcessRunner.runOnPath(["python3", Repository.url("scripts/renditions_quality.py").path, path,
                                       "--sizes", sizes.map(String.init).joined(separator: ","),
                                       "--f32-dir", dir.path, "--json"])
        try #require(run.status == 0, "renditions_quality.py: \(run.stderr)")
        var bound: [Int: (pillow: Double, floor: Double)] = [:]
        for line in run.stdout.split(separator: "\n") {
            let row = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let n = try #require(row["size"] as? Int)
            let pillow = try #require((row["pillow"] as? [String: Any])?["mae"] as? Double)
            let floor = try #require((row["floor"] as? [String: Any])?["mae"] as? Double)
            bound[n] = (pillow, floor)
        }
        let image = try PNGDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        let plan = IconRenditions.Plan(image, sizes)
        #expect(plan.coarseSizes == [29, 58, 87] && plan.fineSizes == [120, 180])
        let renditions = try IconRenditions.resized(image, toPixelSizes: sizes)
        for (n, rendition) in zip(sizes, renditions) {
            let expected = try Data(contentsOf: dir.appendingPathComponent("ref-\(n).f32"))
                .withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            try #require(expected.count == n * n * 4)
            var sum = 0.0
            for i in 0..<(n * n) {
                let p = TestSupport.premultiplied(rendition, i)
                for ch in 0..<4 { sum += abs(p[ch] - Double(expected[i * 4 + ch]) * 255) }
            }
            let mae = sum / Double(n * n * 4)
            let b = try #require(bound[n])
            #expect(mae <= b.pillow, "\(input) \(n) px: MAE \(mae) > Pillow's \(b.pillow)")
            #expect(mae <= b.floor + 0.02, "\(input) \(n) px: MAE \(mae), a perfect rounding \(b.floor)")

            let png = dir.appendingPathComponent("icon-\(n).png")
            try Data(PNGEncoder.encode(rendition)).write(to: png)
            let check = try await ProcessRunner.runOnPath(["pngcheck", "-q", png.path])
            #expect(check.status == 0, "pngcheck \(n): \(check.stdout) \(check.stderr)")
        }
    }
}
