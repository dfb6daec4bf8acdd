import Foundation
import XDSTestSupport

/// Makes the input files of the `mask` tests (they run `xds` with CLIHarness.swift's `xds`).
enum MaskHarness {
    /// A fresh temporary folder, removed by `cleanUp`.
    static func makeFolder() throws -> String {
        try ScratchFolder.make(prefix: "xds-mask-tests").path
    }

    static func cleanUp(_ folder: String) {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Writes a PNG of `width`×`height` 8-bit RGBA pixels given by `pixel(x, y)`, with stored
    /// (uncompressed) deflate blocks (``TestPNG``): made here so the tests do not depend on our encoder.
    static func writePNG(_ path: String, width: Int, height: Int,
                         pixel: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) throws {
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (1 + width * 4))
        for y in 0..<height {
            raw.append(0)  // filter: none
            for x in 0..<width {
                let (r, g, b, a) = pixel(x, y)
                raw += [r, g, b, a]
            }
        }
        let png = TestPNG.file(ihdr: TestPNG.ihdr(width: width, height: height, depth: 8, type: 6),
                               stream: TestPNG.zlibStored(raw))
        try Data(png).write(to: URL(fileURLWithPath: path))
    }

    /// Decodes the IHDR of `png`: (width, height, bit depth, colour type), or nil if not a PNG.
    static func header(_ png: [UInt8]) -> (width: Int, height: Int, depth: Int, colourType: Int)? {
        guard png.count >= 33, png[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
              String(decoding: png[12..<16], as: UTF8.self) == "IHDR" else { return nil }
        func u32(_ i: Int) -> Int { Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3]) }
        return (u32(16), u32(20), Int(png[24]), Int(png[25]))
    }

    static func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }
}
