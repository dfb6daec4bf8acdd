import Testing
@testable import IconMask

/// The encoder's vectorised filter costs equal the byte-by-byte definition, so it picks the
/// same filter for every row (and writes the same file) as the plain loop.
@Suite("Encoder filter costs")
struct FilterCostTests {
    /// Σ |byte as Int8| of the row under None, Sub, Up, Average and Paeth, byte by byte.
    static func reference(_ cur: [UInt8], _ prev: [UInt8]) -> [Int] {
        var s = [0, 0, 0, 0, 0]
        func cost(_ v: UInt8) -> Int { abs(Int(Int8(bitPattern: v))) }
        for i in cur.indices {
            let x = Int(cur[i]), b = Int(prev[i])
            let a = i >= 4 ? Int(cur[i - 4]) : 0, c = i >= 4 ? Int(prev[i - 4]) : 0
            let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
            let paeth = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
            for (k, pred) in [0, a, b, (a + b) / 2, paeth].enumerated() { s[k] += cost(UInt8(truncatingIfNeeded: x - pred)) }
        }
        return s
    }

    @Test("equal to the byte-by-byte sums", arguments: [1, 4, 7, 19, 20, 36, 232, 720, 964, 4100, 16_384])
    func matches(rowBytes: Int) {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D &+ UInt64(rowBytes)
        func byte() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        // Random rows, smooth rows (small differences) and extreme rows (all 0 / all 255
        // against each other: the largest costs, which would overflow narrow sums).
        let rows: [([UInt8], [UInt8])] = [
            ((0..<rowBytes).map { _ in byte() }, (0..<rowBytes).map { _ in byte() }),
            ((0..<rowBytes).map { UInt8(truncatingIfNeeded: $0 / 3 + Int(byte() & 3)) },
             (0..<rowBytes).map { UInt8(truncatingIfNeeded: $0 / 3) }),
            ([UInt8](repeating: 128, count: rowBytes), [UInt8](repeating: 0, count: rowBytes)),
            ((0..<rowBytes).map { $0 % 8 < 4 ? 255 : 0 }, (0..<rowBytes).map { $0 % 8 < 4 ? 0 : 255 }),
        ]
        for (cur, prev) in rows {
            let got = cur.withUnsafeBufferPointer { c in
                prev.withUnsafeBufferPointer { p in PNGEncoder.filterCosts(c, p) }
            }
            #expect([got.0, got.1, got.2, got.3, got.4] == Self.reference(cur, prev))
        }
    }
}
