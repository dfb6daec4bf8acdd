import Foundation
import Testing
import XDSTestSupport
import IconMask

/// Every PngSuite file: the valid ones decode to the expected RGBA (±1 on 16-bit), the
/// corrupt ones (`x…`) are refused.
@Suite struct PNGSuiteDecodeTests {
    struct Entry: Sendable {
        let name: String
        let valid: Bool
        let width: Int, height: Int, bitDepth: Int
        let expected: String?
    }

    static let entries: [Entry] = {
        guard let data = try? Data(contentsOf: Fixtures.url("pngsuite/MANIFEST.json")),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: [String: Any]] else { return [] }
        return json.keys.sorted().map { name in
            let e = json[name]!
            return Entry(name: name, valid: e["valid"] as? Bool ?? false,
                         width: e["width"] as? Int ?? 0, height: e["height"] as? Int ?? 0,
                         bitDepth: e["bit_depth"] as? Int ?? 0, expected: e["expected"] as? String)
        }
    }()

    @Test func manifestIsComplete() {
        #expect(Self.entries.count == 174)
        #expect(Self.entries.filter(\.valid).count == 160)
    }

    @Test(arguments: entries.filter(\.valid).map(\.name))
    func validFileDecodes(_ name: String) throws {
        let entry = try #require(Self.entries.first { $0.name == name })
        let image = try PNGDecoder.decode(try Fixtures.bytes("pngsuite/images/" + name))
        #expect(image.width == entry.width && image.height == entry.height)
        let expected = try Fixtures.bytes("pngsuite/" + entry.expected!)
        try #require(image.pixels.count == expected.count)
        let tolerance = entry.bitDepth == 16 ? 1 : 0
        let worst = zip(image.pixels, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= tolerance, "\(name): largest sample difference \(worst)")
    }

    @Test(arguments: entries.filter { !$0.valid }.map(\.name))
    func corruptFileIsRefused(_ name: String) throws {
        let bytes = try Fixtures.bytes("pngsuite/images/" + name)
        let error = #expect(throws: PNGError.self) { try PNGDecoder.decode(bytes) }
        #expect(error?.description.isEmpty == false)
        #expect(error?.description.contains("\n") == false)
    }

    /// The corrupt files are refused for their own reason, not a later accident.
    @Test(arguments: [
        ("xs1n0g01.png", PNGError.Kind.signature), ("xs2n0g01.png", .signature), ("xs4n0g01.png", .signature),
        ("xs7n0g01.png", .signature), ("xcrn0g04.png", .signature), ("xlfn0g04.png", .signature),
        ("xc1n0g08.png", .header), ("xc9n2c08.png", .header), ("xd0n2c08.png", .header),
        ("xd3n2c08.png", .header), ("xd9n2c08.png", .header), ("xhdn0g08.png", .checksum),
        ("xcsn0g01.png", .checksum), ("xdtn0g01.png", .imageData),
    ])
    func corruptFileReason(_ name: String, _ kind: PNGError.Kind) throws {
        let bytes = try Fixtures.bytes("pngsuite/images/" + name)
        let error = #expect(throws: PNGError.self) { try PNGDecoder.decode(bytes) }
        #expect(error?.kind == kind, "\(name): \(error?.description ?? "no error")")
    }
}
