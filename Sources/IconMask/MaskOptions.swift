/// What ``IconMasker`` produces: the output size, shape and stroke.
public struct MaskOptions: Sendable, Equatable {
    /// Output size in points (default 29, the x-document-source icon size).
    public var sizePoints: Int
    /// Pixels per point: 1, 2 or 3 (default 1).
    public var scale: Int
    /// The outline the icon is cut to (default ``IconShape/continuous``).
    public var shape: IconShape
    /// Whether to draw the 1 pt, 10 % black line along the inside of the outline (default on).
    public var stroke: Bool
    /// The resampling filter (default ``ResampleFilter/lanczos3``).
    public var filter: ResampleFilter

    /// Makes options; the defaults are those of `xds mask`.
    public init(sizePoints: Int = 29, scale: Int = 1, shape: IconShape = .continuous, stroke: Bool = true,
                filter: ResampleFilter = .lanczos3) {
        self.sizePoints = sizePoints
        self.scale = scale
        self.shape = shape
        self.stroke = stroke
        self.filter = filter
    }

    /// The output side in pixels: `sizePoints × scale`, or 0 when the product does not fit in
    /// `Int` (options from untrusted input must not trap; ``validate()`` says what is wrong).
    public var pixelSize: Int {
        let (product, overflow) = sizePoints.multipliedReportingOverflow(by: scale)
        return overflow ? 0 : product
    }

    /// The corner radius in pixels: round(0.225 × size_pt) × scale, half rounds up
    /// (0.225 × 180 = 40.5 → 41), computed in integers so no binary fraction can tip it; 0 for
    /// sizes past `Int.max / 1000` or a product that overflows.
    public var cornerRadiusPixels: Int {
        guard sizePoints > 0, sizePoints <= Int.max / 1000 else { return 0 }
        let (radius, overflow) = ((225 * sizePoints + 500) / 1000).multipliedReportingOverflow(by: scale)
        return overflow ? 0 : radius
    }

    /// The stroke width in pixels: 1 pt, i.e. `scale` pixels.
    public var strokeWidthPixels: Int { scale }

    /// The largest output side, in pixels, that ``validate()`` accepts: 2048 (1024 pt at 2x,
    /// 682 pt at 3x; the largest icon iOS uses is 1024 px). It bounds the memory a mask
    /// takes: the output and the band buffers grow with its square. Input images are bounded
    /// separately, by the decoder's `maxDimension` (8192 px a side by default).
    public static let maximumPixelSize = 2048

    /// Checks that these options can be used: the size positive, the scale 1, 2 or 3, and the
    /// pixel size at most ``maximumPixelSize``. ``IconMasker/mask(_:options:)`` calls it and
    /// throws the same error.
    /// - Throws: ``MaskOptionsError`` saying which value is wrong.
    public func validate() throws(MaskOptionsError) {
        if sizePoints <= 0 { throw MaskOptionsError(.sizeNotPositive, self) }
        if !(1...3).contains(scale) { throw MaskOptionsError(.scaleNotSupported, self) }
        if sizePoints > MaskOptions.maximumPixelSize / scale {
            throw MaskOptionsError(.tooLarge(limit: MaskOptions.maximumPixelSize), self)
        }
    }
}
