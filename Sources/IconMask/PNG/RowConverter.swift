/// Turns reconstructed (unfiltered) rows of any PNG format into straight RGBA8 pixels:
/// sub-byte samples are scaled to 8 bits exactly (v·255/(2^d−1)), 16-bit samples are
/// reduced with rounding ((v·255 + 32767)/65535), palettes and tRNS are applied.
struct RowConverter {
    private let depth: Int
    private let colourType: PNGHeader.ColourType
    /// Palette as 256 RGBA entries (alpha from tRNS), entries past `paletteCount` unused.
    private var palette: [UInt8] = []
    private var paletteCount = 0
    /// The tRNS key for grey (1 sample) or RGB (3 samples) images, compared to the raw samples.
    private var key: (UInt16, UInt16, UInt16)?

    init(header: PNGHeader, file: UnsafeBufferPointer<UInt8>, palette plte: Range<Int>?, transparency trns: Range<Int>?) {
        depth = header.bitDepth
        colourType = header.colourType
        let f = file.baseAddress!
        func sample(_ i: Int) -> UInt16 { UInt16(f[i]) << 8 | UInt16(f[i + 1]) }
        switch header.colourType {
        case .palette:
            if let plte {
                paletteCount = plte.count / 3
                palette = [UInt8](repeating: 0, count: 1024)
                for e in 0..<paletteCount {
                    palette[e * 4] = f[plte.lowerBound + e * 3]
                    palette[e * 4 + 1] = f[plte.lowerBound + e * 3 + 1]
                    palette[e * 4 + 2] = f[plte.lowerBound + e * 3 + 2]
                    palette[e * 4 + 3] = 255
                }
                if let trns {
                    for e in 0..<trns.count { palette[e * 4 + 3] = f[trns.lowerBound + e] }
                }
            }
        case .grey:
            if let trns { let g = sample(trns.lowerBound); key = (g, g, g) }
        case .rgb:
            if let trns { key = (sample(trns.lowerBound), sample(trns.lowerBound + 2), sample(trns.lowerBound + 4)) }
        case .greyAlpha, .rgba:
            break
        }
    }

    @inline(__always) private static func reduce16(_ hi: UInt8, _ lo: UInt8) -> UInt8 {
        UInt8(truncatingIfNeeded: ((UInt32(hi) << 8 | UInt32(lo)) &* 255 &+ 32767) / 65535)
    }

    /// Converts `count` pixels of the row at `row` into RGBA, writing pixel k at
    /// `out + 4·k·step`. Throws for a palette index past the end of PLTE.
    func convert(row: UnsafePointer<UInt8>, count: Int, out: UnsafeMutablePointer<UInt8>, step: Int) throws(PNGError) {
        let ostep = 4 &* step
        var o = out
        switch (colourType, depth) {
        case (.rgba, 8):
            for k in 0..<count {
                let p = row + 4 &* k
                o[0] = p[0]; o[1] = p[1]; o[2] = p[2]; o[3] = p[3]
                o += ostep
            }
        case (.rgba, _):
            for k in 0..<count {
                let p = row + 8 &* k
                o[0] = Self.reduce16(p[0], p[1]); o[1] = Self.reduce16(p[2], p[3])
                o[2] = Self.reduce16(p[4], p[5]); o[3] = Self.reduce16(p[6], p[7])
                o += ostep
            }
        case (.greyAlpha, 8):
            for k in 0..<count {
                let p = row + 2 &* k
                o[0] = p[0]; o[1] = p[0]; o[2] = p[0]; o[3] = p[1]
                o += ostep
            }
        case (.greyAlpha, _):
            for k in 0..<count {
                let p = row + 4 &* k
                let g = Self.reduce16(p[0], p[1])
                o[0] = g; o[1] = g; o[2] = g; o[3] = Self.reduce16(p[2], p[3])
                o += ostep
            }
        case (.rgb, 8):
            for k in 0..<count {
                let p = row + 3 &* k
                o[0] = p[0]; o[1] = p[1]; o[2] = p[2]
                o[3] = key.map { UInt16(p[0]) == $0.0 && UInt16(p[1]) == $0.1 && UInt16(p[2]) == $0.2 ? 0 : 255 } ?? 255
                o += ostep
            }
        case (.rgb, _):
            for k in 0..<count {
                let p = row + 6 &* k
                o[0] = Self.reduce16(p[0], p[1]); o[1] = Self.reduce16(p[2], p[3]); o[2] = Self.reduce16(p[4], p[5])
                o[3] = key.map {
                    UInt16(p[0]) << 8 | UInt16(p[1]) == $0.0 && UInt16(p[2]) << 8 | UInt16(p[3]) == $0.1
                        && UInt16(p[4]) << 8 | UInt16(p[5]) == $0.2 ? 0 : 255
                } ?? 255
                o += ostep
            }
        case (.grey, 16):
            for k in 0..<count {
                let p = row + 2 &* k
                let g = Self.reduce16(p[0], p[1])
                o[0] = g; o[1] = g; o[2] = g
                o[3] = key.map { UInt16(p[0]) << 8 | UInt16(p[1]) == $0.0 ? 0 : 255 } ?? 255
                o += ostep
            }
        case (.grey, _):
            let scale = UInt8(255 / ((1 << depth) - 1))
            for k in 0..<count {
                let v = Self.sample(row, k, depth)
                let g = v &* scale
                o[0] = g; o[1] = g; o[2] = g
                o[3] = key.map { UInt16(v) == $0.0 ? 0 : 255 } ?? 255
                o += ostep
            }
        case (.palette, _):
            try palette.withUnsafeBufferPointer { (table) throws(PNGError) in
                let t = table.baseAddress!
                for k in 0..<count {
                    let v = Int(Self.sample(row, k, depth))
                    guard v < paletteCount else {
                        throw PNGError(.palette, "palette index \(v) is out of range: PLTE has \(paletteCount) "
                                       + (paletteCount == 1 ? "entry" : "entries"))
                    }
                    let e = t + 4 &* v
                    o[0] = e[0]; o[1] = e[1]; o[2] = e[2]; o[3] = e[3]
                    o += ostep
                }
            }
        }
    }

    /// Sample `k` of a row of `depth`-bit samples (depth 1, 2, 4 or 8), most significant bits first.
    @inline(__always) private static func sample(_ row: UnsafePointer<UInt8>, _ k: Int, _ depth: Int) -> UInt8 {
        if depth == 8 { return row[k] }
        let bit = k &* depth
        let shift = 8 &- depth &- (bit & 7)
        return (row[bit >> 3] >> UInt8(shift)) & UInt8((1 << depth) - 1)
    }
}
