import Testing
import XDSTestSupport
@testable import IconMask

/// Apple's CgBI variant: raw deflate, BGR(A), premultiplied alpha.
@Suite struct CgBIDecodeTests {
    /// The real iOS icon of go-png-cgbi (Tests/Fixtures/cgbi, MIT). Expected pixels come from an
    /// independent path (Python: zlib raw inflate, BGR swap, un-premultiply), summarised as a
    /// CRC-32.
    @Test func realAppIconDecodes() throws {
        let bytes = try Fixtures.bytes("cgbi/AppIcon60x60@3x.png")
        let header = try PNGDecoder.header(bytes)
        #expect(header.isCgBI && header.width == 180 && header.height == 180 && header.colourType == .rgba)
        let image = try PNGDecoder.decode(bytes)
        #expect(image.width == 180 && image.height == 180)
        // The icon's blue area: raw B,G,R = 248,116,32 must come out as R,G,B = 32,116,248.
        let centre = (90 * 180 + 90) * 4
        #expect(Array(image.pixels[centre..<centre + 4]) == [32, 116, 248, 255])
        #expect(Array(image.pixels[0..<4]) == [255, 255, 255, 255])
        #expect(stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 })
        #expect(image.pixels.withUnsafeBufferPointer { crc32($0.baseAddress!, count: $0.count) } == 0x9928_9FB2)
    }

    /// Builds a CgBI file from straight RGBA pixels: premultiply (rounded), BGRA order, raw
    /// deflate (stored blocks), split over IDATs.
    static func cgbiFile(width: Int, height: Int, straight: [UInt8], alpha: Bool, interlaced: Bool) -> (file: [UInt8], premultiplied: [UInt8]) {
        var stored: [[[Int]]] = []
        var premultiplied: [UInt8] = []
        for y in 0..<height {
            var row: [[Int]] = []
            for x in 0..<width {
                let i = (y * width + x) * 4
                let a = alpha ? Int(straight[i + 3]) : 255
                let pm = (0..<3).map { (Int(straight[i + $0]) * a + 127) / 255 }
                premultiplied += pm.map { UInt8($0) } + [UInt8(a)]
                row.append(alpha ? [pm[2], pm[1], pm[0], a] : [pm[2], pm[1], pm[0]])
            }
            stored.append(row)
        }
        let data = TestPNG.imageData(samples: stored, width: width, height: height, depth: 8,
                                     channels: alpha ? 4 : 3, interlaced: interlaced)
        let stream = TestPNG.rawStored(data)
        let file = TestPNG.file(ihdr: TestPNG.ihdr(width: width, height: height, depth: 8, type: alpha ? 6 : 2,
                                                   interlace: interlaced ? 1 : 0),
                                stream: stream, splits: [stream.count / 2],
                                after: [TestPNG.chunk("iDOT", [UInt8](repeating: 0, count: 28))], cgbi: true)
        return (file, premultiplied)
    }

    @Test(arguments: [false, true], [false, true])
    func premultipliedPixelsAreStraightened(_ alpha: Bool, _ interlaced: Bool) throws {
        var random = SplitMix64(seed: alpha ? 11 : 12)
        let (width, height) = (23, 19)
        var straight = (0..<width * height * 4).map { _ in UInt8.random(in: 0...255, using: &random) }
        // Make sure the edge cases occur: fully transparent, opaque, alpha 1.
        straight[3] = 0; straight[7] = 255; straight[11] = 1
        let (file, pm) = Self.cgbiFile(width: width, height: height, straight: straight, alpha: alpha, interlaced: interlaced)
        let image = try PNGDecoder.decode(file)
        var expected: [UInt8] = []
        for i in stride(from: 0, to: pm.count, by: 4) {
            let a = Int(pm[i + 3])
            if a == 0 {
                expected += [0, 0, 0, 0]
            } else {
                for k in 0..<3 {
                    let c = (Int(pm[i + k]) * 255 + a / 2) / a
                    expected.append(UInt8(min(255, c)))
                }
                expected.append(UInt8(a))
            }
        }
        #expect(image.pixels == expected)
        // And un-premultiplying brings back the straight colour, to within the rounding
        // premultiplication lost (about 255 / (2a)).
        for i in stride(from: 0, to: straight.count, by: 4) where alpha && straight[i + 3] >= 128 {
            for k in 0..<3 { #expect(abs(Int(image.pixels[i + k]) - Int(straight[i + k])) <= 1) }
        }
        if !alpha { #expect(Array(image.pixels[0..<3]) == Array(straight[0..<3])) }
    }

    @Test func zlibWrappedDataIsRefused() throws {
        // A CgBI file whose IDAT is zlib-wrapped (as in a normal PNG) is not raw deflate.
        let data = TestPNG.imageData(samples: [[[1, 2, 3, 255]]], width: 1, height: 1, depth: 8, channels: 4, interlaced: false)
        let file = TestPNG.file(ihdr: TestPNG.ihdr(width: 1, height: 1, depth: 8, type: 6),
                                stream: TestPNG.zlibStored(data), cgbi: true)
        let error = #expect(throws: PNGError.self) { try PNGDecoder.decode(file) }
        #expect(error?.kind == .imageData)
        #expect(error?.description.contains("raw deflate") == true)
    }

    @Test(arguments: [(16, 6), (8, 0), (8, 3), (8, 4)])
    func unsupportedFormatsAreRefused(_ depth: Int, _ type: Int) throws {
        let file = TestPNG.file(ihdr: TestPNG.ihdr(width: 1, height: 1, depth: depth, type: type),
                                stream: TestPNG.rawStored([0, 0, 0, 0, 0, 0, 0, 0, 0]), cgbi: true)
        let error = #expect(throws: PNGError.self) { try PNGDecoder.decode(file) }
        #expect(error?.kind == .header)
        #expect(error?.description.contains("CgBI") == true)
    }

    @Test func cgbiAfterIHDRIsRefused() throws {
        let file = TestPNG.file(ihdr: TestPNG.ihdr(width: 1, height: 1, depth: 8, type: 6),
                                before: [TestPNG.chunk("CgBI", [0x50, 0, 0x20, 6])],
                                stream: TestPNG.zlibStored([0, 1, 2, 3, 4]))
        let error = #expect(throws: PNGError.self) { try PNGDecoder.decode(file) }
        #expect(error?.description == "CgBI chunk after IHDR")
    }
}
