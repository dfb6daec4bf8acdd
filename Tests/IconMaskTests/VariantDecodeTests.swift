import Foundation
import Testing
import XDSTestSupport
@testable import IconMask

/// Every PNG variant an icon arrives in, against an independent decoder: the project icon
/// (img/icon-1024.png, given an alpha channel) is written as RGBA8 with every row filter,
/// Adam7 RGBA8 and grey + alpha, grey + alpha, palette + tRNS at 8 and 4 bits, and RGBA16 by
/// scripts/make_decode_variants.py, which also writes Pillow's decoding of each file; ours must
/// give the same bytes. (The corpus of real third-party icons runs in `make bench`.)
@Suite struct VariantDecodeTests {
    /// One variant: the PNG file and Pillow's RGBA8 decoding of it.
    struct Variant: Sendable {
        let png: [UInt8], pillow: [UInt8]
    }

    /// The variants, made once per test run in a temporary folder, read, and the folder removed.
    static var variants: Result<[String: Variant], VariantsUnavailable> {
        get async { await made.value }
    }

    private static let made = Task<Result<[String: Variant], VariantsUnavailable>, Never> {
        do {
            let folder = try ScratchFolder.make(prefix: "iconmask-variants")
            defer { try? FileManager.default.removeItem(at: folder) }
            let run = try await ProcessRunner.runOnPath([
                "python3", Repository.url("scripts/make_decode_variants.py").path,
                Repository.url("img/icon-1024.png").path, folder.path,
            ])
            guard run.status == 0 else { return .failure(VariantsUnavailable(reason: run.stderr)) }
            var found: [String: Variant] = [:]
            for file in run.stdout.split(separator: "\n") where file.hasSuffix(".png") {
                let name = String(file.dropLast(4))
                found[name] = Variant(
                    png: [UInt8](try Data(contentsOf: folder.appendingPathComponent(name + ".png"))),
                    pillow: [UInt8](try Data(contentsOf: folder.appendingPathComponent(name + ".rgba"))))
            }
            return .success(found)
        } catch {
            return .failure(VariantsUnavailable(reason: "\(error)"))
        }
    }

    struct VariantsUnavailable: Error, CustomStringConvertible {
        let reason: String
        var description: String { "make_decode_variants.py failed: \(reason)" }
    }

    @Test(arguments: [
        "pillow-rgba8", "rgba8-filters", "rgba8-adam7", "pillow-grey-alpha", "grey-alpha-adam7",
        "pillow-palette8", "pillow-palette4", "rgba16",
    ])
    func matchesPillow(_ name: String) async throws {
        let variant = try #require(try await Self.variants.get()[name], "make_decode_variants.py wrote no \(name).png")
        let image = try PNGDecoder.decode(variant.png)
        #expect(image.width == 1024 && image.height == 1024)
        try #require(image.pixels.count == variant.pillow.count)
        if image.pixels != variant.pillow {
            let first = image.pixels.indices.first { image.pixels[$0] != variant.pillow[$0] } ?? 0
            Issue.record("\(name): differs from Pillow's decoding first at pixel \(first / 4), sample \(first % 4)")
        }
    }

    @Test("the variants exercise alpha: clear, half-clear and opaque pixels")
    func variantsHaveAlpha() async throws {
        let pillow = try #require(try await Self.variants.get()["pillow-rgba8"]).pillow
        let alphas = Set(stride(from: 3, to: pillow.count, by: 4).map { pillow[$0] })
        #expect(alphas.isSuperset(of: [0, 128, 255]))
    }
}
