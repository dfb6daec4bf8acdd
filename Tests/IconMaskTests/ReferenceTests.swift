import Foundation
import Testing
import XDSTestSupport
@testable import IconMask

/// Runs the project's float64 reference (scripts/reference_mask.py) live on the project's own
/// icon and compares our floating-point result before 8-bit rounding.
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
    func matches(c: Case) async throws {
        let input = Repository.url(c.file)
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("ref.f32")
        var arguments = ["python3", Repository.url("scripts/reference_mask.py").path, input.path, "\(c.size)",
                         "--filter", c.filter.rawValue, "--shape", c.shape.rawValue, "--f32", raw.path]
        if !c.stroke { arguments.append("--no-stroke") }
        let run = try await ProcessRunner.runOnPath(arguments)
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
