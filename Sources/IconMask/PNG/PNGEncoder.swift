/// Writes PNG files: 8-bit RGBA (colour type 6), non-interlaced, one IDAT.
///
/// Each row gets the filter (None, Sub, Up, Average or Paeth) whose output has the smallest
/// sum of absolute values as signed bytes — the heuristic the PNG specification recommends
/// and libpng uses — and the filtered rows are compressed as one zlib stream with libdeflate
/// at level 6: measured at half the time of zlib level 6 for sizes within 1 % (a 180 px mask:
/// 0.80 ms vs 1.56 ms, 13 846 vs 13 731 bytes). CRCs are real CRC-32s.
public enum PNGEncoder {
    /// Encodes straight-alpha RGBA8 pixels as an 8-bit RGBA PNG file.
    ///
    /// - Throws: ``PNGError`` when the image is empty (PNG needs at least 1×1 pixels), larger
    ///   than PNG allows (2³¹ − 1 per side), or the compressor fails.
    public static func encode(_ image: RGBAImage) throws(PNGError) -> [UInt8] {
        let width = image.width, height = image.height
        guard width > 0, height > 0 else {
            throw PNGError(message: "cannot encode an empty \(width)×\(height) image: PNG needs at least 1×1 pixels")
        }
        guard width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw PNGError(message: "cannot encode a \(width)×\(height) image: PNG allows at most 2147483647 pixels a side")
        }
        let filtered = filterRows(image)
        let compressed = try ZlibCompressor.compress(filtered)

        var out = [UInt8]()
        out.reserveCapacity(8 + 25 + compressed.count + 12 + 12)
        out += [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = [UInt8]()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [8, 6, 0, 0, 0]  // depth 8, RGBA, deflate, adaptive filtering, no interlace
        out.appendChunk("IHDR", header)
        out.appendChunk("IDAT", compressed)
        out.appendChunk("IEND", [])
        return out
    }

    /// The filter-type byte plus filtered bytes for every row, each row's filter chosen by the
    /// minimum sum of absolute differences.
    static func filterRows(_ image: RGBAImage) -> [UInt8] {
        let rowBytes = image.width * 4
        var out = [UInt8](repeating: 0, count: (rowBytes + 1) * image.height)
        image.pixels.withUnsafeBufferPointer { px in
            out.withUnsafeMutableBufferPointer { out in
                let zeros = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: rowBytes)
                zeros.initialize(repeating: 0)
                defer { zeros.deallocate() }
                for y in 0..<image.height {
                    let cur = UnsafeBufferPointer(rebasing: px[(y * rowBytes)..<((y + 1) * rowBytes)])
                    let prev = y == 0 ? UnsafeBufferPointer(zeros)
                        : UnsafeBufferPointer(rebasing: px[((y - 1) * rowBytes)..<(y * rowBytes)])
                    let best = bestFilter(cur, prev)
                    let o = y * (rowBytes + 1)
                    out[o] = UInt8(best)
                    let dst = UnsafeMutableBufferPointer(rebasing: out[(o + 1)..<(o + 1 + rowBytes)])
                    // One loop per filter type so the choice is not re-made for every byte.
                    switch best {
                    case 0: for i in 0..<rowBytes { dst[i] = filtered(0, cur, prev, i) }
                    case 1: for i in 0..<rowBytes { dst[i] = filtered(1, cur, prev, i) }
                    case 2: for i in 0..<rowBytes { dst[i] = filtered(2, cur, prev, i) }
                    case 3: for i in 0..<rowBytes { dst[i] = filtered(3, cur, prev, i) }
                    default: for i in 0..<rowBytes { dst[i] = filtered(4, cur, prev, i) }
                    }
                }
            }
        }
        return out
    }

    /// The filter type whose output has the least Σ |byte as Int8| (the first on a tie).
    static func bestFilter(_ cur: UnsafeBufferPointer<UInt8>, _ prev: UnsafeBufferPointer<UInt8>) -> Int {
        let s = filterCosts(cur, prev)
        var best = 0, bestCost = s.0
        if s.1 < bestCost { best = 1; bestCost = s.1 }
        if s.2 < bestCost { best = 2; bestCost = s.2 }
        if s.3 < bestCost { best = 3; bestCost = s.3 }
        if s.4 < bestCost { best = 4 }
        return best
    }

    /// Σ |byte as Int8| of the row under each of the five filters, all summed in one pass:
    /// 16 bytes at a time in `Int16` lanes (exact: the same sums as byte by byte), the first
    /// pixel and the tail byte by byte.
    static func filterCosts(_ cur: UnsafeBufferPointer<UInt8>, _ prev: UnsafeBufferPointer<UInt8>)
        -> (Int, Int, Int, Int, Int) {
        var s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0
        @inline(__always) func add(_ i: Int) {
            @inline(__always) func cost(_ v: UInt8) -> Int { Int(Int8(bitPattern: v).magnitude) }
            let x = cur[i], b = prev[i]
            let a: UInt8 = i >= 4 ? cur[i &- 4] : 0
            let c: UInt8 = i >= 4 ? prev[i &- 4] : 0
            s0 &+= cost(x)
            s1 &+= cost(x &- a)
            s2 &+= cost(x &- b)
            s3 &+= cost(x &- UInt8((UInt16(a) &+ UInt16(b)) >> 1))
            s4 &+= cost(x &- paeth(a, b, c))
        }
        let n = cur.count
        var i = 0
        while i < min(4, n) { add(i); i &+= 1 }
        if n >= 20 {
            let cp = UnsafeRawPointer(cur.baseAddress!), pp = UnsafeRawPointer(prev.baseAddress!)
            var v0 = SIMD16<Int16>(), v1 = v0, v2 = v0, v3 = v0, v4 = v0
            var chunks = 0
            while i &+ 16 <= n {
                let x = widen(cp, i), a = widen(cp, i &- 4), b = widen(pp, i), c = widen(pp, i &- 4)
                // Paeth: p = a + b − c; |p − a| = |b − c|, |p − b| = |a − c|, |p − c| = |a + b − 2c|.
                let pa = magnitude(b &- c), pb = magnitude(a &- c), pc = magnitude(a &+ b &- c &- c)
                // Selections by all-ones masks (replacing(with:where:) compiles to a loop per lane).
                let useB = notLess(pc, pb), useA = notLess(pb, pa) & notLess(pc, pa)
                var pred = c ^ ((c ^ b) & useB)
                pred = pred ^ ((pred ^ a) & useA)
                v0 &+= byteCost(x)
                v1 &+= byteCost(x &- a)
                v2 &+= byteCost(x &- b)
                v3 &+= byteCost(x &- ((a &+ b) &>> 1))
                v4 &+= byteCost(x &- pred)
                chunks &+= 1
                i &+= 16
                // A lane gains at most 128 a chunk and wrappedSum adds 16 lanes in Int16:
                // flush every 15 chunks (16 × 128 × 15 < 2¹⁵).
                if chunks == 15 || i &+ 16 > n {
                    s0 &+= Int(v0.wrappedSum()); s1 &+= Int(v1.wrappedSum()); s2 &+= Int(v2.wrappedSum())
                    s3 &+= Int(v3.wrappedSum()); s4 &+= Int(v4.wrappedSum())
                    v0 = .zero; v1 = .zero; v2 = .zero; v3 = .zero; v4 = .zero
                    chunks = 0
                }
            }
        }
        while i < n { add(i); i &+= 1 }
        return (s0, s1, s2, s3, s4)
    }

    /// 16 bytes at `p + i` widened to `Int16` lanes (element by element, which the optimiser
    /// turns into inline unpacking; the generic SIMD conversion is an out-of-line call).
    @inline(__always)
    private static func widen(_ p: UnsafeRawPointer, _ i: Int) -> SIMD16<Int16> {
        let u = (p + i).loadUnaligned(as: SIMD16<UInt8>.self)
        var r = SIMD16<Int16>()
        for j in 0..<16 { r[j] = Int16(u[j]) }
        return r
    }

    /// All ones in the lanes where `x >= y`, else zero (both within ±2¹⁴).
    @inline(__always)
    private static func notLess(_ x: SIMD16<Int16>, _ y: SIMD16<Int16>) -> SIMD16<Int16> { ~((x &- y) &>> 15) }

    /// |v| per lane, branch-free.
    @inline(__always)
    private static func magnitude(_ v: SIMD16<Int16>) -> SIMD16<Int16> {
        let sign = v &>> 15
        return (v ^ sign) &- sign
    }

    /// |byte as Int8| of the low byte of each lane: the cost of one filtered byte.
    @inline(__always)
    private static func byteCost(_ d: SIMD16<Int16>) -> SIMD16<Int16> { magnitude((d &<< 8) &>> 8) }

    /// Byte `i` of a row under filter `f` (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth), 4 bytes a pixel.
    @inline(__always)
    static func filtered(_ f: Int, _ cur: UnsafeBufferPointer<UInt8>, _ prev: UnsafeBufferPointer<UInt8>,
                         _ i: Int) -> UInt8 {
        let x = cur[i]
        let a: UInt8 = i >= 4 ? cur[i &- 4] : 0
        let b = prev[i]
        switch f {
        case 0: return x
        case 1: return x &- a
        case 2: return x &- b
        case 3: return x &- UInt8((UInt16(a) &+ UInt16(b)) >> 1)
        default:
            let c: UInt8 = i >= 4 ? prev[i &- 4] : 0
            return x &- paeth(a, b, c)
        }
    }
}

fileprivate extension [UInt8] {
    mutating func appendBigEndian(_ v: UInt32) {
        append(UInt8(v >> 24)); append(UInt8((v >> 16) & 0xFF)); append(UInt8((v >> 8) & 0xFF)); append(UInt8(v & 0xFF))
    }

    /// Appends a chunk: length, type, data, CRC-32 of type and data.
    mutating func appendChunk(_ type: String, _ data: [UInt8]) {
        appendBigEndian(UInt32(data.count))
        let start = count
        append(contentsOf: type.utf8)
        append(contentsOf: data)
        let crc = withUnsafeBufferPointer { crc32($0.baseAddress! + start, count: $0.count - start) }
        appendBigEndian(crc)
    }
}
