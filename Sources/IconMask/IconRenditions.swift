/// Unmasked icon sizes from one decoded image, for publishing (readers mask them themselves).
public enum IconRenditions {
    /// `image` scaled to fill each N×N size (centre-cropped when not square), unmasked, no stroke:
    /// the same pixels as ``IconMasker/mask(_:options:)`` with shape ``IconShape/none`` and
    /// `stroke` false at N pt, scale 1, computed from the one decoded image; a size equal to the
    /// image's own (square) size returns the image unchanged (no resampling).
    ///
    /// Shape `.none` without a stroke covers every pixel fully, so masking changes nothing and
    /// each size is ``IconMasker``'s resampling (premultiplied, banded, the default Lanczos-3
    /// filter) straightened to 8 bits, without rasterising an outline. The one exception is the
    /// image's own size: it is returned as is, so the colour under fully transparent pixels is
    /// kept there, where `mask` would clear it.
    ///
    /// - Returns: one image per entry of `sizes`, in the same order.
    /// - Throws: ``MaskOptionsError`` for the first size that is not positive or is over
    ///   ``MaskOptions/maximumPixelSize`` (the options it names are `sizePoints` N at scale 1).
    public static func resized(_ image: RGBAImage, toPixelSizes sizes: [Int]) throws(MaskOptionsError) -> [RGBAImage] {
        for n in sizes { try options(n).validate() }
        return sizes.map { n in
            if image.width == n && image.height == n { return image }
            return resampled(image, n)
        }
    }

    /// `IconMasker.mask(_:options:bandRows:)` without the outline: the same resampling and
    /// straightening, band by band, skipping the rasterising of a rectangle that covers every
    /// pixel (a test checks the two agree byte for byte).
    private static func resampled(_ image: RGBAImage, _ n: Int) -> RGBAImage {
        var pixels = [UInt8](repeating: 0, count: n * n * 4)
        pixels.withUnsafeMutableBufferPointer { out in
            Resampler.resampleToFill(image, width: n, height: n, filter: options(n).filter, bandRows: 128) { top, band in
                PremultipliedImage.straighten(UnsafeBufferPointer(band),
                                              into: UnsafeMutableBufferPointer(rebasing: out[(top * n * 4)...].prefix(band.count)))
            }
        }
        return RGBAImage(width: n, height: n, pixels: pixels)
    }

    /// The options whose mask these renditions match: N pt at 1x, no shape, no stroke.
    private static func options(_ n: Int) -> MaskOptions {
        MaskOptions(sizePoints: n, scale: 1, shape: .none, stroke: false)
    }
}
