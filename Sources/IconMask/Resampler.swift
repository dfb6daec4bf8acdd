/// Resamples images on premultiplied alpha, so transparent pixels (whose colour is
/// meaningless) add no colour and no darkening to their neighbours.
///
/// Separable, in two passes with `Float` accumulation and precomputed weights: the first pass
/// reads each needed input row once, premultiplies it into a one-row buffer and filters it
/// horizontally into an intermediate of (input rows × output width); the second filters that
/// vertically. No full-size premultiplied copy of the input is made. The filter (Lanczos-3 by
/// default, or exact area averaging) is applied in the file's own sRGB-encoded values, with no
/// linearisation, as `reference_mask.py` and the common tools do.
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
        let inW = image.width, inH = image.height
        guard outW > 0, outH > 0, inW > 0, inH > 0 else {
            return PremultipliedImage(width: outW, height: outH, pixels: [Float](repeating: 0, count: outW * outH * 4))
        }
        let scale = max(Double(outW) / Double(inW), Double(outH) / Double(inH))
        let wx = ResampleWeights(inputCount: inW, outputCount: outW, scale: scale,
                                 offset: (Double(inW) - Double(outW) / scale) / 2, filter: filter)
        let wy = ResampleWeights(inputCount: inH, outputCount: outH, scale: scale,
                                 offset: (Double(inH) - Double(outH) / scale) / 2, filter: filter)
        let xs = wx.inputRange, ys = wy.inputRange
        var row = [SIMD4<Float>](repeating: .zero, count: xs.count)
        var mid = [SIMD4<Float>](repeating: .zero, count: ys.count * outW)
        var out = [Float](repeating: 0, count: outW * outH * 4)

        image.pixels.withUnsafeBufferPointer { src in
            row.withUnsafeMutableBufferPointer { row in
                mid.withUnsafeMutableBufferPointer { mid in
                    wx.first.withUnsafeBufferPointer { first in
                        wx.count.withUnsafeBufferPointer { count in
                            wx.weights.withUnsafeBufferPointer { weights in
                                horizontalPass(src: src, inWidth: inW, xs: xs, ys: ys, row: row, mid: mid,
                                               outWidth: outW, first: first, count: count, weights: weights,
                                               maxTaps: wx.maxTaps)
                            }
                        }
                    }
                }
            }
        }
        mid.withUnsafeBufferPointer { mid in
            out.withUnsafeMutableBufferPointer { out in
                wy.first.withUnsafeBufferPointer { first in
                    wy.count.withUnsafeBufferPointer { count in
                        wy.weights.withUnsafeBufferPointer { weights in
                            verticalPass(mid: mid, ys: ys, out: out, outWidth: outW, outHeight: outH,
                                         first: first, count: count, weights: weights, maxTaps: wy.maxTaps)
                        }
                    }
                }
            }
        }
        return PremultipliedImage(width: outW, height: outH, pixels: out)
    }

    /// Premultiplies each needed input row into `row`, then filters it into `mid`.
    private static func horizontalPass(
        src: UnsafeBufferPointer<UInt8>, inWidth: Int, xs: Range<Int>, ys: Range<Int>,
        row: UnsafeMutableBufferPointer<SIMD4<Float>>, mid: UnsafeMutableBufferPointer<SIMD4<Float>>,
        outWidth: Int, first: UnsafeBufferPointer<Int>, count: UnsafeBufferPointer<Int>,
        weights: UnsafeBufferPointer<Float>, maxTaps: Int
    ) {
        let x0 = xs.lowerBound, n = xs.count
        for y in ys {
            var p = (y &* inWidth &+ x0) &* 4
            for i in 0..<n {
                // (r, g, b, 255) · a / 255² premultiplies and normalises in one multiply.
                let a = Float(src[p &+ 3])
                let v = SIMD4<Float>(Float(src[p]), Float(src[p &+ 1]), Float(src[p &+ 2]), 255)
                row[i] = v * (a * (1 / 65025))
                p &+= 4
            }
            let base = (y &- ys.lowerBound) &* outWidth
            for o in 0..<outWidth {
                var acc = SIMD4<Float>.zero
                let w = o &* maxTaps
                let s = first[o] &- x0
                for k in 0..<count[o] {
                    acc += weights[w &+ k] * row[s &+ k]
                }
                mid[base &+ o] = acc
            }
        }
    }

    /// Filters `mid` vertically into `out`, clamping alpha to 0…1 and colour to 0…alpha.
    private static func verticalPass(
        mid: UnsafeBufferPointer<SIMD4<Float>>, ys: Range<Int>, out: UnsafeMutableBufferPointer<Float>,
        outWidth: Int, outHeight: Int, first: UnsafeBufferPointer<Int>, count: UnsafeBufferPointer<Int>,
        weights: UnsafeBufferPointer<Float>, maxTaps: Int
    ) {
        let acc = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: outWidth)
        defer { acc.deallocate() }
        for o in 0..<outHeight {
            acc.initialize(repeating: .zero)
            let w = o &* maxTaps
            let s = first[o] &- ys.lowerBound
            for k in 0..<count[o] {
                let wk = weights[w &+ k]
                let base = (s &+ k) &* outWidth
                for x in 0..<outWidth { acc[x] += wk * mid[base &+ x] }
            }
            var q = o &* outWidth &* 4
            for x in 0..<outWidth {
                let v = acc[x]
                let a = v.w > 0 ? (v.w < 1 ? v.w : 1) : 0
                out[q] = v.x > 0 ? (v.x < a ? v.x : a) : 0
                out[q &+ 1] = v.y > 0 ? (v.y < a ? v.y : a) : 0
                out[q &+ 2] = v.z > 0 ? (v.z < a ? v.z : a) : 0
                out[q &+ 3] = a
                q &+= 4
            }
        }
    }
}
