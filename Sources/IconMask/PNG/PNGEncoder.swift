/// Encodes PNG files (placeholder until the codec lands: always throws).
public enum PNGEncoder {
    /// Encodes straight-alpha RGBA8 pixels as an 8-bit RGBA PNG file.
    public static func encode(_ image: RGBAImage) throws(PNGError) -> [UInt8] {
        throw PNGError(message: "PNG encoding is not built yet")
    }
}
