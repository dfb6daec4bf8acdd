import Foundation
import Testing
import XDSTestSupport
import IconMask

/// The `.icns` container (Pillow's src/PIL/IcnsImagePlugin.py): files assembled by
/// scripts/make_icns.py from PNGs the IconMask encoder writes, and malformed files built byte by
/// byte.
@Suite struct ICNSTests {
    /// A PNG of `n`×`n` pixels whose colours depend on `seed`.
    static func png(_ n: Int, seed: Int) throws -> [UInt8] {
        var px: [UInt8] = []
        for y in 0..<n {
            for x in 0..<n { px += [UInt8((x * seed) & 0xFF), UInt8((y * 3) & 0xFF), UInt8(seed & 0xFF), 255] }
        }
        return try PNGEncoder.encode(RGBAImage(width: n, height: n, pixels: px))
    }

    /// Runs scripts/make_icns.py in `folder` with `arguments`; returns the file's bytes.
    static func makeICNS(in folder: URL, _ arguments: [String]) async throws -> [UInt8] {
        let out = folder.appendingPathComponent("test.icns").path
        let run = try await ProcessRunner.runOnPath(["python3", Repository.url("scripts/make_icns.py").path, out] + arguments,
                                              in: folder.path)
        guard run.status == 0 else { throw ScriptFailed(run: run) }
        return Array(try Data(contentsOf: URL(fileURLWithPath: out)))
    }

    struct ScriptFailed: Error, CustomStringConvertible {
        let run: Run
        var description: String { "make_icns.py failed: \(run)" }
    }

    /// Writes `bytes` to `folder/name`.
    static func write(_ bytes: [UInt8], _ folder: URL, _ name: String) throws {
        try Data(bytes).write(to: folder.appendingPathComponent(name))
    }

    @Test func pngElementsAndALegacyPair() async throws {
        let folder = try ScratchFolder.make(prefix: "icns-tests")
        defer { try? FileManager.default.removeItem(at: folder) }
        let small = try Self.png(128, seed: 5), large = try Self.png(1024, seed: 9)
        try Self.write(small, folder, "small.png")
        try Self.write(large, folder, "large.png")
        let bytes = try await Self.makeICNS(in: folder, ["is32=legacy", "s8mk=legacy", "ic07=small.png", "ic10=large.png"])
        let icns = try AppleIconFile(bytes: bytes)
        #expect(icns.elements.map(\.type) == ["is32", "s8mk", "ic07", "ic10"])
        #expect(icns.elements.map(\.pixelSize) == [16, 16, 128, 1024])
        #expect(icns.pngImages == [
            AppleIconFile.PNGImage(type: "ic07", pixelSize: 128, png: small),
            AppleIconFile.PNGImage(type: "ic10", pixelSize: 1024, png: large),
        ])
        #expect(icns.skippedImages == ["is32 (16×16, legacy RLE RGB): skipped"])
        // The data ranges cover the file exactly: headers of 8 bytes between them.
        var offset = 8
        for element in icns.elements {
            #expect(element.data.lowerBound == offset + 8)
            offset = element.data.upperBound
        }
        #expect(offset == bytes.count)
        // The PNGs decode to their own sizes.
        for image in icns.pngImages {
            let decoded = try PNGDecoder.decode(image.png)
            #expect(decoded.width == image.pixelSize && decoded.height == image.pixelSize)
        }
    }

    @Test func tableOfContentsAndEveryLegacyTypeAreSkippedAsTheyShouldBe() async throws {
        let folder = try ScratchFolder.make(prefix: "icns-tests")
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = try Self.png(16, seed: 3)
        try Self.write(png, folder, "p16.png")
        try Self.write([0, 0, 0, 12], folder, "version")
        let bytes = try await Self.makeICNS(in: folder, [
            "icnV=version", "il32=legacy", "l8mk=legacy", "ih32=legacy", "h8mk=legacy", "it32=legacy",
            "t8mk=legacy", "ic04=legacy", "icp4=p16.png", "info=version",
        ])
        // --toc must come before OUT, so this one is run directly.
        let run = try await ProcessRunner.runOnPath(["python3", Repository.url("scripts/make_icns.py").path, "--toc",
                                               "toc.icns", "icp4=p16.png", "it32=legacy"], in: folder.path)
        #expect(run.status == 0, "\(run)")
        let withTOC = try AppleIconFile(bytes: Array(try Data(contentsOf: folder.appendingPathComponent("toc.icns"))))
        #expect(withTOC.elements.map(\.type) == ["TOC ", "icp4", "it32"])
        #expect(withTOC.elements[0].pixelSize == nil)
        #expect(withTOC.pngImages.map(\.type) == ["icp4"])
        #expect(withTOC.skippedImages == ["it32 (128×128, legacy RLE RGB): skipped"])

        let icns = try AppleIconFile(bytes: bytes)
        #expect(icns.pngImages == [AppleIconFile.PNGImage(type: "icp4", pixelSize: 16, png: png)])
        #expect(icns.skippedImages == [
            "il32 (32×32, legacy RLE RGB): skipped", "ih32 (48×48, legacy RLE RGB): skipped",
            "it32 (128×128, legacy RLE RGB): skipped", "ic04 (16×16, legacy ARGB): skipped",
        ])
    }

    @Test func jpeg2000AndUnknownDataInAPNGTypeAreSkippedInWords() async throws {
        let folder = try ScratchFolder.make(prefix: "icns-tests")
        defer { try? FileManager.default.removeItem(at: folder) }
        let jp2: [UInt8] = [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A] + [UInt8](repeating: 7, count: 40)
        try Self.write(jp2, folder, "icon.jp2")
        try Self.write([0xFF, 0x4F, 0xFF, 0x51, 0, 0], folder, "icon.j2k")
        try Self.write(Array("not an image".utf8), folder, "junk")
        let png = try Self.png(256, seed: 1)
        try Self.write(png, folder, "p256.png")
        let icns = try await AppleIconFile(bytes: try Self.makeICNS(in: folder, [
            "ic10=icon.jp2", "ic09=icon.j2k", "ic08=p256.png", "ic13=junk",
        ]))
        #expect(icns.pngImages.map(\.type) == ["ic08"])
        #expect(icns.skippedImages == [
            "ic10 (1024×1024, JPEG 2000): skipped", "ic09 (512×512, JPEG 2000): skipped",
            "ic13 (256×256, neither PNG nor JPEG 2000): skipped",
        ])
    }

    @Test func bytesAfterTheDeclaredLengthAreIgnored() throws {
        let body: [UInt8] = Array("icp5".utf8) + [0, 0, 0, 12, 1, 2, 3, 4]
        let file = Array("icns".utf8) + [0, 0, 0, 20] + body + [0x0A, 0, 0]
        let icns = try AppleIconFile(bytes: file)
        #expect(icns.elements == [AppleIconFile.Element(type: "icp5", data: 16..<20, pixelSize: 32)])
        #expect(icns.pngImages.isEmpty)
        #expect(icns.skippedImages == ["icp5 (32×32, neither PNG nor JPEG 2000): skipped"])
    }

    @Test func unprintableTypesAreShownInHex() throws {
        let file = Array("icns".utf8) + [0, 0, 0, 20] + [0xFD, 0xD9, 0x2F, 0xA8, 0, 0, 0, 12, 9, 9, 9, 9]
        let icns = try AppleIconFile(bytes: file)
        #expect(icns.elements.map(\.type) == ["0xFDD92FA8"])
        #expect(icns.skippedImages.isEmpty)
    }

    // MARK: - Malformed files

    static func header(_ length: Int) -> [UInt8] {
        Array("icns".utf8) + [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
    }

    static let malformed: [(name: String, bytes: [UInt8], kind: AppleIconFileError.Kind, words: String)] = [
        ("bad magic", Array("ICNS".utf8) + [0, 0, 0, 8, 0, 0, 0, 0], .notICNS, "not an icns file"),
        ("PNG instead", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0], .notICNS, "starts with 0x89504E47"),
        ("empty file", [], .truncated, "0 bytes long, shorter than the 8-byte icns header"),
        ("cut header", Array("icns".utf8) + [0, 0], .truncated, "6 bytes long"),
        ("length beyond the end", header(4096) + Array("ic07".utf8) + [0, 0, 0, 8], .truncated,
         "total length of 4096 bytes but the file has only 16"),
        ("total length under 8", header(7), .badLength, "total length of 7 bytes, less than its own 8"),
        ("zero elements", header(8), .empty, "holds no icon elements"),
        ("element length < 8", header(20) + Array("ic07".utf8) + [0, 0, 0, 4, 0, 0, 0, 0], .badLength,
         "element 1 (ic07) at byte 8 gives a length of 4 bytes, less than its own 8-byte header"),
        ("overflowing element length", header(24) + Array("ic07".utf8) + [0, 0, 0, 8] + Array("ic10".utf8) + [0xFF, 0xFF, 0xFF, 0xFF],
         .truncated, "element 2 (ic10) at byte 16 is 4294967295 bytes long but only 8 bytes remain"),
        ("element past the end", header(20) + Array("ic08".utf8) + [0, 0, 0, 13, 1, 2, 3, 4], .truncated,
         "is 13 bytes long but only 12 bytes remain"),
        ("truncated element header", header(20) + Array("ic07".utf8) + [0, 0, 0, 8] + Array("ic08".utf8), .truncated,
         "element 2 header at byte 16 is cut short: 4 of its 8 bytes remain"),
    ]

    @Test(arguments: 0..<malformed.count)
    func malformedFilesAreRefusedInWords(_ index: Int) {
        let (name, bytes, kind, words) = Self.malformed[index]
        #expect(throws: AppleIconFileError.self, "\(name)") { _ = try AppleIconFile(bytes: bytes) }
        do {
            _ = try AppleIconFile(bytes: bytes)
        } catch {
            #expect(error.kind == kind, "\(name)")
            #expect(error.description.contains(words), "\(name): \(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func tooManyElementsAreRefused() {
        let count = AppleIconFile.maximumElementCount + 1
        var file = Self.header(8 + count * 8)
        for _ in 0..<count { file += Array("icnV".utf8) + [0, 0, 0, 8] }
        #expect { _ = try AppleIconFile(bytes: file) } throws: { error in
            (error as? AppleIconFileError)?.kind == .tooManyElements
        }
        // One fewer is fine.
        let fewer = Self.header(8 + (count - 1) * 8) + Array(file[8..<(8 + (count - 1) * 8)])
        #expect(throws: Never.self) { _ = try AppleIconFile(bytes: fewer) }
    }

    /// Every prefix of a good file either parses or throws: none traps.
    @Test func everyTruncationThrowsOrParses() throws {
        let png = try Self.png(16, seed: 2)
        let body = Array("icp4".utf8) + TestPNG.be32(UInt32(8 + png.count)) + png
        let file = Self.header(8 + body.count) + body
        for cut in 0...file.count {
            var prefix = Array(file[..<cut])
            if cut >= 8 { prefix.replaceSubrange(4..<8, with: TestPNG.be32(UInt32(cut))) }
            do {
                let icns = try AppleIconFile(bytes: prefix)
                #expect(cut == file.count)
                #expect(icns.pngImages.first?.png == png)
            } catch {
                #expect(cut < file.count)
                #expect(!error.description.isEmpty)
            }
        }
    }
}
