/// Reverses PNG filtering (PNG spec §9) one row at a time.
///
/// `source` holds the filtered row, `destination` receives the reconstructed row and may be
/// the same memory as `source` or lie before it (the decoder compacts rows in place): each
/// source byte is read before the destination byte at the same index is written, and the
/// destination never runs ahead of the source. `prior` is the reconstructed previous row
/// (nil for the first row of a pass, where it counts as zeros). `stride` is the filter's
/// bytes per pixel. The caller has checked `filter <= 4`.
@inline(__always)
func unfilterRow(_ filter: UInt8, source: UnsafePointer<UInt8>, destination: UnsafeMutablePointer<UInt8>,
                 prior: UnsafePointer<UInt8>?, count: Int, stride: Int) {
    let s = source, d = destination
    switch filter {
    case 1:  // Sub
        copyBytes(d, s, min(stride, count))
        var i = stride
        while i < count { d[i] = s[i] &+ d[i &- stride]; i &+= 1 }
    case 2:  // Up
        guard let b = prior else { copyBytes(d, s, count); return }
        // 16 bytes a step: each block is loaded whole before it is stored (destination ≤ source).
        let rs = UnsafeRawPointer(s), rb = UnsafeRawPointer(b), rd = UnsafeMutableRawPointer(d)
        var i = 0
        while i &+ 16 <= count {
            let v = rs.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                &+ rb.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            rd.storeBytes(of: v, toByteOffset: i, as: SIMD16<UInt8>.self)
            i &+= 16
        }
        while i < count { d[i] = s[i] &+ b[i]; i &+= 1 }
    case 3:  // Average
        if let b = prior {
            var i = 0
            while i < min(stride, count) { d[i] = s[i] &+ (b[i] >> 1); i &+= 1 }
            while i < count {
                d[i] = s[i] &+ UInt8(truncatingIfNeeded: (UInt16(d[i &- stride]) &+ UInt16(b[i])) >> 1)
                i &+= 1
            }
        } else {
            copyBytes(d, s, min(stride, count))
            var i = stride
            while i < count { d[i] = s[i] &+ (d[i &- stride] >> 1); i &+= 1 }
        }
    case 4:  // Paeth; with no prior row it predicts from the left byte only, i.e. Sub.
        guard let b = prior else {
            unfilterRow(1, source: s, destination: d, prior: nil, count: count, stride: stride)
            return
        }
        var i = 0
        while i < min(stride, count) { d[i] = s[i] &+ b[i]; i &+= 1 }
        while i < count {
            d[i] = s[i] &+ paeth(d[i &- stride], b[i], b[i &- stride])
            i &+= 1
        }
    default:  // None
        copyBytes(d, s, count)
    }
}

/// The Paeth predictor (PNG spec §9.4): whichever of left, above, upper-left is closest to
/// left + above − upper-left, ties going in that order.
@inline(__always)
func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
    let ia = Int16(a), ib = Int16(b), ic = Int16(c)
    let pa = abs(ib &- ic), pb = abs(ia &- ic), pc = abs(ia &+ ib &- ic &- ic)
    if pa <= pb && pa <= pc { return a }
    return pb <= pc ? b : c
}

/// memmove: the regions may overlap (destination at or before source).
@inline(__always)
func copyBytes(_ d: UnsafeMutablePointer<UInt8>, _ s: UnsafePointer<UInt8>, _ n: Int) {
    if d != UnsafeMutablePointer(mutating: s) && n > 0 {
        UnsafeMutableRawPointer(d).copyMemory(from: s, byteCount: n)
    }
}

/// ``unfilterRow(_:source:destination:prior:count:stride:)`` for 4-byte pixels (RGBA8,
/// GA16), one pixel a step in SIMD lanes with the left and upper-left pixels carried in
/// registers: Sub, Average and Paeth are serial from pixel to pixel, so this is where
/// decoding spends its time. Same aliasing contract: pixel x is loaded before it is stored.
@inline(__always)
func unfilterRow4(_ filter: UInt8, source: UnsafePointer<UInt8>, destination: UnsafeMutablePointer<UInt8>,
                  prior: UnsafePointer<UInt8>?, count: Int) {
    let s = UnsafeRawPointer(source), d = UnsafeMutableRawPointer(destination)
    let pixels = count >> 2
    @inline(__always) func load(_ p: UnsafeRawPointer, _ x: Int) -> SIMD4<Int16> {
        SIMD4<Int16>(truncatingIfNeeded: p.loadUnaligned(fromByteOffset: x &* 4, as: SIMD4<UInt8>.self))
    }
    @inline(__always) func store(_ v: SIMD4<Int16>, _ x: Int) {
        d.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: v), toByteOffset: x &* 4, as: SIMD4<UInt8>.self)
    }
    switch filter {
    case 1:
        var a = SIMD4<UInt8>()
        for x in 0..<pixels {
            a &+= s.loadUnaligned(fromByteOffset: x &* 4, as: SIMD4<UInt8>.self)
            d.storeBytes(of: a, toByteOffset: x &* 4, as: SIMD4<UInt8>.self)
        }
    case 3 where prior != nil:
        let b = UnsafeRawPointer(prior!)
        var a = SIMD4<Int16>()
        for x in 0..<pixels {
            a = (load(s, x) &+ ((a &+ load(b, x)) &>> 1)) & 0xFF
            store(a, x)
        }
    case 3:
        var a = SIMD4<Int16>()
        for x in 0..<pixels {
            a = (load(s, x) &+ (a &>> 1)) & 0xFF
            store(a, x)
        }
    case 4 where prior != nil:
        let pb = UnsafeRawPointer(prior!)
        var a = SIMD4<Int16>(), c = SIMD4<Int16>()
        for x in 0..<pixels {
            let b = load(pb, x)
            let raw = load(s, x)
            let da = b &- c, db = a &- c
            let dc = da &+ db
            let pa = da.replacing(with: 0 &- da, where: da .< 0)
            let pbv = db.replacing(with: 0 &- db, where: db .< 0)
            let pc = dc.replacing(with: 0 &- dc, where: dc .< 0)
            // a if pa ≤ pb and pa ≤ pc, else b if pb ≤ pc, else c.
            let bOrC = c.replacing(with: b, where: pbv .<= pc)
            let predictor = bOrC.replacing(with: a, where: (pa .<= pbv) .& (pa .<= pc))
            c = b
            a = (raw &+ predictor) & 0xFF
            store(a, x)
        }
    default:
        unfilterRow(filter, source: source, destination: destination, prior: prior, count: count, stride: 4)
    }
}
