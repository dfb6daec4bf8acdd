/// The chunk structure of a PNG file: its header and where the chunks the decoder uses lie.
/// Built by one pass over the file that checks signature, lengths, CRCs and chunk order,
/// without reading or allocating for the image itself.
struct PNGLayout {
    /// The validated `IHDR` (and CgBI flag).
    let header: PNGHeader
    /// Byte range of the `PLTE` data, if present.
    let palette: Range<Int>?
    /// Byte range of a usable `tRNS` data (right length for the colour type), if present.
    let transparency: Range<Int>?
    /// Byte ranges of the `IDAT` data, in file order (zero-length ones left out).
    let imageData: [Range<Int>]

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Checks the signature and reads the optional `CgBI` chunk and `IHDR` only.
    static func header(_ file: UnsafeBufferPointer<UInt8>) throws(PNGError) -> (PNGHeader, next: Int) {
        try requireCompressionLibraries()  // chunk CRCs are computed by libdeflate
        guard let base = file.baseAddress, file.count >= 8 else {
            throw PNGError(.signature, "not a PNG file: \(file.count) bytes is shorter than the PNG signature")
        }
        for i in 0..<8 where base[i] != signature[i] {
            throw PNGError(.signature, "not a PNG file: bad signature at byte \(i)")
        }
        var chunk = try Chunk(file, at: 8)
        var isCgBI = false
        if chunk.type == Chunk.CgBI {
            isCgBI = true
            chunk = try Chunk(file, at: chunk.end)
        }
        guard chunk.type == Chunk.IHDR else {
            throw PNGError(.header, "the first chunk is \(chunk.name), not IHDR")
        }
        guard chunk.data.count == 13 else {
            throw PNGError(.header, "IHDR chunk is \(chunk.data.count) bytes long, not 13")
        }
        return (try PNGHeader(ihdr: base + chunk.data.lowerBound, isCgBI: isCgBI), chunk.end)
    }

    /// Parses the whole chunk structure; refuses images wider or taller than `maxDimension`
    /// as soon as `IHDR` is read.
    init(_ file: UnsafeBufferPointer<UInt8>, maxDimension: Int) throws(PNGError) {
        let (header, start) = try Self.header(file)
        guard header.width <= maxDimension, header.height <= maxDimension else {
            throw PNGError(.tooLarge, "image is \(header.width)×\(header.height) px; the limit is \(maxDimension) px on a side")
        }
        var palette: Range<Int>?
        var transparency: Range<Int>?
        var imageData: [Range<Int>] = []
        var sawIDAT = false, idatEnded = false
        var position = start
        while true {
            guard position < file.count else {
                throw PNGError(.truncated, "truncated: the file ends before the IEND chunk")
            }
            let chunk = try Chunk(file, at: position)
            position = chunk.end
            if sawIDAT && chunk.type != Chunk.IDAT { idatEnded = true }
            switch chunk.type {
            case Chunk.IEND:
                guard sawIDAT else { throw PNGError(.imageData, "no IDAT chunk: the file has no image data") }
                self.header = header
                self.palette = palette
                self.transparency = transparency
                self.imageData = imageData
                return
            case Chunk.IDAT:
                guard !idatEnded else {
                    throw PNGError(.chunk, "IDAT chunks are not consecutive")
                }
                if header.colourType == .palette && palette == nil {
                    throw PNGError(.palette, "palette image has no PLTE chunk before its image data")
                }
                sawIDAT = true
                if !chunk.data.isEmpty { imageData.append(chunk.data) }
            case Chunk.PLTE:
                guard !sawIDAT else { throw PNGError(.palette, "PLTE chunk comes after the image data") }
                guard palette == nil else { throw PNGError(.palette, "more than one PLTE chunk") }
                guard header.colourType != .grey, header.colourType != .greyAlpha else {
                    throw PNGError(.palette, "PLTE chunk in a greyscale image (colour type \(header.colourType.rawValue))")
                }
                let n = chunk.data.count
                guard n > 0, n % 3 == 0, n <= 768 else {
                    throw PNGError(.palette, "PLTE chunk is \(n) bytes long; it must hold 1 to 256 RGB entries (a multiple of 3)")
                }
                palette = chunk.data
            case Chunk.IHDR:
                throw PNGError(.header, "more than one IHDR chunk")
            case Chunk.CgBI:
                throw PNGError(.chunk, "CgBI chunk after IHDR")
            case Chunk.tRNS:
                // Ancillary: like libpng, a tRNS that does not fit is ignored, not fatal.
                if chunk.crcMatches && !sawIDAT && transparency == nil
                    && Self.transparencyFits(chunk.data.count, header, palette) {
                    transparency = chunk.data
                }
            default:
                if chunk.isCritical {
                    throw PNGError(.chunk, "unknown critical chunk \(chunk.name)")
                }
            }
        }
    }

    private static func transparencyFits(_ count: Int, _ header: PNGHeader, _ palette: Range<Int>?) -> Bool {
        switch header.colourType {
        case .grey: count == 2
        case .rgb: count == 6
        case .palette: palette.map { count <= $0.count / 3 } ?? false
        case .greyAlpha, .rgba: false
        }
    }
}

/// One chunk's framing: length, type and CRC checked against the file's bounds.
struct Chunk {
    /// The type as a big-endian 32-bit value (`IHDR` = 0x49484452).
    let type: UInt32
    /// Byte range of the chunk data within the file.
    let data: Range<Int>
    /// Whether the stored CRC matches (always computed for critical chunks and tRNS).
    let crcMatches: Bool

    static let IHDR: UInt32 = 0x4948_4452
    static let PLTE: UInt32 = 0x504C_5445
    static let IDAT: UInt32 = 0x4944_4154
    static let IEND: UInt32 = 0x4945_4E44
    static let tRNS: UInt32 = 0x7452_4E53
    static let CgBI: UInt32 = 0x4367_4249

    /// Offset just past the chunk's CRC.
    var end: Int { data.upperBound + 4 }
    /// Critical chunks have an upper-case first letter (bit 5 of the first byte clear).
    var isCritical: Bool { type & 0x2000_0000 == 0 }
    /// The type as four ASCII letters.
    var name: String {
        String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: type >> $0) }, as: UTF8.self)
    }

    /// Reads the chunk at `offset`; throws if it does not fit in the file, has a bad type or
    /// length, or is critical with a CRC mismatch.
    init(_ file: UnsafeBufferPointer<UInt8>, at offset: Int) throws(PNGError) {
        let base = file.baseAddress!
        let remaining = file.count - offset
        guard remaining >= 12 else {
            throw PNGError(.truncated, "truncated: the file ends inside a chunk header at byte \(offset)")
        }
        let length = Int(readBigEndian32(base + offset))
        let type = readBigEndian32(base + offset + 4)
        for shift in [24, 16, 8, 0] {
            let c = UInt8(truncatingIfNeeded: type >> shift) | 0x20
            guard c >= 0x61 && c <= 0x7A else {
                throw PNGError(.chunk, "invalid chunk type bytes at byte \(offset + 4) (not four letters)")
            }
        }
        self.type = type
        func name() -> String {
            String(decoding: UnsafeBufferPointer(start: base + offset + 4, count: 4), as: UTF8.self)
        }
        guard length <= 0x7FFF_FFFF else {
            throw PNGError(.chunk, "\(name()) chunk length \(length) exceeds the PNG maximum of 2^31-1")
        }
        self.data = offset + 8 ..< offset + 8 + length
        guard length <= remaining - 12 else {
            throw PNGError(.truncated, "truncated: \(name()) chunk at byte \(offset) needs \(length) data bytes, only \(max(0, remaining - 12)) remain")
        }
        let critical = type & 0x2000_0000 == 0
        if critical || type == Self.tRNS {
            let stored = readBigEndian32(base + offset + 8 + length)
            let computed = crc32(base + offset + 4, count: length + 4)
            #if FUZZING
            // Fuzz builds accept any CRC so mutations reach the code behind the chunk framing.
            crcMatches = stored == computed || true
            #else
            crcMatches = stored == computed
            #endif
            if critical && !crcMatches {
                throw PNGError(.checksum, "CRC mismatch in \(name()) chunk")
            }
        } else {
            crcMatches = true
        }
    }
}
