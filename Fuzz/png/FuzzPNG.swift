// libFuzzer entry for PNGDecoder (built by Fuzz/build.py: IconMask compiled with -D FUZZING,
// so chunk CRCs are not checked).
//
// Two modes. Input starting with 0x89 is a PNG file as is. Anything else is a recipe, so
// the fuzzer reaches unfiltering and pixel conversion without having to forge deflate
// streams: bytes 0–5 pick width, height, colour type and depth, interlace, CgBI, exact
// size, palette size; the rest is the filtered image data, wrapped in stored deflate blocks.
//
// Both inflaters (libdeflate and zlib) must agree on success and on every pixel, and a
// decoded image must be exactly width × height × 4 bytes.

@_spi(Benchmark) @testable import IconMask

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if size > 0 && bytes[0] != 0x89 {
        guard size >= 6 else { return 0 }
        bytes = recipe(bytes)
    }
    // 2048 px keeps each run fast; the size limit itself is covered by unit tests.
    let fast = Result { () throws(PNGError) in try PNGDecoder.decode(bytes, maxDimension: 2048, inflater: .libdeflate) }
    let slow = Result { () throws(PNGError) in try PNGDecoder.decode(bytes, maxDimension: 2048, inflater: .zlib) }
    switch (fast, slow) {
    case (.success(let a), .success(let b)):
        precondition(a.pixels.count == a.width * a.height * 4, "pixel count")
        precondition(a == b, "libdeflate and zlib decodes differ")
    case (.failure(let e), .failure):
        precondition(!e.description.isEmpty && !e.description.contains("\n"), "error message")
    case (.success, .failure(let e)):
        preconditionFailure("only zlib refused: \(e)")
    case (.failure(let e), .success):
        preconditionFailure("only libdeflate refused: \(e)")
    }
    return 0
}

private func recipe(_ r: [UInt8]) -> [UInt8] {
    let formats: [(type: UInt8, depth: UInt8)] = [
        (0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (2, 8), (2, 16), (3, 1), (3, 2), (3, 4), (3, 8),
        (4, 8), (4, 16), (6, 8), (6, 16),
    ]
    let width = 1 + Int(r[0] % 48), height = 1 + Int(r[1] % 48)
    let format = formats[Int(r[2]) % formats.count]
    let interlaced = r[3] & 1 != 0
    let cgbi = r[3] & 2 != 0 && format.depth == 8 && (format.type == 2 || format.type == 6)
    let withTRNS = r[3] & 4 != 0
    let paletteCount = 1 + Int(r[5])
    var image = Array(r[6...])
    if r[4] & 1 == 0 {
        // Make the data exactly as long as IHDR implies, so most runs get past inflating.
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(format.type)]!
        let bits = channels * Int(format.depth)
        let passes = interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        var total = 0
        for (x0, y0, dx, dy) in passes where width > x0 && height > y0 {
            let w = (width - x0 + dx - 1) / dx, h = (height - y0 + dy - 1) / dy
            total += h * (1 + (w * bits + 7) / 8)
        }
        image = Array(image.prefix(total)) + [UInt8](repeating: 0, count: max(0, total - image.count))
    }
    var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    func chunk(_ type: String, _ body: [UInt8]) {
        let n = UInt32(body.count)
        out += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
        out += Array(type.utf8) + body + [0, 0, 0, 0]  // CRCs are not checked under FUZZING
    }
    if cgbi { chunk("CgBI", [0x50, 0, 0x20, 6]) }
    chunk("IHDR", [0, 0, UInt8(width >> 8), UInt8(width & 0xFF), 0, 0, UInt8(height >> 8), UInt8(height & 0xFF),
                   format.depth, format.type, 0, 0, interlaced ? 1 : 0])
    if format.type == 3 { chunk("PLTE", (0..<paletteCount * 3).map { UInt8(truncatingIfNeeded: $0 &* 37) }) }
    if withTRNS {
        switch format.type {
        case 0: chunk("tRNS", [0, r[5] & 1])
        case 2: chunk("tRNS", [0, r[5], 0, r[5], 0, r[5]])
        case 3: chunk("tRNS", Array(r.prefix(min(paletteCount, r.count))))
        default: chunk("tRNS", [0, 0])
        }
    }
    // Stored deflate blocks; zlib-wrapped with Adler-32 unless CgBI.
    var stream: [UInt8] = cgbi ? [] : [0x78, 0x01]
    var i = 0
    repeat {
        let n = min(65535, image.count - i)
        stream += [i + n == image.count ? 1 : 0, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8 & 0xFF)]
        stream += image[i..<i + n]
        i += n
    } while i < image.count
    if !cgbi {
        var a: UInt32 = 1, b: UInt32 = 0
        for x in image { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        let adler = b << 16 | a
        stream += [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
    }
    let cut = stream.count / 2
    chunk("IDAT", Array(stream[..<cut]))
    chunk("IDAT", Array(stream[cut...]))
    chunk("IEND", [])
    return out
}
