import Testing
import XDSTestSupport
import IconMask

/// Every valid colour type × bit depth × interlace, with and without tRNS, at odd sizes, with
/// all five filters and IDATs split anywhere: decoded pixels must equal the source pixels
/// converted independently here.
@Suite struct DecodeMatrixTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let type: Int, depth: Int, interlaced: Bool, transparency: Bool
        var testDescription: String { "type \(type) depth \(depth)\(interlaced ? " Adam7" : "")\(transparency ? " tRNS" : "")" }
    }

    static let cases: [Case] = {
        let depths = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        var all: [Case] = []
        for type in [0, 2, 3, 4, 6] {
            for depth in depths[type]! {
                for interlaced in [false, true] {
                    for transparency in type == 4 || type == 6 ? [false] : [false, true] {
                        all.append(Case(type: type, depth: depth, interlaced: interlaced, transparency: transparency))
                    }
                }
            }
        }
        return all
    }()

    static let sizes = [(1, 1), (3, 2), (13, 11), (33, 9)]

    @Test func matrixCoversEveryCombination() {
        // 15 type/depth pairs × 2 interlace, tRNS doubling types 0, 2 and 3 (11 pairs).
        #expect(Self.cases.count == 15 * 2 + 11 * 2)
    }

    @Test(arguments: cases)
    func decodesToSourcePixels(_ c: Case) throws {
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][c.type]!
        let maxSample = (1 << c.depth) - 1
        for (width, height) in Self.sizes {
            var random = SplitMix64(seed: UInt64(c.type * 1000 + c.depth * 10 + width))
            let paletteCount = c.type == 3 ? Int.random(in: 1...(1 << c.depth), using: &random) : 0
            let palette = (0..<paletteCount).map { _ in (0..<3).map { _ in UInt8.random(in: 0...255, using: &random) } }
            let paletteAlpha = (0..<max(1, paletteCount / 2)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let samples: [[[Int]]] = (0..<height).map { _ in
                (0..<width).map { _ in
                    (0..<channels).map { _ in c.type == 3 ? Int.random(in: 0..<paletteCount, using: &random)
                                                          : Int.random(in: 0...maxSample, using: &random) }
                }
            }
            var before: [[UInt8]] = []
            var key: [Int]? = nil
            if c.type == 3 { before.append(TestPNG.chunk("PLTE", palette.flatMap { $0 })) }
            if c.transparency {
                if c.type == 3 {
                    before.append(TestPNG.chunk("tRNS", paletteAlpha))
                } else {
                    key = samples[0][0]  // make sure the key occurs
                    before.append(TestPNG.chunk("tRNS", key!.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
                }
            }
            let data = TestPNG.imageData(samples: samples, width: width, height: height, depth: c.depth,
                                         channels: channels, interlaced: c.interlaced)
            let stream = TestPNG.zlibStored(data)
            // Split the stream at 0, in the zlib header, twice at one place (an empty IDAT) and near the end.
            let splits = [0, 1, stream.count / 3, stream.count / 3, max(0, stream.count - 2)]
            let file = TestPNG.file(ihdr: TestPNG.ihdr(width: width, height: height, depth: c.depth, type: c.type,
                                                       interlace: c.interlaced ? 1 : 0),
                                    before: before, stream: stream, splits: splits,
                                    after: [TestPNG.chunk("tEXt", Array("Comment\0ancillary".utf8))])

            // The reference conversion.
            func to8(_ v: Int) -> UInt8 {
                c.depth == 16 ? UInt8((v * 255 + 32767) / 65535) : UInt8(v * 255 / maxSample)
            }
            var expected: [UInt8] = []
            for row in samples {
                for px in row {
                    switch c.type {
                    case 0: expected += [to8(px[0]), to8(px[0]), to8(px[0]), px == key ? 0 : 255]
                    case 2: expected += [to8(px[0]), to8(px[1]), to8(px[2]), px == key ? 0 : 255]
                    case 3:
                        let alpha = c.transparency && px[0] < paletteAlpha.count ? paletteAlpha[px[0]] : 255
                        expected += palette[px[0]] + [alpha]
                    case 4: expected += [to8(px[0]), to8(px[0]), to8(px[0]), to8(px[1])]
                    default: expected += px.map(to8)
                    }
                }
            }
            let image = try PNGDecoder.decode(file)
            #expect(image.width == width && image.height == height)
            #expect(image.pixels == expected, "\(c.testDescription) at \(width)×\(height)")
        }
    }

    /// Each filter type alone, on the formats with their own fast paths (RGBA8, RGB8) and a
    /// generic one, with a first row that uses the filter too (no prior row).
    @Test(arguments: [0, 1, 2, 3, 4] as [UInt8], [(6, 4), (2, 3), (4, 2), (0, 1)])
    func everyFilterAlone(_ filter: UInt8, _ format: (Int, Int)) throws {
        let (type, channels) = format
        var random = SplitMix64(seed: UInt64(filter) * 77 + UInt64(type))
        let (width, height) = (17, 5)
        let samples: [[[Int]]] = (0..<height).map { _ in
            (0..<width).map { _ in (0..<channels).map { _ in Int.random(in: 0...255, using: &random) } }
        }
        let data = TestPNG.imageData(samples: samples, width: width, height: height, depth: 8,
                                     channels: channels, interlaced: false, filters: [filter])
        let file = TestPNG.file(ihdr: TestPNG.ihdr(width: width, height: height, depth: 8, type: type),
                                stream: TestPNG.zlibStored(data))
        let image = try PNGDecoder.decode(file)
        let expected = samples.flatMap { row in
            row.flatMap { px -> [UInt8] in
                let v = px.map { UInt8($0) }
                switch type {
                case 6: return v
                case 2: return v + [255]
                case 4: return [v[0], v[0], v[0], v[1]]
                default: return [v[0], v[0], v[0], 255]
                }
            }
        }
        #expect(image.pixels == expected)
    }
}
