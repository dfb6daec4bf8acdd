/// Apple's CgBI PNG variant (iOS app bundles, `pngcrush -iphone`): after inflating (raw
/// deflate) and unfiltering, pixels are BGR(A) with premultiplied alpha.

/// Swaps B and R and, when the image has alpha, un-premultiplies: c = (c·255 + a/2) / a
/// (capped at 255), and c = 0 where a = 0 (stb_image's rounding).
func straightenCgBI(_ pixels: inout [UInt8], hasAlpha: Bool) {
    pixels.withUnsafeMutableBufferPointer { buffer in
        let p = buffer.baseAddress!
        var i = 0
        while i < buffer.count {
            let b = p[i], g = p[i &+ 1], r = p[i &+ 2], a = p[i &+ 3]
            if !hasAlpha || a == 255 {
                p[i] = r; p[i &+ 2] = b
            } else if a == 0 {
                p[i] = 0; p[i &+ 1] = 0; p[i &+ 2] = 0
            } else {
                let a32 = UInt32(a), half = UInt32(a >> 1)
                p[i] = UInt8(min(255, (UInt32(r) &* 255 &+ half) / a32))
                p[i &+ 1] = UInt8(min(255, (UInt32(g) &* 255 &+ half) / a32))
                p[i &+ 2] = UInt8(min(255, (UInt32(b) &* 255 &+ half) / a32))
            }
            i &+= 4
        }
    }
}
