import Testing
@testable import IconMask

@Suite("Resampler")
struct ResamplerTests {
    static func image(_ w: Int, _ h: Int, _ f: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) -> RGBAImage {
        var px = [UInt8]()
        for y in 0..<h { for x in 0..<w { let p = f(x, y); px += [p.0, p.1, p.2, p.3] } }
        return RGBAImage(width: w, height: h, pixels: px)
    }

    @Test("a constant image stays constant", arguments: ResampleFilter.allCases, [(97, 61, 29), (20, 30, 58), (64, 64, 64), (1, 1, 5)])
    func constant(filter: ResampleFilter, dims: (Int, Int, Int)) {
        let (w, h, n) = dims
        let input = Self.image(w, h) { _, _ in (200, 100, 7, 255) }
        let out = Resampler.resampleToFill(input, width: n, height: n, filter: filter).rgbaImage()
        #expect(out.width == n && out.height == n)
        for i in 0..<(n * n) {
            #expect(Array(out.pixels[(i * 4)..<(i * 4 + 4)]) == [200, 100, 7, 255], "pixel \(i)")
        }
    }

    @Test("no colour bleeds from transparent pixels and edges do not darken", arguments: ResampleFilter.allCases)
    func noFringes(filter: ResampleFilter) {
        // Left: opaque red (top half) and half-transparent red (bottom half); right: fully
        // transparent pixels whose hidden colour is green.
        let input = Self.image(100, 100) { x, y in
            x < 50 ? (255, 0, 0, y < 50 ? 255 : 128) : (0, 255, 0, 0)
        }
        var sawEdge = false
        for n in [7, 29, 40, 150] {
            let out = Resampler.resampleToFill(input, width: n, height: n, filter: filter).rgbaImage()
            for i in 0..<(n * n) {
                let p = Array(out.pixels[(i * 4)..<(i * 4 + 4)])
                guard p[3] > 0 else { continue }
                // Straight colour stays pure red: no green from the transparent side, and no
                // darkening (which straight-alpha averaging with transparent black would give).
                #expect(p[0] == 255 && p[1] == 0 && p[2] == 0, "n=\(n) pixel \(i): \(p)")
                if p[3] < 128 { sawEdge = true }
            }
        }
        #expect(sawEdge, "the edge is anti-aliased")
    }

    @Test("premultiplied averaging: opaque white beside transparent black blends alpha, not colour")
    func whiteEdge() {
        let input = Self.image(2, 1) { x, _ in x == 0 ? (255, 255, 255, 255) : (0, 0, 0, 0) }
        // Area average of the 2×1 into 1×1 (fill crops to the middle square, which spans both pixels half).
        let out = Resampler.resampleToFill(input, width: 1, height: 1, filter: .area).rgbaImage()
        #expect(out.pixels == [255, 255, 255, 128])
    }

    @Test("non-square input is scaled to fill and centre-cropped", arguments: [true, false])
    func centreCrop(landscape: Bool) {
        // Three bands; the middle band is exactly the centred square.
        let band: (Int) -> (UInt8, UInt8, UInt8, UInt8) = { i in
            i < 100 ? (0, 0, 255, 255) : (i < 200 ? (255, 0, 0, 255) : (0, 255, 0, 255))
        }
        let input = landscape ? Self.image(300, 100) { x, _ in band(x) } : Self.image(100, 300) { _, y in band(y) }
        let area = Resampler.resampleToFill(input, width: 10, height: 10, filter: .area).rgbaImage()
        for i in 0..<100 { #expect(Array(area.pixels[(i * 4)..<(i * 4 + 4)]) == [255, 0, 0, 255]) }
        // Lanczos reaches past the crop edge; the overshoot must be mirror-symmetric (blue on one
        // side, green on the other), which it is only if the crop is centred.
        let lz = Resampler.resampleToFill(input, width: 10, height: 10, filter: .lanczos3)
        for y in 0..<10 {
            for x in 0..<10 {
                let (mx, my) = landscape ? (9 - x, y) : (x, 9 - y)
                let p = (y * 10 + x) * 4, q = (my * 10 + mx) * 4
                #expect(abs(lz.pixels[p] - lz.pixels[q]) < 1e-5)
                #expect(abs(lz.pixels[p + 2] - lz.pixels[q + 1]) < 1e-5)
            }
        }
    }

    @Test("Lanczos-3 weights match the reference definition and sum to 1")
    func weights() {
        // 1024 → 58: support 3 × 1024/58 ≈ 53 input pixels each side.
        let w = ResampleWeights(inputCount: 1024, outputCount: 58, scale: 58.0 / 1024, offset: 0, filter: .lanczos3)
        for i in 0..<58 {
            var sum: Float = 0
            for k in 0..<w.count[i] { sum += w.weights[i * w.maxTaps + k] }
            #expect(abs(sum - 1) < 1e-5)
        }
        #expect(w.maxTaps >= 105 && w.maxTaps <= 107)
        #expect(lanczos3(0) == 1 && lanczos3(3) == 0 && lanczos3(-3.5) == 0)
        #expect(abs(lanczos3(0.5) - 0.6079271018540267) < 1e-12)  // sinc(0.5)·sinc(1/6)
        // Area: 4 → 2 averages pairs exactly.
        let a = ResampleWeights(inputCount: 4, outputCount: 2, scale: 0.5, offset: 0, filter: .area)
        #expect(a.first == [0, 2] && a.count == [2, 2] && a.weights == [0.5, 0.5, 0.5, 0.5])
    }

    @Test("an empty input gives a transparent image of the asked size")
    func emptyInput() {
        let out = Resampler.resampleToFill(RGBAImage(width: 0, height: 0, pixels: []), width: 3, height: 3)
        #expect(out.width == 3 && out.pixels.allSatisfy { $0 == 0 })
    }

    @Test("premultiplying and converting back is lossless for every alpha above 0")
    func premultiplyRoundTrip() {
        var px = [UInt8]()
        for a in 0...255 { for c in stride(from: 0, through: 255, by: 17) { px += [UInt8(c), UInt8(255 - c), UInt8(c / 2), UInt8(a)] } }
        let image = RGBAImage(width: px.count / 4, height: 1, pixels: px)
        let premul = PremultipliedImage(image)
        #expect(premul.pixels[4 * 16 * 255 + 3] == 1 && premul.pixels[0] == 0)
        let back = premul.rgbaImage()
        for i in stride(from: 0, to: px.count, by: 4) {
            let expected = px[i + 3] == 0 ? [0, 0, 0, 0] : Array(px[i..<(i + 4)])
            #expect(Array(back.pixels[i..<(i + 4)]) == expected)
        }
    }

    @Test("conversion to 8-bit straight alpha rounds to nearest and keeps flat colours exact")
    func quantise() {
        let img = PremultipliedImage(width: 3, height: 1, pixels: [
            0.5, 0.25, 0, 0.5,        // straight (1, 0.5, 0) at alpha 0.5 → 127.5 rounds up
            0.001, 0, 0, 0.001,       // alpha rounds to 0 → transparent black
            .nan, 2, -1, 1,           // junk is clamped, never traps
        ])
        let out = img.rgbaImage()
        #expect(Array(out.pixels[0..<4]) == [255, 128, 0, 128])
        #expect(Array(out.pixels[4..<8]) == [0, 0, 0, 0])
        #expect(Array(out.pixels[8..<12]) == [0, 255, 0, 255])
    }
}
