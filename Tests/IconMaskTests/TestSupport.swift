import Foundation
import XDSTestSupport
@testable import IconMask

/// Helpers shared by the IconMask test suites.
enum TestSupport {
    /// The folder holding this file's golden outputs.
    static let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Golden")

    /// The 160×128 synthetic input of scripts/make_mask_goldens.py, built from the same formulas:
    /// gradients, a sawtooth, a transparent disc (hidden colour green) and a transparent corner
    /// (hidden colour magenta), and a half-transparent band on the right.
    static func syntheticInput() -> RGBAImage {
        let w = 160, h = 128
        var px = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let r = x * 255 / 159, g = y * 255 / 127, b = (x * 3 + y * 5) % 256
                let dx = x - 40, dy = y - 30
                let p: (Int, Int, Int, Int)
                if dx * dx + dy * dy < 400 {
                    p = (0, 255, 0, 0)
                } else if x >= 120 {
                    p = (r, g, b, 128)
                } else if y >= 100 && x < 60 {
                    p = (255, 0, 255, 0)
                } else {
                    p = (r, g, b, 255)
                }
                let i = (y * w + x) * 4
                px[i] = UInt8(p.0); px[i + 1] = UInt8(p.1); px[i + 2] = UInt8(p.2); px[i + 3] = UInt8(p.3)
            }
        }
        return RGBAImage(width: w, height: h, pixels: px)
    }

    /// A fresh temporary folder, removed by the caller with `removeItem`.
    static func temporaryDirectory() throws -> URL {
        try ScratchFolder.make(prefix: "iconmask-tests")
    }

    /// A straight 8-bit pixel premultiplied, in 0…255 units.
    static func premultiplied(_ image: RGBAImage, _ i: Int) -> SIMD4<Double> {
        let p = image.pixels
        let a = Double(p[i * 4 + 3])
        return SIMD4(Double(p[i * 4]) * a / 255, Double(p[i * 4 + 1]) * a / 255, Double(p[i * 4 + 2]) * a / 255, a)
    }
}
