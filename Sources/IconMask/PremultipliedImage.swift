/// An image of premultiplied RGBA pixels as `Float` in 0…1 (colour already multiplied by
/// alpha, so a transparent pixel is all zeros): what resampling and masking work on.
public struct PremultipliedImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width × height × 4` values: R·A, G·A, B·A, A for each pixel, rows top to bottom.
    public var pixels: [Float]

    /// Wraps pixels laid out as described on ``pixels``.
    /// - Precondition: `pixels.count == width * height * 4`.
    public init(width: Int, height: Int, pixels: [Float]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 4,
                     "PremultipliedImage: pixel count does not match \(width)×\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Premultiplies a straight-alpha 8-bit image.
    public init(_ image: RGBAImage) {
        var out = [Float](repeating: 0, count: image.pixels.count)
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                var i = 0
                while i < src.count {
                    let a = Float(src[i &+ 3]) * (1 / 255)
                    let k = a * (1 / 255)
                    dst[i] = Float(src[i]) * k
                    dst[i &+ 1] = Float(src[i &+ 1]) * k
                    dst[i &+ 2] = Float(src[i &+ 2]) * k
                    dst[i &+ 3] = a
                    i &+= 4
                }
            }
        }
        self.init(width: image.width, height: image.height, pixels: out)
    }

    /// Converts to 8-bit straight alpha, rounding to nearest, as `reference_mask.py` writes PNGs.
    ///
    /// Colour is divided by the exact alpha (not the rounded one), so a flat colour stays exactly
    /// that colour at every alpha: the edge of pure red is pure red, never 254. A pixel whose
    /// alpha rounds to 0 becomes transparent black. Values are clamped to 0…1 (colour to 0…alpha);
    /// NaN counts as 0.
    public func rgbaImage() -> RGBAImage {
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in Self.straighten(src, into: dst) }
        }
        return RGBAImage(width: width, height: height, pixels: out)
    }

    /// ``rgbaImage()`` for a run of pixels: writes `src.count` bytes to `dst`, which must be
    /// zero-filled (transparent pixels are skipped).
    static func straighten(_ src: UnsafeBufferPointer<Float>, into dst: UnsafeMutableBufferPointer<UInt8>) {
        var i = 0
        while i < src.count {
            let alpha = src[i &+ 3]
            // Written so that NaN lands on 0 instead of trapping in UInt8(_:).
            let a: Float = alpha > 0 ? (alpha < 1 ? alpha : 1) : 0
            let a8 = (a * 255 + 0.5).rounded(.down)
            if a8 > 0 {
                // colour / alpha, in 0…255 units.
                let k = 255 / a
                dst[i] = Self.byte(src[i] * k + 0.5)
                dst[i &+ 1] = Self.byte(src[i &+ 1] * k + 0.5)
                dst[i &+ 2] = Self.byte(src[i &+ 2] * k + 0.5)
                dst[i &+ 3] = UInt8(a8)
            }
            i &+= 4
        }
    }

    /// Truncates `v` (already offset by 0.5) to a byte, clamping; NaN gives 0.
    @inline(__always)
    static func byte(_ v: Float) -> UInt8 {
        v >= 255 ? 255 : (v > 0 ? UInt8(v) : 0)
    }
}
