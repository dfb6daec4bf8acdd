import Foundation
import Testing
@testable import IconMask

/// Runs the shared float64 reference (bench/reference_mask.py) live on the project's own icon
/// and compares our floating-point result before 8-bit rounding.
@Suite("Against reference_mask.py")
struct ReferenceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let file: String, size: Int, filter: ResampleFilter, shape: IconShape, stroke: Bool
        var testDescription: String { "\(file) \(size) \(filter.rawValue) \(shape.rawValue)\(stroke ? "" : " no-stroke")" }
    }

    static let cases: [Case] = [
        Case(file: "img/icon-87.png", size: 29, filter: .lanczos3, shape: .circular, stroke: true),
        Case(file: "img/icon-87.png", size: 58, filter: .lanczos3, shape: .circular, stroke: false),
        Case(file: "img/icon-87.png", size: 40, filter: .area, shape: .circular, stroke: true),
        Case(file: "img/icon-58.png", size: 120, filter: .lanczos3, shape: .none, stroke: true),
    ]

    @Test("premultiplied result within 0.03/255 of the float64 reference", arguments: cases)
    func matches(c: Case) throws {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let input = repo.appendingPathComponent(c.file)
        let bench = SharedInputs.root.appendingPathComponent("bench")
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("ref.f32")
        let script = """
        import sys
        sys.path.insert(0, sys.argv[1])
        import numpy as np, reference_mask as rm
        out = rm.reference(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], float(sys.argv[6]))
        out.astype("<f4").tofile(sys.argv[7])
        """
        let run = try TestSupport.run(["python3", "-c", script, bench.path, input.path, "\(c.size)", c.filter.rawValue,
                                       c.shape.rawValue, c.stroke ? "1" : "0", raw.path])
        try #require(run.status == 0, "reference_mask.py: \(run.stderr)")
        let data = try Data(contentsOf: raw)
        let expected = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }

        let image = try PNGDecoder.decode([UInt8](Data(contentsOf: input)))
        let options = MaskOptions(sizePoints: c.size, shape: c.shape, stroke: c.stroke, filter: c.filter)
        var ours = Resampler.resampleToFill(image, width: c.size, height: c.size, filter: c.filter)
        IconMasker.apply(options, to: &ours)
        #expect(ours.pixels.count == expected.count)
        var worst: Float = 0
        for i in 0..<min(ours.pixels.count, expected.count) { worst = max(worst, abs(ours.pixels[i] - expected[i])) }
        #expect(worst * 255 < 0.03, "worst difference \(worst * 255)/255")
    }
}
