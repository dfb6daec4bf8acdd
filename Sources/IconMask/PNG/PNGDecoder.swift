/// Decodes PNG files (placeholder until the codec lands: always throws).
public enum PNGDecoder {
    /// Decodes a whole PNG file held in memory into straight-alpha RGBA8 pixels.
    public static func decode(_ bytes: [UInt8], maxDimension: Int = 8192) throws(PNGError) -> RGBAImage {
        throw PNGError(message: "PNG decoding is not built yet")
    }
}
