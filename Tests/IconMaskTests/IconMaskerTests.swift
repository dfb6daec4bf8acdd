import Foundation
import Testing
@testable import IconMask

@Suite("Icon masker")
struct IconMaskerTests {
    struct GoldenCase: CustomTestStringConvertible, Sendable {
        let shape: IconShape, pt: Int, scale: Int
        var testDescription: String { "\(shape.rawValue) \(pt)@\(scale)x" }
        var file: String { "\(shape.rawValue)-\(pt)@\(scale)x.premul.rgba" }
    }

    static let goldenCases: [GoldenCase] = IconShape.allCases.flatMap { shape in
        [(29, 1), (29, 2), (58, 1), (180, 1), (60, 3)].map { GoldenCase(shape: shape, pt: $0.0, scale: $0.1) }
    }

    /// Goldens come from scripts/make_mask_goldens.py: circular and none from
    /// bench/reference_mask.py (float64), continuous from an independent sampled coverage of
    /// PaintCode's Bézier outline (Sources/IconMask/Shape.swift). They hold round(premultiplied ×
    /// 255); our float result before 8-bit conversion must be within 0.6 of them (0.5 of rounding
    /// plus 0.1), and the final 8-bit output, premultiplied again, within 1.5 (≤ 0.5 golden
    /// rounding + ≤ 1 for straight 8-bit, whose colour and alpha are rounded apart).
    @Test("matches the golden outputs", arguments: goldenCases)
    func golden(c: GoldenCase) throws {
        let expected = try [UInt8](Data(contentsOf: TestSupport.goldenDirectory.appendingPathComponent(c.file)))
        let options = MaskOptions(sizePoints: c.pt, scale: c.scale, shape: c.shape)
        let n = options.pixelSize
        #expect(expected.count == n * n * 4)
        let input = TestSupport.syntheticInput()
        var premul = Resampler.resampleToFill(input, width: n, height: n)
        IconMasker.apply(options, to: &premul)
        var worstFloat = 0.0
        for i in 0..<expected.count { worstFloat = max(worstFloat, abs(Double(premul.pixels[i]) * 255 - Double(expected[i]))) }
        #expect(worstFloat <= 0.6, "worst float difference \(worstFloat)/255")

        let out = try IconMasker.mask(input, options: options)
        #expect(out.width == n && out.height == n)
        var worst8 = 0.0
        for i in 0..<(n * n) {
            let p = TestSupport.premultiplied(out, i)
            for ch in 0..<4 { worst8 = max(worst8, abs(p[ch] - Double(expected[i * 4 + ch]))) }
        }
        #expect(worst8 <= 1.5, "worst 8-bit difference \(worst8)/255")
    }

    static func flat(_ n: Int, _ p: [UInt8]) -> RGBAImage {
        RGBAImage(width: n, height: n, pixels: Array([[UInt8]](repeating: p, count: n * n).joined()))
    }

    @Test("stroke on white: 10 % black over the inner half-pixel band, opaque inside")
    func strokeOnWhite() throws {
        let white = Self.flat(64, [255, 255, 255, 255])
        let out = try IconMasker.mask(white, options: MaskOptions(sizePoints: 58, shape: .circular))
        func px(_ x: Int, _ y: Int) -> [UInt8] { Array(out.pixels[((y * 58 + x) * 4)..<((y * 58 + x) * 4 + 4)]) }
        // Middle of the top edge: covered fully, half of it in the band → RGB × 0.95, A = 1.
        #expect(px(29, 0) == [242, 242, 242, 255])
        #expect(px(0, 29) == [242, 242, 242, 255] && px(57, 29) == [242, 242, 242, 255] && px(29, 57) == [242, 242, 242, 255])
        #expect(px(29, 1) == [255, 255, 255, 255] && px(29, 29) == [255, 255, 255, 255])
        #expect(px(0, 0) == [0, 0, 0, 0])
        let plain = try IconMasker.mask(white, options: MaskOptions(sizePoints: 58, shape: .circular, stroke: false))
        #expect(Array(plain.pixels[(29 * 4)..<(29 * 4 + 4)]) == [255, 255, 255, 255])
    }

    @Test("stroke on a clear image is a faint black line: alpha 0.05 on the edge pixels, 0 inside")
    func strokeOnClear() throws {
        let clear = Self.flat(40, [0, 0, 0, 0])
        let out = try IconMasker.mask(clear, options: MaskOptions(sizePoints: 29, shape: .circular))
        #expect(Array(out.pixels[(14 * 4)..<(14 * 4 + 4)]) == [0, 0, 0, 13])  // 0.05 × 255 = 12.75
        #expect(out.pixels[(14 * 29 + 14) * 4 + 3] == 0)
        // At 2x the stroke is 2 px: the whole outer pixel row is band → alpha 0.1 × 255 = 25.5 → 26.
        let out2 = try IconMasker.mask(clear, options: MaskOptions(sizePoints: 29, scale: 2, shape: .circular))
        #expect(out2.pixels[29 * 4 + 3] == 26 && out2.pixels[(58 + 29) * 4 + 3] == 0)
    }

    @Test("the stroke follows the shape: total band alpha on clear input is 0.1 × band area", arguments: IconShape.allCases)
    func strokeArea(shape: IconShape) {
        let options = MaskOptions(sizePoints: 60, scale: 3, shape: shape)
        var clear = PremultipliedImage(width: 180, height: 180, pixels: [Float](repeating: 0, count: 180 * 180 * 4))
        IconMasker.apply(options, to: &clear)
        var alpha = 0.0
        for i in 0..<(180 * 180) { alpha += Double(clear.pixels[i * 4 + 3]) }
        let r = Double(options.cornerRadiusPixels)
        let outer = CoverageRasteriser.rasterise(shape.outline(x: 0, y: 0, width: 180, height: 180, radius: r), width: 180, height: 180).area
        let inner = CoverageRasteriser.rasterise(shape.outline(x: 1.5, y: 1.5, width: 177, height: 177, radius: r - 1.5), width: 180, height: 180).area
        #expect(abs(alpha - 0.1 * (outer - inner)) < 1e-2)
        // The band is about perimeter × 1.5 px.
        #expect(outer - inner > 1.5 * 4 * 150 && outer - inner < 1.5 * 4 * 180)
    }

    @Test("masking in bands of rows gives the whole-image result",
          arguments: IconShape.allCases, [(61, 1, true), (29, 3, true), (100, 3, true), (61, 1, false)])
    func bands(shape: IconShape, c: (pt: Int, scale: Int, stroke: Bool)) {
        let options = MaskOptions(sizePoints: c.pt, scale: c.scale, shape: shape, stroke: c.stroke)
        let n = options.pixelSize
        let input = Resampler.resampleToFill(TestSupport.syntheticInput(), width: n, height: n)
        var whole = input
        IconMasker.apply(options, to: &whole, bandRows: n)
        // 300 px (100 pt at 3x) is more than one default band of 256 rows.
        for bandRows in [1, 7, 64, nil] as [Int?] {
            var banded = input
            if let bandRows { IconMasker.apply(options, to: &banded, bandRows: bandRows) }
            else { IconMasker.apply(options, to: &banded) }
            var worst: Float = 0
            for i in 0..<whole.pixels.count { worst = max(worst, abs(whole.pixels[i] - banded.pixels[i])) }
            #expect(worst < 1e-6, "bands of \(bandRows.map(String.init) ?? "default") rows: worst difference \(worst)")
        }
        // And the picture really was masked: corners cleared, the middle kept.
        #expect(whole.pixels[3] == 0 || shape == .none)
        #expect(whole.pixels[((n / 2) * n + n / 2) * 4 + 3] == input.pixels[((n / 2) * n + n / 2) * 4 + 3])
    }

    @Test("the default continuous mask differs from the circular one only near the corners")
    func continuousVersusCircular() throws {
        let white = Self.flat(58, [255, 255, 255, 255])
        let cont = try IconMasker.mask(white, options: MaskOptions(sizePoints: 58, stroke: false))
        let circ = try IconMasker.mask(white, options: MaskOptions(sizePoints: 58, shape: .circular, stroke: false))
        var differ = 0
        for y in 0..<58 {
            for x in 0..<58 where cont.pixels[(y * 58 + x) * 4 + 3] != circ.pixels[(y * 58 + x) * 4 + 3] {
                differ += 1
                let (dx, dy) = (min(x, 57 - x), min(y, 57 - y))
                #expect(dx < 20 && dy < 20, "pixel (\(x), \(y)) differs far from a corner")
            }
        }
        #expect(differ > 0)
    }

    @Test("degenerate sizes do not crash")
    func degenerate() throws {
        #expect(throws: MaskOptionsError(.sizeNotPositive, MaskOptions(sizePoints: 0))) {
            try IconMasker.mask(Self.flat(4, [1, 2, 3, 4]), options: MaskOptions(sizePoints: 0))
        }
        // 1 px: radius 0, and the 1 px stroke's inner half is the whole pixel's band → 90 % red.
        let one = try IconMasker.mask(Self.flat(4, [255, 0, 0, 255]), options: MaskOptions(sizePoints: 1))
        #expect(one.width == 1 && one.pixels[1] == 0 && one.pixels[3] == 255 && abs(Int(one.pixels[0]) - 230) <= 1)
        #expect(throws: MaskOptionsError.self) {
            try IconMasker.mask(Self.flat(4, [1, 2, 3, 4]), options: MaskOptions(sizePoints: Int.max, scale: 3))
        }
        #expect(throws: MaskOptionsError.self) {
            try IconMasker.mask(Self.flat(4, [1, 2, 3, 4]), options: MaskOptions(sizePoints: 29, scale: -1))
        }
        let empty = try IconMasker.mask(RGBAImage(width: 0, height: 0, pixels: []), options: MaskOptions())
        #expect(empty.width == 29)
    }
}
