import Foundation

/// A tiny, independent PNG writer for tests: stored (uncompressed) deflate blocks, CRC-32 and
/// Adler-32 written out here, filters applied forwards. It shares no code with the decoder.
public enum TestPNG {
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    public static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    /// One chunk: length, type, data, CRC (or a deliberately wrong CRC).
    public static func chunk(_ type: String, _ data: [UInt8], badCRC: Bool = false) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body) ^ (badCRC ? 1 : 0))
    }

    public static func ihdr(width: Int, height: Int, depth: Int, type: Int, interlace: Int = 0,
                     compression: UInt8 = 0, filter: UInt8 = 0) -> [UInt8] {
        chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height))
              + [UInt8(depth), UInt8(type), compression, filter, UInt8(interlace)])
    }

    /// Raw DEFLATE made of stored blocks (≤ 65535 bytes each).
    public static func rawStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        repeat {
            let n = min(65535, data.count - i)
            let final: UInt8 = i + n == data.count ? 1 : 0
            out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[i..<i + n]
            i += n
        } while i < data.count
        return out
    }

    public static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for x in data { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        return b << 16 | a
    }

    /// zlib stream (CMF 0x78, FLG 0x01) of stored blocks with its Adler-32.
    public static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        [0x78, 0x01] + rawStored(data) + be32(adler32(data))
    }

    /// A whole file: signature, IHDR, the extra chunks, IDATs of `stream` split at `splits`
    /// (offsets; repeats give zero-length IDATs), IEND.
    public static func file(ihdr: [UInt8], before: [[UInt8]] = [], stream: [UInt8], splits: [Int] = [],
                     after: [[UInt8]] = [], cgbi: Bool = false) -> [UInt8] {
        var out = signature
        if cgbi { out += chunk("CgBI", [0x50, 0x00, 0x20, 0x06]) }
        out += ihdr
        for c in before { out += c }
        var last = 0
        for s in splits.sorted() + [stream.count] {
            out += chunk("IDAT", Array(stream[last..<s]))
            last = s
        }
        for c in after { out += c }
        return out + chunk("IEND", [])
    }

    /// Filters one row forwards (PNG spec §9) against the previous raw row.
    public static func filter(_ type: UInt8, _ row: [UInt8], prior: [UInt8]?, stride: Int) -> [UInt8] {
        let up = prior ?? [UInt8](repeating: 0, count: row.count)
        return (0..<row.count).map { i in
            let a = i >= stride ? Int(row[i - stride]) : 0
            let b = Int(up[i])
            let c = i >= stride ? Int(up[i - stride]) : 0
            let predictor: Int
            switch type {
            case 1: predictor = a
            case 2: predictor = b
            case 3: predictor = (a + b) / 2
            case 4:
                let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
            default: predictor = 0
            }
            return UInt8((Int(row[i]) - predictor) & 0xFF)
        }
    }

    /// Adam7 pass origins and steps (x0, y0, dx, dy).
    public static let adam7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]

    /// Filtered image data for samples `samples[y][x]` (each pixel `channels` values of `depth`
    /// bits), row filters cycling through `filters`.
    public static func imageData(samples: [[[Int]]], width: Int, height: Int, depth: Int, channels: Int,
                          interlaced: Bool, filters: [UInt8] = [0, 1, 2, 3, 4]) -> [UInt8] {
        let passes = interlaced ? adam7 : [(0, 0, 1, 1)]
        let bpp = max(1, depth * channels / 8)
        var out: [UInt8] = []
        var rowIndex = 0
        for (x0, y0, dx, dy) in passes {
            let xs = Array(stride(from: x0, to: width, by: dx))
            let ys = Array(stride(from: y0, to: height, by: dy))
            if xs.isEmpty || ys.isEmpty { continue }
            var prior: [UInt8]? = nil
            for y in ys {
                var bits: [Int] = []  // one entry per sample, packed below
                for x in xs { bits += samples[y][x] }
                var row: [UInt8] = []
                if depth == 16 {
                    for v in bits { row += [UInt8(v >> 8), UInt8(v & 0xFF)] }
                } else {
                    var acc = 0, n = 0
                    for v in bits {
                        acc = acc << depth | v; n += depth
                        if n == 8 { row.append(UInt8(acc)); acc = 0; n = 0 }
                    }
                    if n > 0 { row.append(UInt8(acc << (8 - n))) }
                }
                let f = filters[rowIndex % filters.count]
                rowIndex += 1
                out.append(f)
                out += filter(f, row, prior: prior, stride: bpp)
                prior = row
            }
        }
        return out
    }
}
