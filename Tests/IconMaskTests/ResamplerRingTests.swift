import Testing
@testable import IconMask

/// Pins `Resampler.resampleToFill`, which keeps only a ring of horizontally filtered rows, to a
/// plain two-pass computation over a full intermediate of every input row: the results must be
/// bit-identical, not merely close, for both filters, odd and non-square sizes, crops and
/// enlargement.
@Suite("Resampler ring of rows")
struct ResamplerRingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let inW: Int, inH: Int, outW: Int, outH: Int
        var testDescription: String { "\(inW)×\(inH) → \(outW)×\(outH)" }
    }

    static let cases: [Case] = [
        Case(inW: 97, inH: 61, outW: 29, outH: 29),    // landscape, odd, cropped
        Case(inW: 61, inH: 97, outW: 30, outH: 17),    // portrait in, landscape out
        Case(inW: 200, inH: 150, outW: 58, outH: 58),  // big reduction: many taps, deep ring
        Case(inW: 13, inH: 9, outW: 40, outH: 37),     // enlargement: few taps, rows reused
        Case(inW: 50, inH: 50, outW: 50, outH: 50),    // identity scale
        Case(inW: 7, inH: 7, outW: 1, outH: 1),        // one output pixel
        Case(inW: 1, inH: 5, outW: 3, outH: 11),       // one input column, heavy crop
        Case(inW: 33, inH: 20, outW: 20, outH: 45),    // tall output from a wide input
    ]

    /// Deterministic pixels with every alpha, including transparent ones with colour.
    static func noise(_ w: Int, _ h: Int) -> RGBAImage {
        var state: UInt32 = 0x9E37_79B9 &+ UInt32(w * 131 + h)
        var px = [UInt8](repeating: 0, count: w * h * 4)
        for i in px.indices {
            state = state &* 1_664_525 &+ 1_013_904_223
            px[i] = UInt8(truncatingIfNeeded: state >> 24)
        }
        // A few fully transparent and fully opaque pixels for the clamps.
        for i in stride(from: 3, to: px.count, by: 28) { px[i] = 0 }
        for i in stride(from: 15, to: px.count, by: 44) { px[i] = 255 }
        return RGBAImage(width: w, height: h, pixels: px)
    }

    /// The straightforward computation: premultiply the whole image (in 1/65025 units), filter
    /// every input row horizontally into a full intermediate, then every output row vertically.
    /// The sums are taken in the same order as the resampler (four interleaved accumulators
    /// horizontally, sequential vertically) because bit-identity depends on it.
    static func reference(_ image: RGBAImage, _ outW: Int, _ outH: Int, _ filter: ResampleFilter) -> [Float] {
        let inW = image.width, inH = image.height
        let scale = max(Double(outW) / Double(inW), Double(outH) / Double(inH))
        let wx = ResampleWeights(inputCount: inW, outputCount: outW, scale: scale,
                                 offset: (Double(inW) - Double(outW) / scale) / 2, filter: filter)
        let wy = ResampleWeights(inputCount: inH, outputCount: outH, scale: scale,
                                 offset: (Double(inH) - Double(outH) / scale) / 2, filter: filter)
        var premul = [Float](repeating: 0, count: inW * inH * 4)
        for i in 0..<(inW * inH) {
            let a = Float(image.pixels[i * 4 + 3])
            for c in 0..<3 { premul[i * 4 + c] = Float(image.pixels[i * 4 + c]) * a }
            premul[i * 4 + 3] = 255 * a
        }
        var mid = [Float](repeating: 0, count: inH * outW * 4)
        for y in 0..<inH {
            for x in 0..<outW {
                for c in 0..<4 {
                    var acc: [Float] = [0, 0, 0, 0]
                    let n = wx.count[x]
                    for k in 0..<n {
                        let term = wx.weights[x * wx.maxTaps + k] * premul[(y * inW + wx.first[x] + k) * 4 + c]
                        acc[k < n / 4 * 4 ? k % 4 : 0] += term
                    }
                    mid[(y * outW + x) * 4 + c] = (acc[0] + acc[1]) + (acc[2] + acc[3])
                }
            }
        }
        var out = [Float](repeating: 0, count: outW * outH * 4)
        for o in 0..<outH {
            for x in 0..<outW {
                var v: [Float] = [0, 0, 0, 0]
                for c in 0..<4 {
                    for k in 0..<wy.count[o] {
                        v[c] += wy.weights[o * wy.maxTaps + k] * mid[((wy.first[o] + k) * outW + x) * 4 + c]
                    }
                }
                let a = min(max(v[3] / 65025, 0), 1)
                for c in 0..<3 { out[(o * outW + x) * 4 + c] = min(max(v[c] / 65025, 0), a) }
                out[(o * outW + x) * 4 + 3] = a
            }
        }
        return out
    }

    @Test("bit-identical to the full-intermediate computation", arguments: ResampleFilter.allCases, cases)
    func matchesReference(filter: ResampleFilter, c: Case) {
        let image = Self.noise(c.inW, c.inH)
        let ours = Resampler.resampleToFill(image, width: c.outW, height: c.outH, filter: filter)
        let expected = Self.reference(image, c.outW, c.outH, filter)
        #expect(ours.width == c.outW && ours.height == c.outH)
        #expect(ours.pixels.count == expected.count)
        let differing = zip(ours.pixels, expected).enumerated().filter { $0.element.0.bitPattern != $0.element.1.bitPattern }
        let count = differing.count, first = differing.first.map { "value \($0.offset): \($0.element.0) against \($0.element.1)" } ?? ""
        #expect(count == 0, "\(count) values differ; first: \(first)")
    }
}
