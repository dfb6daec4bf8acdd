/// The facts a PNG's `IHDR` chunk states, plus whether the file is Apple's CgBI variant.
public struct PNGHeader: Sendable, Equatable {
    /// PNG colour types (PNG spec §11.2.2).
    public enum ColourType: UInt8, Sendable {
        /// Greyscale, 1/2/4/8/16 bits.
        case grey = 0
        /// RGB triples, 8/16 bits.
        case rgb = 2
        /// Palette indices, 1/2/4/8 bits.
        case palette = 3
        /// Greyscale and alpha, 8/16 bits.
        case greyAlpha = 4
        /// RGBA, 8/16 bits.
        case rgba = 6

        /// Samples per pixel.
        public var channels: Int {
            switch self {
            case .grey, .palette: 1
            case .greyAlpha: 2
            case .rgb: 3
            case .rgba: 4
            }
        }

        /// The bit depths PNG allows for this colour type.
        public var allowedBitDepths: [Int] {
            switch self {
            case .grey: [1, 2, 4, 8, 16]
            case .palette: [1, 2, 4, 8]
            case .rgb, .greyAlpha, .rgba: [8, 16]
            }
        }
    }

    /// Width in pixels (1 ... 2³¹−1).
    public let width: Int
    /// Height in pixels (1 ... 2³¹−1).
    public let height: Int
    /// Bits per sample: 1, 2, 4, 8 or 16.
    public let bitDepth: Int
    /// How samples make up a pixel.
    public let colourType: ColourType
    /// Whether the image data is Adam7-interlaced.
    public let interlaced: Bool
    /// Whether a `CgBI` chunk precedes `IHDR` (Apple's iOS variant: raw deflate, BGRA, premultiplied).
    public let isCgBI: Bool

    /// Bits per pixel in the filtered data.
    var bitsPerPixel: Int { bitDepth * colourType.channels }
    /// Bytes per complete pixel for filtering (at least 1, PNG spec §9.2).
    var filterStride: Int { max(1, bitsPerPixel >> 3) }
    /// Bytes in one filtered row of `width` pixels, without the filter-type byte.
    func rowBytes(_ width: Int) -> Int { (width * bitsPerPixel + 7) >> 3 }

    /// Validates the 13 data bytes of `IHDR`.
    init(ihdr p: UnsafePointer<UInt8>, isCgBI: Bool) throws(PNGError) {
        let w = Int(readBigEndian32(p)), h = Int(readBigEndian32(p + 4))
        let depth = Int(p[8]), type = p[9], compression = p[10], filter = p[11], interlace = p[12]
        guard w > 0, h > 0 else {
            throw PNGError(.header, "IHDR gives a zero image size (\(w)×\(h))")
        }
        guard w <= 0x7FFF_FFFF, h <= 0x7FFF_FFFF else {
            throw PNGError(.header, "IHDR image size \(w)×\(h) exceeds the PNG maximum of 2^31-1")
        }
        guard let colourType = ColourType(rawValue: type) else {
            throw PNGError(.header, "IHDR colour type \(type) is not a PNG colour type (0, 2, 3, 4 or 6)")
        }
        guard colourType.allowedBitDepths.contains(depth) else {
            throw PNGError(.header, "IHDR bit depth \(depth) is not allowed for colour type \(type)")
        }
        guard compression == 0 else {
            throw PNGError(.header, "IHDR compression method \(compression) is unknown (only 0 exists)")
        }
        guard filter == 0 else {
            throw PNGError(.header, "IHDR filter method \(filter) is unknown (only 0 exists)")
        }
        guard interlace <= 1 else {
            throw PNGError(.header, "IHDR interlace method \(interlace) is unknown (0 or 1)")
        }
        if isCgBI && !(depth == 8 && (colourType == .rgb || colourType == .rgba)) {
            throw PNGError(.header, "CgBI image is colour type \(type) at \(depth) bits; only 8-bit RGB and RGBA are supported")
        }
        self.width = w
        self.height = h
        self.bitDepth = depth
        self.colourType = colourType
        self.interlaced = interlace == 1
        self.isCgBI = isCgBI
    }
}

/// Reads a big-endian 32-bit value.
@inline(__always)
func readBigEndian32(_ p: UnsafePointer<UInt8>) -> UInt32 {
    UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
}
