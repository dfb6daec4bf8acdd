import Foundation
import Testing
import XDSTestSupport
@testable import IconMask

@Suite("PNG encoder")
struct PNGEncoderTests {
    /// Images that exercise the filters: flat, gradients, noise, transparency, odd sizes.
    static let images: [(String, RGBAImage)] = {
        func make(_ w: Int, _ h: Int, _ f: (Int, Int) -> (Int, Int, Int, Int)) -> RGBAImage {
            var px = [UInt8]()
            px.reserveCapacity(w * h * 4)
            for y in 0..<h { for x in 0..<w { let p = f(x, y); px += [UInt8(p.0 & 255), UInt8(p.1 & 255), UInt8(p.2 & 255), UInt8(p.3 & 255)] } }
            return RGBAImage(width: w, height: h, pixels: px)
        }
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random() -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int(seed >> 33) }
        return [
            ("1x1", make(1, 1) { _, _ in (1, 2, 3, 4) }),
            ("gradient", make(64, 48) { x, y in (x * 4, y * 5, x + y, 255) }),
            ("noise", make(37, 23) { _, _ in (random(), random(), random(), random()) }),
            ("tall", make(3, 300) { x, y in (y, x * 80, 255 - y, y * 7) }),
            ("synthetic", TestSupport.syntheticInput()),
        ]
    }()

    @Test("writes the PNG signature, an RGBA8 IHDR and a correct CRC on IEND")
    func structure() throws {
        let png = try PNGEncoder.encode(Self.images[1].1)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(Array(png[8..<16]) == [0, 0, 0, 13] + Array("IHDR".utf8))
        #expect(Array(png[16..<29]) == [0, 0, 0, 64, 0, 0, 0, 48, 8, 6, 0, 0, 0])
        // IEND's CRC is the well-known AE 42 60 82.
        #expect(Array(png.suffix(12)) == [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82])
    }

    @Test("refuses an empty image with a message in words")
    func empty() {
        let e = #expect(throws: PNGError.self) { try PNGEncoder.encode(RGBAImage(width: 0, height: 5, pixels: [])) }
        #expect(e?.description.contains("empty") == true)
    }

    @Test("chooses filters per row: a smooth gradient gets non-None filters, and not one for every row")
    func filtersVary() {
        // Rows alternate between a horizontal gradient (Sub wins) and a copy of the row above (Up wins).
        var px = [UInt8]()
        for y in 0..<16 {
            for x in 0..<32 { let v = UInt8((x * 7 + (y / 2) * 3) & 255); px += [v, v &+ 1, v &+ 2, 255] }
        }
        let image = RGBAImage(width: 32, height: 16, pixels: px)
        let data = PNGEncoder.filterRows(image)
        let types = (0..<16).map { data[$0 * (32 * 4 + 1)] }
        #expect(types.allSatisfy { $0 <= 4 })
        #expect(types.contains { $0 != 0 })
        #expect(Set(types).count >= 2, "filter types per row: \(types)")
        #expect(types[1] == 2, "row 1 repeats row 0, so Up should win: \(types)")
    }

    @Test("every filter undoes exactly (unfiltered here by the PNG rules)")
    func filtersInvert() {
        let image = Self.images[2].1
        let rowBytes = image.width * 4
        image.pixels.withUnsafeBufferPointer { px in
            let zero = [UInt8](repeating: 0, count: rowBytes)
            zero.withUnsafeBufferPointer { zero in
                for y in 0..<image.height {
                    let cur = UnsafeBufferPointer(rebasing: px[(y * rowBytes)..<((y + 1) * rowBytes)])
                    let prev = y == 0 ? zero : UnsafeBufferPointer(rebasing: px[((y - 1) * rowBytes)..<(y * rowBytes)])
                    for f in 0..<5 {
                        var back = [UInt8](repeating: 0, count: rowBytes)
                        for i in 0..<rowBytes {
                            let a = i >= 4 ? back[i - 4] : 0, b = prev[i], c = i >= 4 ? prev[i - 4] : 0
                            let pred: UInt8 = switch f {
                            case 0: 0
                            case 1: a
                            case 2: b
                            case 3: UInt8((Int(a) + Int(b)) / 2)
                            default: paeth(a, b, c)
                            }
                            back[i] = PNGEncoder.filtered(f, cur, prev, i) &+ pred
                        }
                        #expect(back == Array(cur), "filter \(f) row \(y)")
                    }
                }
            }
        }
    }

    @Test("output passes pngcheck and Pillow decodes it to the same pixels", arguments: 0..<5)
    func externalDecoders(index: Int) async throws {
        let (name, image) = Self.images[index]
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("\(name).png"), raw = dir.appendingPathComponent("\(name).rgba")
        try Data(try PNGEncoder.encode(image)).write(to: png)

        let check = try await ProcessRunner.runOnPath(["pngcheck", "-q", png.path])
        #expect(check.status == 0, "pngcheck: \(check.stdout) \(check.stderr)")

        let script = """
        import sys
        from PIL import Image
        im = Image.open(sys.argv[1]); im.load()
        assert im.mode == "RGBA", im.mode
        open(sys.argv[2], "wb").write(im.tobytes())
        """
        let py = try await ProcessRunner.runOnPath(["python3", "-c", script, png.path, raw.path])
        #expect(py.status == 0, "python3: \(py.stderr)")
        #expect(try [UInt8](Data(contentsOf: raw)) == image.pixels)
    }

    @Test("our decoder reads back exactly what was encoded", arguments: 0..<5)
    func roundTrip(index: Int) throws {
        let image = Self.images[index].1
        #expect(try PNGDecoder.decode(try PNGEncoder.encode(image)) == image)
    }

    @Test("a masked icon encodes, decodes and re-encodes to the same bytes")
    func maskedRoundTrip() throws {
        let masked = try IconMasker.mask(TestSupport.syntheticInput(), options: MaskOptions(sizePoints: 29, scale: 2))
        let png = try PNGEncoder.encode(masked)
        let back = try PNGDecoder.decode(png)
        #expect(back == masked)
        #expect(try PNGEncoder.encode(back) == png)
    }

    @Test("every chunk's CRC matches an independent CRC-32")
    func chunkCRCs() throws {
        let png = try PNGEncoder.encode(TestSupport.syntheticInput())
        var at = 8, types: [String] = []
        while at + 12 <= png.count {
            let length = Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3])
            let body = Array(png[(at + 4)..<(at + 8 + length)])
            let crc = Array(png[(at + 8 + length)..<(at + 12 + length)])
            #expect(crc == TestPNG.be32(TestPNG.crc32(body)))
            types.append(String(decoding: body.prefix(4), as: UTF8.self))
            at += 12 + length
        }
        #expect(at == png.count && types == ["IHDR", "IDAT", "IEND"])
    }

    @Test("PngSuite round-trips: decode, encode, decode gives the same pixels")
    func pngSuiteRoundTrip() throws {
        let dir = Fixtures.url("pngsuite/images")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasSuffix(".png") && !$0.hasPrefix("x") }.sorted()
        #expect(names.count >= 150)
        for name in names {
            let image = try PNGDecoder.decode(Fixtures.bytes("pngsuite/images/\(name)"))
            #expect(try PNGDecoder.decode(PNGEncoder.encode(image)) == image, "\(name)")
        }
    }

    @Test("both zlib back ends give a valid stream of the same data, libdeflate is the one used")
    func backends() throws {
        let data = PNGEncoder.filterRows(Self.images[4].1)
        let a = try ZlibCompressor.compress(data, backend: .libdeflate)
        let b = try ZlibCompressor.compress(data, backend: .zlib)
        // zlib header: CM = 8, window 32 KiB, check bits make the first two bytes a multiple of 31.
        for s in [a, b] {
            #expect(s[0] == 0x78)
            #expect((Int(s[0]) << 8 | Int(s[1])) % 31 == 0)
            #expect(s.count < data.count)
        }
    }
}
