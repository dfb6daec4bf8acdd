/// Masks app icons the way iOS shows them: resample to N×N, cut to the icon shape with exact
/// anti-aliased coverage, and draw the thin inner stroke that the original x-document-source
/// code adds.
public enum IconMasker {
    /// Scales `image` to fill N×N (N = `options.pixelSize`; non-square input is centre-cropped),
    /// resamples on premultiplied alpha, masks to `options.shape` and strokes the outline.
    ///
    /// Works in bands of rows: resampled, masked and converted to 8 bits one band at a time,
    /// so besides `image` and the result it takes a few MB (no whole-image `Float` copies).
    ///
    /// - Returns: an N×N straight-alpha image; fully transparent when `image` has no pixels.
    /// - Throws: ``MaskOptionsError`` when the size or scale is not usable or N would exceed
    ///   ``MaskOptions/maximumPixelSize`` (see ``MaskOptions/validate()``).
    public static func mask(_ image: RGBAImage, options: MaskOptions) throws(MaskOptionsError) -> RGBAImage {
        try options.validate()
        return mask(image, options: options, bandRows: 128)
    }

    /// ``mask(_:options:)`` for validated options, `bandRows` output rows at a time.
    static func mask(_ image: RGBAImage, options: MaskOptions, bandRows: Int) -> RGBAImage {
        let n = options.pixelSize
        let outlines = Outlines(options)
        var pixels = [UInt8](repeating: 0, count: n * n * 4)
        pixels.withUnsafeMutableBufferPointer { out in
            Resampler.resampleToFill(image, width: n, height: n, filter: options.filter, bandRows: bandRows) { top, band in
                let rows = band.count / (n * 4)
                var banded = PremultipliedImage(width: n, height: rows, pixels: Array(band))
                outlines.apply(to: &banded, top: top, rows: rows)
                banded.pixels.withUnsafeBufferPointer { src in
                    PremultipliedImage.straighten(src, into: UnsafeMutableBufferPointer(rebasing: out[(top * n * 4)...].prefix(src.count)))
                }
            }
        }
        return RGBAImage(width: n, height: n, pixels: pixels)
    }

    /// Applies the shape and stroke of `options` to an already resampled square image.
    ///
    /// The model is `reference_mask.py`'s, composited by area: the stroke band is the shape minus
    /// the same shape inset by half the stroke width w (radius r − w/2), so
    /// `RGB' = (cov_inset + 0.9 · cov_band) · RGB` and `A' = cov_inset · A + cov_band · (0.1 + 0.9 · A)`,
    /// which is 10 % black drawn over the image inside the band, clipped to the shape.
    /// - Precondition: `image` is `pixelSize × pixelSize`.
    public static func apply(_ options: MaskOptions, to image: inout PremultipliedImage) {
        apply(options, to: &image, bandRows: 256)
    }

    /// ``apply(_:to:)`` rasterising and compositing `bandRows` rows at a time, so the coverage
    /// of an 8192 px icon takes 2 × 8 MB instead of 2 × 256 MB (plus as much again for the
    /// rasteriser's cells).
    static func apply(_ options: MaskOptions, to image: inout PremultipliedImage, bandRows: Int) {
        let n = options.pixelSize
        precondition(image.width == n && image.height == n, "IconMasker: image is not \(n)×\(n)")
        guard n > 0 else { return }
        let outlines = Outlines(options)
        let band = max(bandRows, 1)
        var top = 0
        while top < n {
            let rows = min(band, n - top)
            outlines.apply(to: &image, top: top, rows: rows, firstPixel: top * n)
            top += rows
        }
    }

    /// The flattened outer outline and, when stroked, the inner one of an N×N mask.
    private struct Outlines {
        let n: Int
        let outer: [[PathPoint]]
        let inner: [[PathPoint]]?  // nil: no stroke, the inside is the whole shape

        init(_ options: MaskOptions) {
            n = options.pixelSize
            let size = Double(n), r = Double(options.cornerRadiusPixels)
            outer = options.shape.outline(x: 0, y: 0, width: size, height: size, radius: r).flattened()
            if options.stroke, options.strokeWidthPixels > 0 {
                let h = Double(options.strokeWidthPixels) / 2
                inner = options.shape.outline(x: h, y: h, width: size - 2 * h, height: size - 2 * h,
                                              radius: max(r - h, 0)).flattened()
            } else {
                inner = nil
            }
        }

        /// Rasterises rows `top ..< top + rows` and composites them onto `image` from pixel `firstPixel`.
        func apply(to image: inout PremultipliedImage, top: Int, rows: Int, firstPixel: Int = 0) {
            let outerBand = CoverageRasteriser.rasterise(outer, width: n, height: rows, top: top)
            let innerBand = inner.map { CoverageRasteriser.rasterise($0, width: n, height: rows, top: top) } ?? outerBand
            IconMasker.composite(&image, outer: outerBand, inner: innerBand, firstPixel: firstPixel)
        }
    }

    /// Composites by area: inside `inner` the image is kept, in `outer − inner` 10 % black is
    /// drawn over it, outside `outer` it is cleared. Pixels wholly inside `inner` are skipped.
    /// The masks cover pixels `firstPixel ..< firstPixel + outer.values.count` of the image.
    static func composite(_ image: inout PremultipliedImage, outer: CoverageMask, inner: CoverageMask,
                          firstPixel: Int = 0) {
        outer.values.withUnsafeBufferPointer { cov in
            inner.values.withUnsafeBufferPointer { covIn in
                image.pixels.withUnsafeMutableBufferPointer { px in
                    for i in 0..<cov.count {
                        let ci = covIn[i]
                        if ci >= 1 { continue }
                        let band = max(cov[i] - ci, 0)
                        let k = ci + 0.9 * band
                        let p = (firstPixel &+ i) &* 4
                        px[p] *= k
                        px[p &+ 1] *= k
                        px[p &+ 2] *= k
                        px[p &+ 3] = ci * px[p &+ 3] + band * (0.1 + 0.9 * px[p &+ 3])
                    }
                }
            }
        }
    }
}
