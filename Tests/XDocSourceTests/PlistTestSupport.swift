import Foundation
import XDSTestSupport
@testable import XDocSource

/// Builds binary plists object by object, with every trailer field overridable, so tests
/// can make exactly the malformed value they name.
struct BPlistBuilder {
    var objects: [[UInt8]] = []
    var offsetSize: UInt8 = 1
    var referenceSize: UInt8 = 1
    var root: UInt64 = 0
    var objectCountOverride: UInt64?
    var tableOffsetOverride: UInt64?
    var offsetOverrides: [Int: UInt64] = [:]
    var magic: [UInt8] = Array("bplist00".utf8)

    /// Adds an object and returns its index.
    @discardableResult
    mutating func add(_ bytes: [UInt8]) -> Int {
        objects.append(bytes)
        return objects.count - 1
    }

    var bytes: [UInt8] {
        var out = magic
        var offsets: [UInt64] = []
        for object in objects {
            offsets.append(UInt64(out.count))
            out += object
        }
        let table = UInt64(out.count)
        for (index, offset) in offsets.enumerated() {
            out += be(offsetOverrides[index] ?? offset, size: Int(offsetSize))
        }
        out += [0, 0, 0, 0, 0, 0, offsetSize, referenceSize]
        out += be(objectCountOverride ?? UInt64(objects.count), size: 8)
        out += be(root, size: 8)
        out += be(tableOffsetOverride ?? table, size: 8)
        return out
    }

    func be(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }

    // Object encoders.
    static func ascii(_ s: String) -> [UInt8] { header(0x5, s.utf8.count) + Array(s.utf8) }
    static func utf16(_ units: [UInt16]) -> [UInt8] {
        header(0x6, units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
    static func int(_ v: UInt8) -> [UInt8] { [0x10, v] }
    static func array(_ refs: [Int]) -> [UInt8] { header(0xA, refs.count) + refs.map { UInt8($0) } }
    static func dict(_ keys: [Int], _ values: [Int]) -> [UInt8] {
        header(0xD, keys.count) + keys.map { UInt8($0) } + values.map { UInt8($0) }
    }
    static func header(_ kind: UInt8, _ count: Int) -> [UInt8] {
        if count < 15 { return [kind << 4 | UInt8(count)] }
        if count >= 65536 { return [kind << 4 | 0xF, 0x12] + (0..<4).map { UInt8(truncatingIfNeeded: count >> (24 - 8 * $0)) } }
        if count < 256 { return [kind << 4 | 0xF, 0x10, UInt8(count)] }
        return [kind << 4 | 0xF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
    }

    /// A valid one-key dictionary {"name": "x"} to start from.
    static func minimal() -> BPlistBuilder {
        var b = BPlistBuilder()
        b.add(dict([1], [2]))
        b.add(ascii("name"))
        b.add(ascii("x"))
        return b
    }
}

/// Runs a command (`stdin`, when given, is fed on standard input; otherwise standard input is empty).
@discardableResult
func run(_ executable: String, _ arguments: [String], stdin: Data? = nil) async throws -> Run {
    try await ProcessRunner.run(executable, arguments, input: stdin ?? Data())
}

/// A fresh temporary folder, removed by the caller with `try? FileManager.default.removeItem`.
func makeTemporaryFolder() throws -> URL {
    try ScratchFolder.make(prefix: "xds-plist-tests")
}

/// A value of every plist type, nested, for round trips.
let everyTypeSample: [String: PropertyListValue] = [
    "string": .string("hello"),
    "empty": .string(""),
    "unicode": .string("Ünïcödé 日本語 🎉 e\u{301}"),
    "zero": .integer(0),
    "small": .integer(42),
    "int16": .integer(40_000),
    "int32": .integer(3_000_000_000),
    "negative": .integer(-1),
    "min": .integer(.min),
    "max": .integer(.max),
    "huge": .unsignedInteger(UInt64.max),
    "aboveInt64": .unsignedInteger(UInt64(Int64.max) + 1),
    "real": .real(3.141592653589793),
    "negativeReal": .real(-0.5),
    "true": .boolean(true),
    "false": .boolean(false),
    "date": .date(700_000_000.25),
    "negativeDate": .date(-1_000_000_000.5),
    "farDate": .date(63_113_904_000),  // Foundation's distantFuture, beyond int32 seconds
    "data": .data([0, 1, 2, 255, 128]),
    "emptyData": .data([]),
    "uid": .uid(7),
    "bigUID": .uid(4_000_000_000),  // UIDs are 32-bit in CoreFoundation and libplist 2.2
    "array": .array([.integer(1), .string("two"), .array([]), .dictionary([:])]),
    "nested": .dictionary([
        "inner": .dictionary(["deep": .array([.boolean(true), .data([9])])]),
        "list": .array([.real(1.5), .date(0)]),
    ]),
]
