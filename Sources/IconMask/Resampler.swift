/// Resamples images on premultiplied alpha, so transparent pixels (whose colour is
/// meaningless) add no colour and no darkening to their neighbours.
///
/// Separable, in two passes with `Float` accumulation and precomputed weights. The first pass
/// reads each needed input row once, premultiplies it into a one-row buffer (so no full-size
/// premultiplied copy of the input is made) and filters it horizontally while it is in L1
/// cache, into a small ring of filtered rows; the second pass filters those vertically, one
/// output row at a time, as soon as the rows it needs are in the ring. The filter (Lanczos-3
/// by default, or exact area averaging) is applied in the file's own sRGB-encoded values, with
/// no linearisation, as `reference_mask.py` and the common tools do.
public enum Resampler {
    /// Scales `image` uniformly so that it fills `width × height`, centre-crops the overflow,
    /// and returns the premultiplied result.
    ///
    /// - Parameters:
    ///   - image: straight-alpha 8-bit input of any size; an empty image gives a transparent result.
    ///   - width: output width in pixels.
    ///   - height: output height in pixels.
    ///   - filter: ``ResampleFilter/lanczos3`` (default) or ``ResampleFilter/area``.
    /// - Returns: premultiplied pixels with alpha clamped to 0…1 and colour to 0…alpha
    ///   (Lanczos lobes may overshoot).
    public static func resampleToFill(_ image: RGBAImage, width: Int, height: Int,
                                      filter: ResampleFilter = .lanczos3) -> PremultipliedImage {
        let outW = max(width, 0), outH = max(height, 0)
        var out = [Float](repeating: 0, count: outW * outH * 4)
        out.withUnsafeMutableBufferPointer { out in
            resampleToFill(image, width: outW, height: outH, filter: filter, bandRows: max(outH, 1)) { top, band in
                let start = top &* outW &* 4
                UnsafeMutableBufferPointer(rebasing: out[start..<(start &+ band.count)])
                    .update(fromContentsOf: UnsafeBufferPointer(band))
            }
        }
        return PremultipliedImage(width: outW, height: outH, pixels: out)
    }

    /// How many times larger than the output the input's shorter side must be for the Lanczos
    /// path to average the input 2×2 as it reads it (``RowSource/halved(_:)``) and filter the
    /// half-size image instead: 16, so the halved image still has 8 pixels per output pixel and
    /// the box average barely touches what the Lanczos lobes pass (1024 → 58 px: within 0.3/255
    /// of the float reference before rounding on the project's icon; MAE of `xds mask --shape
    /// circular` over the 34 corpus icons, median 0.0978 → 0.0990, worst pixel 0.96 → 0.99; see
    /// Benchmarks/RESULTS.md, issue 17). It halves the rows the horizontal pass filters and
    /// their width, the costliest part of a large reduction. Smaller reductions (all the golden
    /// cases, 60 pt @3x from 1024) are filtered directly, their pixels unchanged.
    static let halvingRatio = 16

    /// ``resampleToFill(_:width:height:filter:)`` handing the result over `bandRows` output rows
    /// at a time, so no whole-output `Float` image is made (16 bytes a pixel: 64 MB at 2048 px).
    /// `body` gets the first row of the band and its premultiplied pixels (rows × width × 4
    /// values, scaled and clamped as the public function's); the buffer is reused for the next band.
    ///
    /// Lanczos reductions by ``halvingRatio`` or more (both sides even) read the image averaged
    /// 2×2, row pair by row pair (no half-size copy is made).
    static func resampleToFill(_ image: RGBAImage, width outW: Int, height outH: Int, filter: ResampleFilter,
                               bandRows: Int, body: (Int, UnsafeMutableBufferPointer<Float>) -> Void) {
        let source: RowSource = filter == .lanczos3 && RowSource.canHalve(image)
            && min(image.width, image.height) >= halvingRatio * max(outW, outH, 1) ? .halved(image) : .straight(image)
        resample(source, width: outW, height: outH, filter: filter, bandRows: bandRows, scaled: true, body: body)
    }

    /// Where the passes read their premultiplied input rows from.
    enum RowSource {
        /// 8-bit straight alpha, premultiplied a row at a time as it is read.
        case straight(RGBAImage)
        /// The same, averaged 2×2 as it is read: a `width / 2 × height / 2` image (both even).
        case halved(RGBAImage)
        /// Premultiplied pixels already in the passes' units (1/65025: 255·a for alpha), such as
        /// an earlier unscaled pass's output (``Resampler/level(_:side:)``).
        case level(width: Int, height: Int, pixels: [Float])

        /// Whether ``halved(_:)`` applies: both sides even and non-zero.
        static func canHalve(_ image: RGBAImage) -> Bool {
            image.width > 0 && image.height > 0 && image.width % 2 == 0 && image.height % 2 == 0
        }

        /// The size of the image the passes see.
        var size: (width: Int, height: Int) {
            switch self {
            case .straight(let image): return (image.width, image.height)
            case .halved(let image): return (image.width / 2, image.height / 2)
            case .level(let width, let height, _): return (width, height)
            }
        }
    }

    /// `source` scaled to fill `side × side` (centre crop) with Lanczos-3 and kept unscaled and
    /// unclamped, in the passes' units, as a source for further reductions: an intermediate that
    /// several output sizes share (``IconRenditions``).
    static func level(_ source: RowSource, side: Int) -> RowSource {
        var pixels = [Float](repeating: 0, count: side * side * 4)
        pixels.withUnsafeMutableBufferPointer { out in
            resample(source, width: side, height: side, filter: .lanczos3, bandRows: 64, scaled: false) { top, band in
                let start = top &* side &* 4
                UnsafeMutableBufferPointer(rebasing: out[start..<(start &+ band.count)])
                    .update(fromContentsOf: UnsafeBufferPointer(band))
            }
        }
        return .level(width: side, height: side, pixels: pixels)
    }

    /// The two passes over `source`, as ``resampleToFill(_:width:height:filter:bandRows:body:)``
    /// describes; with `scaled` false the bands hold the raw sums (units of 1/65025, not clamped).
    static func resample(_ source: RowSource, width outW: Int, height outH: Int, filter: ResampleFilter,
                         bandRows: Int, scaled: Bool, body: (Int, UnsafeMutableBufferPointer<Float>) -> Void) {
        guard outW > 0, outH > 0 else { return }
        let bandRows = min(max(bandRows, 1), outH)
        let rowFloats = outW * 4
        var band = [Float](repeating: 0, count: bandRows * rowFloats)
        let (inW, inH) = source.size
        guard inW > 0, inH > 0 else {
            band.withUnsafeMutableBufferPointer { band in
                var top = 0
                while top < outH {
                    let rows = min(bandRows, outH - top)
                    band.update(repeating: 0)  // body may have drawn on the last band
                    body(top, UnsafeMutableBufferPointer(rebasing: band[..<(rows * rowFloats)]))
                    top += rows
                }
            }
            return
        }
        let scale = max(Double(outW) / Double(inW), Double(outH) / Double(inH))
        let wx = ResampleWeights(inputCount: inW, outputCount: outW, scale: scale,
                                 offset: (Double(inW) - Double(outW) / scale) / 2, filter: filter)
        // A square job (the usual icon) has the same taps in both directions: computing them
        // once saves half the sin() calls of the weights.
        let wy = inH == inW && outH == outW ? wx
            : ResampleWeights(inputCount: inH, outputCount: outH, scale: scale,
                              offset: (Double(inH) - Double(outH) / scale) / 2, filter: filter)
        let xs = wx.inputRange
        // The horizontally filtered rows live in a ring of `wy.maxTaps` slots, slot r % ringRows
        // holding input row r: one output row's vertical window (at most maxTaps consecutive
        // rows) never maps two rows to one slot. About 100 KB at 180 px instead of an
        // input-rows × output-width intermediate (2.9 MB, every page of it faulted in), and it
        // stays in L2. The ring only changes where a filtered row is kept, not its values.
        let ringRows = max(wy.maxTaps, 1)
        let rowLength = xs.count * 4
        var row = [Float](repeating: 0, count: 2 * rowLength)  // two input rows
        var ring = [Float](repeating: 0, count: ringRows * rowFloats)
        var slotRow = [Int](repeating: -1, count: ringRows)
        // Horizontal weights splatted to four lanes once, so the inner loop is load, multiply, add.
        let splat = wx.weights.map { SIMD4<Float>(repeating: $0) }
        let bytes: [UInt8], floats: [Float], halved: Bool
        switch source {
        case .straight(let image): bytes = image.pixels; floats = []; halved = false
        case .halved(let image): bytes = image.pixels; floats = []; halved = true
        case .level(_, _, let pixels): bytes = []; floats = pixels; halved = false
        }

        bytes.withUnsafeBufferPointer { src in
          floats.withUnsafeBufferPointer { srcFloats in
            row.withUnsafeMutableBufferPointer { row in
                ring.withUnsafeMutableBufferPointer { ring in
                    band.withUnsafeMutableBufferPointer { out in
                        wx.first.withUnsafeBufferPointer { first in
                            wx.count.withUnsafeBufferPointer { count in
                                splat.withUnsafeBufferPointer { weights in
                                    wy.weights.withUnsafeBufferPointer { vWeights in
                                        // Input row y premultiplied (into `buffer` unless the source already is).
                                        @inline(__always) func inputRow(_ y: Int, _ buffer: UnsafeMutableBufferPointer<Float>) -> UnsafeBufferPointer<Float> {
                                            if !srcFloats.isEmpty {
                                                return UnsafeBufferPointer(rebasing: srcFloats[((y &* inW &+ xs.lowerBound) &* 4)...].prefix(rowLength))
                                            }
                                            if halved {
                                                premultiplyHalved(src: src, row: y, inWidth: inW &* 2, xs: xs, into: buffer)
                                            } else {
                                                premultiply(src: src, row: y, inWidth: inW, xs: xs, into: buffer)
                                            }
                                            return UnsafeBufferPointer(buffer)
                                        }
                                        var bandTop = 0
                                        for o in 0..<outH {
                                            let top = wy.first[o], taps = wy.count[o]
                                            // Filter the rows of this window not yet in the ring
                                            // (windows move down, so each row usually once).
                                            // Two rows at a time when both are missing: the
                                            // weights are loaded once for both (same sums).
                                            var y = top
                                            let end = top &+ taps
                                            while y < end {
                                                if slotRow[y % ringRows] == y { y &+= 1; continue }
                                                let slot = y % ringRows
                                                let inA = inputRow(y, UnsafeMutableBufferPointer(rebasing: row[..<rowLength]))
                                                let ringA = UnsafeMutableBufferPointer(rebasing: ring[(slot &* rowFloats)...].prefix(rowFloats))
                                                let next = y &+ 1, nextSlot = next % ringRows
                                                if ringRows >= 2 && next < end && slotRow[nextSlot] != next {
                                                    let inB = inputRow(next, UnsafeMutableBufferPointer(rebasing: row[rowLength...]))
                                                    horizontalTaps2(rowA: inA, rowB: inB, x0: xs.lowerBound, intoA: ringA,
                                                                    intoB: UnsafeMutableBufferPointer(rebasing: ring[(nextSlot &* rowFloats)...].prefix(rowFloats)),
                                                                    first: first, count: count, weights: weights, maxTaps: wx.maxTaps)
                                                    slotRow[slot] = y
                                                    slotRow[nextSlot] = next
                                                    y &+= 2
                                                } else {
                                                    horizontalTaps(row: inA, x0: xs.lowerBound, into: ringA,
                                                                   first: first, count: count, weights: weights, maxTaps: wx.maxTaps)
                                                    slotRow[slot] = y
                                                    y &+= 1
                                                }
                                            }
                                            let b = o &- bandTop
                                            verticalTaps(ring: UnsafeBufferPointer(ring), rowFloats: rowFloats, ringRows: ringRows,
                                                         firstRow: top,
                                                         weights: UnsafeBufferPointer(rebasing: vWeights[(o &* wy.maxTaps)...].prefix(taps)),
                                                         into: UnsafeMutableBufferPointer(rebasing: out[(b &* rowFloats)...].prefix(rowFloats)),
                                                         scaled: scaled)
                                            if b &+ 1 == bandRows || o &+ 1 == outH {
                                                body(bandTop, UnsafeMutableBufferPointer(rebasing: out[..<((b &+ 1) &* rowFloats)]))
                                                bandTop = o &+ 1
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
          }
        }
    }

    /// Row `row` of the image averaged 2×2, columns `xs` of the half-width image, premultiplied
    /// into `dst` in the units of ``premultiply(src:row:inWidth:xs:into:)``: the mean of the four
    /// premultiplied integers (exact in `Float`). `inWidth` is the full image's width.
    @inline(__always)
    private static func premultiplyHalved(src: UnsafeBufferPointer<UInt8>, row: Int, inWidth: Int, xs: Range<Int>,
                                          into dst: UnsafeMutableBufferPointer<Float>) {
        var p = (2 &* row &* inWidth &+ 2 &* xs.lowerBound) &* 4
        let below = inWidth &* 4
        var i = 0
        let n = dst.count
        let raw = UnsafeRawPointer(src.baseAddress!)
        let out = UnsafeMutableRawPointer(dst.baseAddress!)
        // Integers all the way to the sum of four (c·a ≤ 65025 fits 16 bits, the sum 18), one
        // conversion to Float per output value: the same exact values as premultiplying in Float.
        @inline(__always) func premultiplied(_ at: Int) -> SIMD16<UInt16> {
            let bytes = (raw + at).loadUnaligned(as: SIMD16<UInt8>.self)
            var v = SIMD16<UInt16>()
            for j in 0..<16 { v[j] = UInt16(bytes[j]) }
            let a = SIMD16<UInt16>(v[3], v[3], v[3], 255, v[7], v[7], v[7], 255,
                                   v[11], v[11], v[11], 255, v[15], v[15], v[15], 255)
            return v &* a
        }
        @inline(__always) func widened(_ v: SIMD16<UInt16>, _ first: Int, _ second: Int) -> SIMD8<UInt32> {
            var r = SIMD8<UInt32>()
            for j in 0..<4 { r[j] = UInt32(v[first &+ j]); r[4 &+ j] = UInt32(v[second &+ j]) }
            return r
        }
        // Four input pixels of two rows at a time make two output pixels.
        while i &+ 8 <= n {
            let top = premultiplied(p), bottom = premultiplied(p &+ below)
            let sum = widened(top, 0, 8) &+ widened(top, 4, 12) &+ widened(bottom, 0, 8) &+ widened(bottom, 4, 12)
            var f = SIMD8<Float>()
            for j in 0..<8 { f[j] = Float(sum[j]) }
            (out + i &* 4).storeBytes(of: f * 0.25, as: SIMD8<Float>.self)
            p &+= 16
            i &+= 8
        }
        while i < n {
            var sum = SIMD4<Float>()
            for q in [p, p &+ 4, p &+ below, p &+ below &+ 4] {
                let a = Float(src[q &+ 3])
                sum += SIMD4(Float(src[q]) * a, Float(src[q &+ 1]) * a, Float(src[q &+ 2]) * a, 255 * a)
            }
            sum *= 0.25
            dst[i] = sum.x; dst[i &+ 1] = sum.y; dst[i &+ 2] = sum.z; dst[i &+ 3] = sum.w
            p &+= 8
            i &+= 4
        }
    }

    /// Premultiplies columns `xs` of input row `row` into `dst`, in units of 1/65025:
    /// (r·a, g·a, b·a, 255·a) are integers, exact in `Float`; the one division by 65025 happens
    /// on the small output.
    @inline(__always)
    private static func premultiply(src: UnsafeBufferPointer<UInt8>, row: Int, inWidth: Int, xs: Range<Int>,
                                    into dst: UnsafeMutableBufferPointer<Float>) {
        var p = (row &* inWidth &+ xs.lowerBound) &* 4
        var i = 0
        let n = dst.count
        // Four pixels at a time: each pixel times (a, a, a, 255).
        let raw = UnsafeRawPointer(src.baseAddress!)
        let out = UnsafeMutableRawPointer(dst.baseAddress!)
        while i &+ 16 <= n {
            // Element by element, which the optimiser turns into inline widening and
            // conversion (SIMD16<Float>(SIMD16<UInt8>) is an out-of-line call per 4 pixels).
            // In 16-bit integers (c·a ≤ 65025), then one conversion: the same exact values.
            let bytes = (raw + p).loadUnaligned(as: SIMD16<UInt8>.self)
            var v = SIMD16<UInt16>()
            for j in 0..<16 { v[j] = UInt16(bytes[j]) }
            let a = SIMD16<UInt16>(v[3], v[3], v[3], 255, v[7], v[7], v[7], 255,
                                   v[11], v[11], v[11], 255, v[15], v[15], v[15], 255)
            let product = v &* a
            var f = SIMD16<Float>()
            for j in 0..<16 { f[j] = Float(product[j]) }
            (out + i &* 4).storeBytes(of: f, as: SIMD16<Float>.self)
            p &+= 16
            i &+= 16
        }
        while i < n {
            let a = Float(src[p &+ 3])
            dst[i] = Float(src[p]) * a
            dst[i &+ 1] = Float(src[p &+ 1]) * a
            dst[i &+ 2] = Float(src[p &+ 2]) * a
            dst[i &+ 3] = 255 * a
            p &+= 4
            i &+= 4
        }
    }

    /// Filters one premultiplied input row horizontally: output pixel x is
    /// `Σ weights[x, k] · row[first[x] + k]`, with four accumulators to break the add chain.
    @inline(__always)
    private static func horizontalTaps(
        row: UnsafeBufferPointer<Float>, x0: Int, into out: UnsafeMutableBufferPointer<Float>,
        first: UnsafeBufferPointer<Int>, count: UnsafeBufferPointer<Int>, weights: UnsafeBufferPointer<SIMD4<Float>>,
        maxTaps: Int
    ) {
        var q = 0
        for x in 0..<first.count {
            var acc0 = SIMD4<Float>.zero, acc1 = SIMD4<Float>.zero
            var acc2 = SIMD4<Float>.zero, acc3 = SIMD4<Float>.zero
            let w = x &* maxTaps, s = first[x] &- x0, c = count[x]
            var k = 0
            while k &+ 3 < c {
                acc0 += weights[w &+ k] * pixel(row, s &+ k)
                acc1 += weights[w &+ k &+ 1] * pixel(row, s &+ k &+ 1)
                acc2 += weights[w &+ k &+ 2] * pixel(row, s &+ k &+ 2)
                acc3 += weights[w &+ k &+ 3] * pixel(row, s &+ k &+ 3)
                k &+= 4
            }
            while k < c {
                acc0 += weights[w &+ k] * pixel(row, s &+ k)
                k &+= 1
            }
            let v = (acc0 + acc1) + (acc2 + acc3)
            out[q] = v.x
            out[q &+ 1] = v.y
            out[q &+ 2] = v.z
            out[q &+ 3] = v.w
            q &+= 4
        }
    }

    /// ``horizontalTaps(row:x0:into:first:count:weights:maxTaps:)`` for two input rows at once,
    /// each weight loaded once for both; each row's sums are taken in exactly the same order.
    @inline(__always)
    private static func horizontalTaps2(
        rowA: UnsafeBufferPointer<Float>, rowB: UnsafeBufferPointer<Float>, x0: Int,
        intoA outA: UnsafeMutableBufferPointer<Float>, intoB outB: UnsafeMutableBufferPointer<Float>,
        first: UnsafeBufferPointer<Int>, count: UnsafeBufferPointer<Int>, weights: UnsafeBufferPointer<SIMD4<Float>>,
        maxTaps: Int
    ) {
        var q = 0
        for x in 0..<first.count {
            var a0 = SIMD4<Float>.zero, a1 = SIMD4<Float>.zero, a2 = SIMD4<Float>.zero, a3 = SIMD4<Float>.zero
            var b0 = SIMD4<Float>.zero, b1 = SIMD4<Float>.zero, b2 = SIMD4<Float>.zero, b3 = SIMD4<Float>.zero
            let w = x &* maxTaps, s = first[x] &- x0, c = count[x]
            var k = 0
            while k &+ 3 < c {
                let w0 = weights[w &+ k], w1 = weights[w &+ k &+ 1], w2 = weights[w &+ k &+ 2], w3 = weights[w &+ k &+ 3]
                a0 += w0 * pixel(rowA, s &+ k); b0 += w0 * pixel(rowB, s &+ k)
                a1 += w1 * pixel(rowA, s &+ k &+ 1); b1 += w1 * pixel(rowB, s &+ k &+ 1)
                a2 += w2 * pixel(rowA, s &+ k &+ 2); b2 += w2 * pixel(rowB, s &+ k &+ 2)
                a3 += w3 * pixel(rowA, s &+ k &+ 3); b3 += w3 * pixel(rowB, s &+ k &+ 3)
                k &+= 4
            }
            while k < c {
                let wk = weights[w &+ k]
                a0 += wk * pixel(rowA, s &+ k); b0 += wk * pixel(rowB, s &+ k)
                k &+= 1
            }
            let va = (a0 + a1) + (a2 + a3), vb = (b0 + b1) + (b2 + b3)
            outA[q] = va.x; outA[q &+ 1] = va.y; outA[q &+ 2] = va.z; outA[q &+ 3] = va.w
            outB[q] = vb.x; outB[q &+ 1] = vb.y; outB[q &+ 2] = vb.z; outB[q &+ 3] = vb.w
            q &+= 4
        }
    }

    /// One output row of the vertical pass over input rows `firstRow ..< firstRow + weights.count`,
    /// horizontally filtered and held in `ring` (row r in slot r % ringRows); when `scaled`,
    /// scaled to 0…1 with alpha clamped to 0…1 and colour to 0…alpha.
    @inline(__always)
    private static func verticalTaps(ring: UnsafeBufferPointer<Float>, rowFloats: Int, ringRows: Int, firstRow: Int,
                                     weights: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>,
                                     scaled: Bool) {
        for i in 0..<rowFloats { out[i] = 0 }
        for k in 0..<weights.count {
            let wk = weights[k]
            let base = ((firstRow &+ k) % ringRows) &* rowFloats
            for i in 0..<rowFloats { out[i] += wk * ring[base &+ i] }
        }
        guard scaled else { return }
        var q = 0
        while q < rowFloats {
            let a0 = out[q &+ 3] / 65025
            let a = a0 > 0 ? (a0 < 1 ? a0 : 1) : 0
            for c in 0..<3 {
                let v = out[q &+ c] / 65025
                out[q &+ c] = v > 0 ? (v < a ? v : a) : 0
            }
            out[q &+ 3] = a
            q &+= 4
        }
    }

    /// Pixel `i` of a flat RGBA `Float` buffer.
    @inline(__always)
    private static func pixel(_ b: UnsafeBufferPointer<Float>, _ i: Int) -> SIMD4<Float> {
        UnsafeRawPointer(b.baseAddress! + i &* 4).loadUnaligned(as: SIMD4<Float>.self)
    }
}
