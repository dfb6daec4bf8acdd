/// Unmasked icon sizes from one decoded image, for publishing (readers mask them themselves).
public enum IconRenditions {
    /// `image` scaled to fill each N×N size (centre-cropped when not square), unmasked, no stroke,
    /// with Lanczos-3 on premultiplied alpha, all computed from the one decoded image; a size
    /// equal to the image's own (square) size returns the image unchanged (no resampling).
    ///
    /// The sizes share intermediates instead of each filtering the whole image (whose horizontal
    /// pass costs the same for any output size). With S the image's shorter side:
    ///
    /// * N ≤ S / 11.2 (29, 58 and 87 px from 1024): from one S/4 image, filtered (Lanczos-3,
    ///   unrounded, unclamped) from the image averaged 2×2 as it is read, or from the S/2 image
    ///   below when that is made;
    /// * S / 11.2 < N ≤ S / 5.6 (up to 182 px from 1024), when two or more are asked for: from
    ///   one S/2 image filtered from the source;
    /// * any other size, or a lone size of the second kind: ``IconMasker``'s own resampling,
    ///   so exactly the pixels of ``IconMasker/mask(_:options:)`` with shape ``IconShape/none``
    ///   and `stroke` false at N pt, scale 1.
    ///
    /// An intermediate is always at least 2.8 times the size made from it, and the 2×2 average
    /// at least 5.6 times: each size stays as close to the float64 reference
    /// (`scripts/reference_mask.py --shape none --no-stroke`, MAE of the 8-bit result on
    /// premultiplied 0–255) as Pillow's LANCZOS resize and within 0.02 of the direct
    /// filter's (IconMaskTests check it at 29, 58, 87, 120 and 180 px from the project's icon;
    /// Benchmarks/RESULTS.md has the figures). Intermediates are kept only up to 1024 px a side
    /// (16 MB); beyond that each size is filtered directly.
    ///
    /// The image's own size is returned as is, so the colour under fully transparent pixels is
    /// kept there, where `mask` would clear it.
    ///
    /// - Returns: one image per entry of `sizes`, in the same order.
    /// - Throws: ``MaskOptionsError`` for the first size that is not positive or is over
    ///   ``MaskOptions/maximumPixelSize`` (the options it names are `sizePoints` N at scale 1).
    public static func resized(_ image: RGBAImage, toPixelSizes sizes: [Int]) throws(MaskOptionsError) -> [RGBAImage] {
        for n in sizes { try options(n).validate() }
        let plan = Plan(image, sizes)
        return sizes.map { n in
            if image.width == n && image.height == n { return image }
            return resampled(image, n, from: plan.source(for: n))
        }
    }

    /// Which sizes come from which shared intermediate.
    struct Plan {
        /// The S/2 image (``Resampler/RowSource/level(width:height:pixels:)``), if made.
        let fine: Resampler.RowSource?
        /// The S/4 image, if made.
        let coarse: Resampler.RowSource?
        let fineSizes: Set<Int>, coarseSizes: Set<Int>

        /// Whether an intermediate of `side` px serves size `n`: at least 2.8 times larger, and
        /// at most 1024 px.
        static func serves(_ side: Int, _ n: Int) -> Bool { side <= 1024 && side * 5 >= n * 14 }

        init(_ image: RGBAImage, _ sizes: [Int]) {
            let s = min(image.width, image.height)
            let fineSide = s / 2, coarseSide = s / 4
            let resampled = Set(sizes.filter { !(image.width == $0 && image.height == $0) })
            coarseSizes = resampled.filter { Self.serves(coarseSide, $0) }
            fineSizes = resampled.filter { !Self.serves(coarseSide, $0) && Self.serves(fineSide, $0) }
            // The S/2 image costs as much as filtering one size directly: only worth it for two.
            fine = fineSizes.count >= 2 ? Resampler.level(.straight(image), side: fineSide) : nil
            if coarseSizes.isEmpty {
                coarse = nil
            } else if let fine {
                coarse = Resampler.level(fine, side: coarseSide)
            } else if Resampler.RowSource.canHalve(image) {
                coarse = Resampler.level(.halved(image), side: coarseSide)
            } else {
                coarse = coarseSizes.count >= 2 ? Resampler.level(.straight(image), side: coarseSide) : nil
            }
        }

        /// The intermediate size `n` is made from; nil: the image itself, as ``IconMasker`` does.
        func source(for n: Int) -> Resampler.RowSource? {
            if coarseSizes.contains(n), let coarse { return coarse }
            if fineSizes.contains(n), let fine { return fine }
            return nil
        }
    }

    /// One size, band by band, straightened to 8 bits: from `source`, or when nil
    /// `IconMasker.mask(_:options:bandRows:)`'s resampling without the outline (skipping the
    /// rasterising of a rectangle that covers every pixel; a test checks the two agree byte for byte).
    private static func resampled(_ image: RGBAImage, _ n: Int, from source: Resampler.RowSource?) -> RGBAImage {
        var pixels = [UInt8](repeating: 0, count: n * n * 4)
        pixels.withUnsafeMutableBufferPointer { out in
            let body = { (top: Int, band: UnsafeMutableBufferPointer<Float>) in
                PremultipliedImage.straighten(UnsafeBufferPointer(band),
                                              into: UnsafeMutableBufferPointer(rebasing: out[(top * n * 4)...].prefix(band.count)))
            }
            if let source {
                Resampler.resample(source, width: n, height: n, filter: .lanczos3, bandRows: 128, scaled: true, body: body)
            } else {
                Resampler.resampleToFill(image, width: n, height: n, filter: options(n).filter, bandRows: 128, body: body)
            }
        }
        return RGBAImage(width: n, height: n, pixels: pixels)
    }

    /// The options whose mask the directly filtered sizes match: N pt at 1x, no shape, no stroke.
    private static func options(_ n: Int) -> MaskOptions {
        MaskOptions(sizePoints: n, scale: 1, shape: .none, stroke: false)
    }
}
