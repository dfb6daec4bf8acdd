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
    /// (uncompressed) deflate blocks: made here so the tests do not depend on our encoder.
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
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", be32(width) + be32(height) + [8, 6, 0, 0, 0])
        png += chunk("IDAT", zlibStored(raw))
        png += chunk("IEND", [])
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

    // MARK: - PNG pieces

    private static func be32(_ v: Int) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    private static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return be32(body.count) + typed + be32(Int(crc32(typed)))
    }

    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var pos = 0
        repeat {
            let n = min(65535, data.count - pos)
            let last: UInt8 = pos + n == data.count ? 1 : 0
            out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[pos..<pos + n]
            pos += n
        } while pos < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + be32(Int(b << 16 | a))
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }
}
