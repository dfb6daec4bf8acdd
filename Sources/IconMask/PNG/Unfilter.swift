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
        var i = 0
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
