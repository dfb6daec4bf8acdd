extension PNGHeader {
    /// Bytes of filtered image data the header implies: every row of every Adam7 pass, each
    /// with its filter-type byte (what the image data must inflate to).
    public var filteredDataSize: Int {
        Pass.passes(self).reduce(0) { $0 + $1.filteredSize(self) }
    }

    /// The largest file this header can plausibly need, for reading streams that do not say
    /// how long they are: the filtered data stored uncompressed (DEFLATE stored blocks add
    /// 5 bytes per 64 KiB, small IDAT chunks 12 bytes each: 1/128 covers chunks of 2 KiB and
    /// up) plus 16 MiB for ancillary chunks (ICC profiles, Exif, text). Callers cap it with
    /// their own input limit; bytes past it are not part of any sensible PNG of this size.
    public var largestPlausibleFileSize: Int {
        let filtered = filteredDataSize
        return filtered + filtered / 128 + (16 << 20)
    }

    /// How many leading bytes ``PNGDecoder/header(_:)`` needs at most: the signature, a
    /// `CgBI` chunk (16 bytes) and `IHDR` (25 bytes).
    public static let prefixSize = 8 + 16 + 25
}
