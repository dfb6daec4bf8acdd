/// An image of 8-bit RGBA pixels with straight (not premultiplied) alpha, row-major,
/// 4 bytes a pixel, no row padding.
public struct RGBAImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width × height × 4` bytes: R, G, B, A for each pixel, rows top to bottom.
    public var pixels: [UInt8]

    /// Wraps pixels that are already laid out as described on ``pixels``.
    /// - Precondition: `pixels.count == width * height * 4`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 4,
                     "RGBAImage: pixel count does not match \(width)×\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}
