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
    /// `Int` (options from untrusted input must not trap; ``problem`` says what is wrong).
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

    /// The largest output side accepted by ``problem`` (the decoder's default limit too).
    public static let maximumPixelSize = 8192

    /// Why these options cannot be used, as one sentence naming the value, or `nil` when they
    /// are fine: the size must be positive, the scale 1, 2 or 3, and the pixel size at most
    /// ``maximumPixelSize`` (which bounds the memory a mask takes). ``IconMasker`` only returns
    /// an empty image for options it cannot use; callers taking options from users should check.
    public var problem: String? {
        if sizePoints <= 0 { return "the size must be a positive number of points, not \(sizePoints)" }
        if !(1...3).contains(scale) { return "the scale must be 1, 2 or 3, not \(scale)" }
        if sizePoints > MaskOptions.maximumPixelSize / scale {
            return "the size \(sizePoints) pt at \(scale)x is over \(MaskOptions.maximumPixelSize) pixels a side"
        }
        return nil
    }
}
