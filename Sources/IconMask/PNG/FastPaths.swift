/// Non-interlaced 8-bit RGBA and RGB, the common icon formats, done in the inflate buffer
/// itself: one allocation and one pass over the pixels after inflating.

/// Unfilters `height` rows of filtered RGBA8 data at `base` (stride 1 + 4·width) and packs
/// them to stride 4·width at `base`. Row y moves back by y + 1 bytes, so each byte is read
/// before its destination is written; the previous row is read from its packed place.
@inline(never)
func unfilterRGBA8InPlace(_ base: UnsafeMutablePointer<UInt8>, width: Int, height: Int) throws(PNGError) {
    let rowBytes = width &* 4
    var prior: UnsafePointer<UInt8>? = nil
    for y in 0..<height {
        let source = base + y &* (rowBytes &+ 1)
        let filter = source[0]
        guard filter <= 4 else { throw PNGError(.filter, "bad filter type \(filter) in row \(y)") }
        let destination = base + y &* rowBytes
        unfilterRow4(filter, source: source + 1, destination: destination, prior: prior, count: rowBytes)
        prior = UnsafePointer(destination)
    }
}

/// Unfilters `height` rows of filtered RGB8 data that start at `base + offset` (stride
/// 1 + 3·width, `offset` = 4·w·h − h·(1 + 3·w) = h·(w − 1)) and writes them as RGBA8 with
/// alpha 255 from `base`. Pixel i of row y is read at offset + y + 1 + 3i and written at 4i:
/// since i − y ≤ h·(w − 1) = offset, every write lands on bytes already read.
@inline(never)
func unfilterRGB8ToRGBA(_ base: UnsafeMutablePointer<UInt8>, offset: Int, width: Int, height: Int) throws(PNGError) {
    let inRow = width &* 3 &+ 1, outRow = width &* 4
    for y in 0..<height {
        let s = UnsafePointer(base + (offset &+ y &* inRow))
        let filter = s[0]
        guard filter <= 4 else { throw PNGError(.filter, "bad filter type \(filter) in row \(y)") }
        let d = base + y &* outRow
        // One specialised loop per filter (the constant folds the switch inside). With no
        // prior row, Up is None, Paeth is Sub and Average halves the left byte only (kind 5).
        let b = UnsafePointer(d - outRow)
        switch (filter, y == 0) {
        case (0, _), (2, true): rgbRow(0, s + 1, d, b, width)
        case (1, _), (4, true): rgbRow(1, s + 1, d, b, width)
        case (2, false): rgbRow(2, s + 1, d, b, width)
        case (3, false): rgbRow(3, s + 1, d, b, width)
        case (3, true): rgbRow(5, s + 1, d, b, width)
        default: rgbRow(4, s + 1, d, b, width)
        }
    }
}

/// One RGB8 row to RGBA8 (alpha 255), a pixel a step: its 3 bytes are read before its 4 are
/// written; left (a) and upper-left (c) pixels are carried in registers, `b` is the previous
/// output row (read only for kinds 2, 3, 4).
@inline(__always)
private func rgbRow(_ kind: Int, _ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>,
                    _ b: UnsafePointer<UInt8>, _ width: Int) {
    var p = source, d = destination, above = b
    var a0: UInt8 = 0, a1: UInt8 = 0, a2: UInt8 = 0
    var c0: UInt8 = 0, c1: UInt8 = 0, c2: UInt8 = 0
    for _ in 0..<width {
        let x0 = p[0], x1 = p[1], x2 = p[2]
        var r0: UInt8, r1: UInt8, r2: UInt8
        switch kind {
        case 0: r0 = x0; r1 = x1; r2 = x2
        case 1: r0 = x0 &+ a0; r1 = x1 &+ a1; r2 = x2 &+ a2
        case 2: r0 = x0 &+ above[0]; r1 = x1 &+ above[1]; r2 = x2 &+ above[2]
        case 3:
            r0 = x0 &+ UInt8(truncatingIfNeeded: (UInt16(a0) &+ UInt16(above[0])) >> 1)
            r1 = x1 &+ UInt8(truncatingIfNeeded: (UInt16(a1) &+ UInt16(above[1])) >> 1)
            r2 = x2 &+ UInt8(truncatingIfNeeded: (UInt16(a2) &+ UInt16(above[2])) >> 1)
        case 5: r0 = x0 &+ (a0 >> 1); r1 = x1 &+ (a1 >> 1); r2 = x2 &+ (a2 >> 1)
        default:
            let b0 = above[0], b1 = above[1], b2 = above[2]
            r0 = x0 &+ paeth(a0, b0, c0); r1 = x1 &+ paeth(a1, b1, c1); r2 = x2 &+ paeth(a2, b2, c2)
            c0 = b0; c1 = b1; c2 = b2
        }
        d[0] = r0; d[1] = r1; d[2] = r2; d[3] = 255
        a0 = r0; a1 = r1; a2 = r2
        p += 3
        d += 4
        above += 4
    }
}

/// Sets alpha 0 on pixels equal to the tRNS RGB key (16-bit values compared with the 8-bit
/// samples, so a key above 255 never matches).
func applyRGBKey(_ pixels: inout [UInt8], _ trns: UnsafePointer<UInt8>) {
    let r = UInt16(trns[0]) << 8 | UInt16(trns[1])
    let g = UInt16(trns[2]) << 8 | UInt16(trns[3])
    let b = UInt16(trns[4]) << 8 | UInt16(trns[5])
    guard r <= 255, g <= 255, b <= 255 else { return }
    let kr = UInt8(r), kg = UInt8(g), kb = UInt8(b)
    pixels.withUnsafeMutableBufferPointer { buffer in
        var i = 0
        while i < buffer.count {
            if buffer[i] == kr && buffer[i &+ 1] == kg && buffer[i &+ 2] == kb { buffer[i &+ 3] = 0 }
            i &+= 4
        }
    }
}
