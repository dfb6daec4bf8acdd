import Testing
import XDSTestSupport
@_spi(Benchmark) import IconMask

/// Malformed files are refused with one line naming the problem.
@Suite struct DecodeMalformedTests {
    /// A valid 2×2 RGBA8 file's pieces, to break one at a time.
    static let pixels: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12, 13, 14, 15, 16, 17]
    static let ihdr = TestPNG.ihdr(width: 2, height: 2, depth: 8, type: 6)
    static let stream = TestPNG.zlibStored(pixels)
    static let valid = TestPNG.file(ihdr: ihdr, stream: stream)

    static func refuse(_ file: [UInt8], _ kind: PNGError.Kind, _ words: String,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        for inflater in Inflater.allCases {
            let error = #expect(throws: PNGError.self, sourceLocation: sourceLocation) {
                try PNGDecoder.decode(file, inflater: inflater)
            }
            #expect(error?.kind == kind, "\(error?.description ?? "")", sourceLocation: sourceLocation)
            #expect(error?.description.contains(words) == true, "\(error?.description ?? "")", sourceLocation: sourceLocation)
            #expect(error?.description.contains("\n") == false, sourceLocation: sourceLocation)
        }
    }

    @Test func theBaseFileIsValid() throws {
        #expect(try PNGDecoder.decode(Self.valid).pixels == [1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17])
    }

    @Test func badSignature() {
        Self.refuse([], .signature, "shorter than the PNG signature")
        Self.refuse(Array("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8), .signature, "bad signature at byte 0")
        var file = Self.valid
        file[4] = 0x0A  // CR/LF translation damage
        Self.refuse(file, .signature, "bad signature at byte 4")
    }

    @Test(arguments: ["IHDR", "IDAT", "IEND", "PLTE"])
    func crcMismatchInCriticalChunk(_ type: String) {
        let file: [UInt8]
        switch type {
        case "IHDR":
            file = TestPNG.signature + TestPNG.chunk("IHDR", Array(Self.ihdr[8..<21]), badCRC: true)
                + TestPNG.chunk("IDAT", Self.stream) + TestPNG.chunk("IEND", [])
        case "IDAT":
            file = TestPNG.signature + Self.ihdr + TestPNG.chunk("IDAT", Self.stream, badCRC: true) + TestPNG.chunk("IEND", [])
        case "IEND":
            file = TestPNG.signature + Self.ihdr + TestPNG.chunk("IDAT", Self.stream) + TestPNG.chunk("IEND", [], badCRC: true)
        default:
            file = TestPNG.signature + Self.ihdr + TestPNG.chunk("PLTE", [1, 2, 3], badCRC: true)
                + TestPNG.chunk("IDAT", Self.stream) + TestPNG.chunk("IEND", [])
        }
        Self.refuse(file, .checksum, "CRC mismatch in \(type) chunk")
    }

    @Test func crcMismatchInAncillaryChunkIsIgnored() throws {
        let file = TestPNG.file(ihdr: Self.ihdr, before: [TestPNG.chunk("tEXt", Array("a\0b".utf8), badCRC: true)],
                                stream: Self.stream)
        #expect(try PNGDecoder.decode(file).width == 2)
        // A tRNS with a bad CRC is dropped: the key pixel stays opaque.
        let grey = TestPNG.zlibStored([0, 7, 0, 9])
        let trns = TestPNG.chunk("tRNS", [0, 7], badCRC: true)
        let image = try PNGDecoder.decode(TestPNG.file(ihdr: TestPNG.ihdr(width: 1, height: 2, depth: 8, type: 0),
                                                       before: [trns], stream: grey))
        #expect(image.pixels == [7, 7, 7, 255, 9, 9, 9, 255])
    }

    /// Every proper prefix of a valid file is refused (mostly as truncation).
    @Test func everyTruncationIsRefused() {
        for length in 0..<Self.valid.count {
            let prefix = Array(Self.valid[0..<length])
            for inflater in Inflater.allCases {
                #expect(throws: PNGError.self, "prefix of \(length) bytes") { try PNGDecoder.decode(prefix, inflater: inflater) }
            }
        }
        let cut = Array(Self.valid[0..<(Self.valid.count - 12)])  // whole chunks, no IEND
        Self.refuse(cut, .truncated, "truncated: the file ends before the IEND chunk")
        Self.refuse(Array(Self.valid[0..<50]), .truncated, "truncated: IDAT chunk at byte 33 needs")
        Self.refuse(Array(Self.valid[0..<40]), .truncated, "truncated: the file ends inside a chunk header at byte 33")
    }

    @Test func unknownCriticalChunk() throws {
        Self.refuse(TestPNG.file(ihdr: Self.ihdr, before: [TestPNG.chunk("FOOB", [1])], stream: Self.stream),
                    .chunk, "unknown critical chunk FOOB")
        // The same chunk as ancillary (lower-case first letter) is skipped.
        let ok = TestPNG.file(ihdr: Self.ihdr, before: [TestPNG.chunk("fOOB", [1])], stream: Self.stream)
        #expect(try PNGDecoder.decode(ok).width == 2)
    }

    @Test func invalidChunkFraming() {
        var file = Self.valid
        file[37] = 0x31  // IDAT's type becomes "I1AT"
        Self.refuse(file, .chunk, "invalid chunk type")
        let huge = TestPNG.signature + Self.ihdr + [0x80, 0, 0, 0] + Array("IDAT".utf8) + [0, 0, 0, 0]
        Self.refuse(huge, .chunk, "IDAT chunk length 2147483648 exceeds the PNG maximum of 2^31-1")
        let long = TestPNG.signature + Self.ihdr + [0x7F, 0xFF, 0xFF, 0xFF] + Array("IDAT".utf8) + [0, 0, 0, 0]
        Self.refuse(long, .truncated, "needs 2147483647 data bytes")
    }

    @Test(arguments: [
        (0, 1, 8, 6, 0, 0, 0, "zero image size"),
        (1, 0, 8, 6, 0, 0, 0, "zero image size"),
        (0x8000_0000, 1, 8, 6, 0, 0, 0, "exceeds the PNG maximum"),
        (1, 1, 8, 1, 0, 0, 0, "colour type 1 is not a PNG colour type"),
        (1, 1, 8, 7, 0, 0, 0, "colour type 7"),
        (1, 1, 3, 0, 0, 0, 0, "bit depth 3 is not allowed for colour type 0"),
        (1, 1, 4, 2, 0, 0, 0, "bit depth 4 is not allowed for colour type 2"),
        (1, 1, 16, 3, 0, 0, 0, "bit depth 16 is not allowed for colour type 3"),
        (1, 1, 1, 4, 0, 0, 0, "bit depth 1 is not allowed for colour type 4"),
        (1, 1, 2, 6, 0, 0, 0, "bit depth 2 is not allowed for colour type 6"),
        (1, 1, 8, 6, 1, 0, 0, "compression method 1 is unknown"),
        (1, 1, 8, 6, 0, 1, 0, "filter method 1 is unknown"),
        (1, 1, 8, 6, 0, 0, 2, "interlace method 2 is unknown"),
    ] as [(Int, Int, Int, Int, UInt8, UInt8, Int, String)])
    func badHeader(_ w: Int, _ h: Int, _ depth: Int, _ type: Int, _ compression: UInt8, _ filter: UInt8,
                   _ interlace: Int, _ words: String) {
        let ihdr = TestPNG.ihdr(width: w, height: h, depth: depth, type: type, interlace: interlace,
                                compression: compression, filter: filter)
        Self.refuse(TestPNG.file(ihdr: ihdr, stream: Self.stream), .header, words)
        let error = #expect(throws: PNGError.self) { try PNGDecoder.header(TestPNG.signature + ihdr) }
        #expect(error?.kind == .header)
    }

    @Test func missingOrDuplicateHeader() {
        Self.refuse(TestPNG.signature + TestPNG.chunk("IDAT", Self.stream) + TestPNG.chunk("IEND", []),
                    .header, "the first chunk is IDAT, not IHDR")
        Self.refuse(TestPNG.signature + TestPNG.chunk("gAMA", [0, 0, 0, 1]) + Self.ihdr
                    + TestPNG.chunk("IDAT", Self.stream) + TestPNG.chunk("IEND", []),
                    .header, "the first chunk is gAMA, not IHDR")
        Self.refuse(TestPNG.file(ihdr: Self.ihdr, before: [Self.ihdr], stream: Self.stream), .header, "more than one IHDR")
        Self.refuse(TestPNG.signature + TestPNG.chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0])
                    + TestPNG.chunk("IDAT", Self.stream) + TestPNG.chunk("IEND", []),
                    .header, "IHDR chunk is 12 bytes long, not 13")
    }

    static let palette1x2 = TestPNG.ihdr(width: 1, height: 2, depth: 8, type: 3)
    static let indices = TestPNG.zlibStored([0, 0, 0, 1])

    @Test func paletteProblems() throws {
        let plte = TestPNG.chunk("PLTE", [10, 20, 30, 40, 50, 60])
        #expect(try PNGDecoder.decode(TestPNG.file(ihdr: Self.palette1x2, before: [plte], stream: Self.indices)).pixels
                == [10, 20, 30, 255, 40, 50, 60, 255])
        Self.refuse(TestPNG.file(ihdr: Self.palette1x2, stream: Self.indices), .palette, "no PLTE chunk")
        Self.refuse(TestPNG.file(ihdr: Self.palette1x2, before: [TestPNG.chunk("PLTE", [1, 2, 3, 4])], stream: Self.indices),
                    .palette, "PLTE chunk is 4 bytes long")
        Self.refuse(TestPNG.file(ihdr: Self.palette1x2, before: [TestPNG.chunk("PLTE", [])], stream: Self.indices),
                    .palette, "PLTE chunk is 0 bytes long")
        Self.refuse(TestPNG.file(ihdr: Self.palette1x2, before: [TestPNG.chunk("PLTE", [UInt8](repeating: 1, count: 771))],
                                 stream: Self.indices), .palette, "1 to 256 RGB entries")
        Self.refuse(TestPNG.file(ihdr: Self.palette1x2, before: [plte, plte], stream: Self.indices), .palette, "more than one PLTE")
        Self.refuse(TestPNG.file(ihdr: Self.palette1x2, before: [plte], stream: Self.indices, after: [plte]),
                    .palette, "PLTE chunk comes after the image data")
        Self.refuse(TestPNG.file(ihdr: TestPNG.ihdr(width: 1, height: 1, depth: 8, type: 0), before: [plte],
                                 stream: TestPNG.zlibStored([0, 0])), .palette, "PLTE chunk in a greyscale image")
        // Index 1 with a one-entry palette: refused (the PNG spec calls it an error).
        let one = #expect(throws: PNGError.self) {
            try PNGDecoder.decode(TestPNG.file(ihdr: Self.palette1x2, before: [TestPNG.chunk("PLTE", [1, 2, 3])],
                                               stream: Self.indices))
        }
        #expect(one?.kind == .palette && one?.description == "palette index 1 is out of range: PLTE has 1 entry")
        // A suggested palette in an RGB image is allowed and ignored.
        let rgb = TestPNG.file(ihdr: TestPNG.ihdr(width: 1, height: 1, depth: 8, type: 2), before: [plte],
                               stream: TestPNG.zlibStored([0, 9, 8, 7]))
        #expect(try PNGDecoder.decode(rgb).pixels == [9, 8, 7, 255])
    }

    /// Filter type 5 is refused on each code path: RGBA8 and RGB8 fast paths, generic, Adam7.
    @Test(arguments: [(6, 8, 0), (2, 8, 0), (0, 8, 0), (6, 16, 0), (6, 8, 1)])
    func badFilterType(_ type: Int, _ depth: Int, _ interlace: Int) {
        let rowBytes = [6: 4, 2: 3, 0: 1][type]! * depth / 8
        let data = [0] + [UInt8](repeating: 1, count: rowBytes) + [5] + [UInt8](repeating: 1, count: rowBytes)
        let file = TestPNG.file(ihdr: TestPNG.ihdr(width: 1, height: 2, depth: depth, type: type, interlace: interlace),
                                stream: TestPNG.zlibStored(data))
        // 1×2 Adam7: pass 1 holds row 0, pass 7 holds row 1, each one filtered row.
        Self.refuse(file, .filter, interlace == 1 ? "bad filter type 5 in row 0 of Adam7 pass 7" : "bad filter type 5 in row 1")
    }

    @Test func noImageData() {
        Self.refuse(TestPNG.signature + Self.ihdr + TestPNG.chunk("IEND", []), .imageData, "no IDAT chunk")
        Self.refuse(TestPNG.file(ihdr: Self.ihdr, stream: []), .imageData, "image data is empty")
    }

    @Test func idatMustBeConsecutive() {
        let file = TestPNG.signature + Self.ihdr + TestPNG.chunk("IDAT", Array(Self.stream[0..<5]))
            + TestPNG.chunk("tEXt", Array("a\0b".utf8)) + TestPNG.chunk("IDAT", Array(Self.stream[5...]))
            + TestPNG.chunk("IEND", [])
        Self.refuse(file, .chunk, "IDAT chunks are not consecutive")
    }

    @Test func dataInflatesToWrongSize() {
        Self.refuse(TestPNG.file(ihdr: Self.ihdr, stream: TestPNG.zlibStored(Array(Self.pixels.dropLast()))),
                    .imageData, "fewer than the 18")
        Self.refuse(TestPNG.file(ihdr: Self.ihdr, stream: TestPNG.zlibStored(Self.pixels + [0])),
                    .imageData, "more than the 18 bytes")
        Self.refuse(TestPNG.file(ihdr: Self.ihdr, stream: TestPNG.zlibStored(Self.pixels + [UInt8](repeating: 0, count: 70000))),
                    .imageData, "more than the 18 bytes")
        // Raw deflate (CgBI) too.
        Self.refuse(TestPNG.file(ihdr: Self.ihdr, stream: TestPNG.rawStored(Array(Self.pixels.dropLast())), cgbi: true),
                    .imageData, "fewer than the 18")
    }

    @Test func corruptCompressedData() {
        var stream = Self.stream
        stream[stream.count - 1] ^= 0xFF  // Adler-32
        Self.refuse(TestPNG.file(ihdr: Self.ihdr, stream: stream), .imageData, "not a valid zlib stream")
        Self.refuse(TestPNG.file(ihdr: Self.ihdr, stream: [0x78, 0x01, 0x07, 0xFF]), .imageData, "zlib stream")
        // Stream cut before its Adler-32: every pixel is there, the stream is not complete.
        Self.refuse(TestPNG.file(ihdr: Self.ihdr, stream: Array(Self.stream.dropLast(4))), .imageData, "zlib stream")
    }

    @Test func sizeLimitIsCheckedBeforeAllocating() throws {
        let big = TestPNG.file(ihdr: TestPNG.ihdr(width: 8193, height: 1, depth: 8, type: 6), stream: Self.stream)
        Self.refuse(big, .tooLarge, "image is 8193×1 px; the limit is 8192 px on a side")
        let custom = #expect(throws: PNGError.self) { try PNGDecoder.decode(Self.valid, maxDimension: 1) }
        #expect(custom?.description == "image is 2×2 px; the limit is 1 px on a side")
        #expect(try PNGDecoder.decode(Self.valid, maxDimension: 2).width == 2)
    }

    /// A 100000×100000 header (40 GB of pixels) fails at IHDR: an allocation of that size would
    /// crash, and 100 of them would not finish within the time limit. (How fast a refusal is
    /// belongs in Benchmarks/, not in a test on a busy machine.)
    @Test func hugeHeaderFailsFast() {
        let file = TestPNG.file(ihdr: TestPNG.ihdr(width: 100_000, height: 100_000, depth: 16, type: 6),
                                stream: TestPNG.zlibStored([UInt8](repeating: 0, count: 1000)))
        for _ in 0..<100 { _ = try? PNGDecoder.decode(file) }
        Self.refuse(file, .tooLarge, "image is 100000×100000 px")
        // With the limit lifted, sizes that cannot be addressed are still refused, not overflowed.
        let max = TestPNG.file(ihdr: TestPNG.ihdr(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, depth: 16, type: 6),
                               stream: Self.stream)
        let error = #expect(throws: PNGError.self) { try PNGDecoder.decode(max, maxDimension: Int.max) }
        #expect(error?.kind == .tooLarge)
    }

    /// A header at the limit with a few bytes of data is refused before its 268 MB buffer is
    /// allocated: DEFLATE cannot expand more than 1032:1.
    @Test func tooLittleDataFailsBeforeAllocating() {
        let file = TestPNG.file(ihdr: TestPNG.ihdr(width: 8192, height: 8192, depth: 8, type: 6),
                                stream: TestPNG.zlibStored([UInt8](repeating: 0, count: 100)))
        for _ in 0..<100 { _ = try? PNGDecoder.decode(file) }
        Self.refuse(file, .imageData, "image data is only 111 bytes, too little to inflate to the 268443648 bytes")
    }

    @Test func chunksAfterIENDAreIgnored() throws {
        #expect(try PNGDecoder.decode(Self.valid + [1, 2, 3, 4, 5]).width == 2)
    }
}
