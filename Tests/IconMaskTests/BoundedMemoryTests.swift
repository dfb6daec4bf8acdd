import Foundation
import XDSTestSupport
import Testing
@testable import IconMask

/// The memory-bounding paths give the same pixels as the whole-buffer ones: the row-at-a-time
/// decoder (zlib streaming, used for large general-path images) and the banded masker.
@Suite("Bounded-memory decode and mask")
struct BoundedMemoryTests {
    /// Pseudo-random samples (a fixed LCG, so failures reproduce).
    static func samples(width: Int, height: Int, channels: Int, depth: Int, seed: UInt64) -> [[[Int]]] {
        var state = seed
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        let top = (1 << depth) - 1
        return (0..<height).map { _ in (0..<width).map { _ in (0..<channels).map { _ in next() % (top + 1) } } }
    }

    @Test("streamed decode equals the whole-buffer decode", arguments: [
        (0, 1, false), (0, 16, true), (2, 16, false), (3, 4, true), (4, 8, true), (6, 16, true), (6, 8, true), (2, 8, true),
    ])
    func streamingMatches(type: Int, depth: Int, interlaced: Bool) throws {
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][type]!
        let (w, h) = (37, 23)
        let s = Self.samples(width: w, height: h, channels: channels, depth: depth, seed: UInt64(type * 100 + depth))
        let data = TestPNG.imageData(samples: s, width: w, height: h, depth: depth, channels: channels, interlaced: interlaced)
        var before: [[UInt8]] = []
        if type == 3 { before.append(TestPNG.chunk("PLTE", (0..<(3 << depth)).map { UInt8(truncatingIfNeeded: $0 &* 7) })) }
        // Split into several IDAT chunks so the stream crosses chunk boundaries mid-row.
        let stream = TestPNG.zlibStored(data)
        let png = TestPNG.file(ihdr: TestPNG.ihdr(width: w, height: h, depth: depth, type: type, interlace: interlaced ? 1 : 0),
                                  before: before, stream: stream, splits: [1, 7, stream.count / 2])
        let whole = try PNGDecoder.decode(png)
        let streamed = try PNGDecoder.decode(png, streamingThreshold: 0)
        #expect(streamed == whole)
    }

    @Test("streamed decode refuses data that is short, long or corrupt")
    func streamingRefuses() throws {
        let s = Self.samples(width: 8, height: 8, channels: 1, depth: 8, seed: 1)
        let data = TestPNG.imageData(samples: s, width: 8, height: 8, depth: 8, channels: 1, interlaced: false)
        let ihdr = TestPNG.ihdr(width: 8, height: 8, depth: 8, type: 0)
        func kind(_ png: [UInt8]) -> PNGError.Kind? {
            do { _ = try PNGDecoder.decode(png, streamingThreshold: 0) } catch { return error.kind }
            return nil
        }
        #expect(kind(TestPNG.file(ihdr: ihdr, stream: TestPNG.zlibStored(data))) == nil)
        #expect(kind(TestPNG.file(ihdr: ihdr, stream: TestPNG.zlibStored(Array(data.dropLast(3))))) == .imageData)
        #expect(kind(TestPNG.file(ihdr: ihdr, stream: TestPNG.zlibStored(data + [0, 0, 0]))) == .imageData)
        var corrupt = TestPNG.zlibStored(data)
        corrupt[corrupt.count - 1] ^= 0xFF  // Adler-32
        #expect(kind(TestPNG.file(ihdr: ihdr, stream: corrupt)) == .imageData)
        var badFilter = data
        badFilter[9 * 3] = 9  // row 3's filter byte
        #expect(kind(TestPNG.file(ihdr: ihdr, stream: TestPNG.zlibStored(badFilter))) == .filter)
    }

    @Test("the banded mask equals the whole-image resample plus apply", arguments: [
        (MaskOptions(sizePoints: 29, scale: 2), 1), (MaskOptions(sizePoints: 60, scale: 3, shape: .circular), 7),
        (MaskOptions(sizePoints: 58, shape: .none, stroke: false), 128), (MaskOptions(sizePoints: 1), 1),
    ])
    func bandedMatches(options: MaskOptions, bandRows: Int) throws {
        let input = TestSupport.syntheticInput()
        var whole = Resampler.resampleToFill(input, width: options.pixelSize, height: options.pixelSize)
        IconMasker.apply(options, to: &whole)
        #expect(IconMasker.mask(input, options: options, bandRows: bandRows) == whole.rgbaImage())
        #expect(try IconMasker.mask(input, options: options) == whole.rgbaImage())
    }

    @Test("an empty input gives the same stroke-only square in every band (the band buffer is cleared)")
    func emptyInputBands() {
        let options = MaskOptions(sizePoints: 29)
        let empty = RGBAImage(width: 0, height: 0, pixels: [])
        var whole = Resampler.resampleToFill(empty, width: 29, height: 29)
        IconMasker.apply(options, to: &whole)
        let out = IconMasker.mask(empty, options: options, bandRows: 5)
        #expect(out == whole.rgbaImage())
        #expect(out.pixels[3] == 0 && out.pixels.contains { $0 != 0 })
    }

    @Test("the plausible size bounds a stored PNG of the header's size and stays small for tiny images")
    func plausibleSize() throws {
        let ihdr = TestPNG.ihdr(width: 300, height: 200, depth: 16, type: 6, interlace: 1)
        let data = TestPNG.imageData(samples: Self.samples(width: 300, height: 200, channels: 4, depth: 16, seed: 3),
                                        width: 300, height: 200, depth: 16, channels: 4, interlaced: true)
        let png = TestPNG.file(ihdr: ihdr, stream: TestPNG.zlibStored(data))
        let header = try PNGDecoder.header(png)
        #expect(header.filteredDataSize == data.count)
        #expect(png.count <= header.largestPlausibleFileSize)
        #expect(PNGHeader.prefixSize == 49)
        let tiny = try PNGDecoder.header(TestPNG.file(ihdr: TestPNG.ihdr(width: 1, height: 1, depth: 1, type: 0),
                                                         stream: TestPNG.zlibStored([0, 0])))
        #expect(tiny.largestPlausibleFileSize < 17 << 20)
    }
}
