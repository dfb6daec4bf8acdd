import Foundation
import Testing
@testable import XDocSource

@Suite("PropertyList round trips")
struct PropertyListRoundTripTests {
    @Test("every value type survives encode then decode", arguments: everyTypeSample.keys.sorted())
    func roundTripsEachType(key: String) throws {
        let value = everyTypeSample[key]!
        let bytes = try PropertyList.encodeBinary(.dictionary([key: value]))
        #expect(Array(bytes.prefix(8)) == Array("bplist00".utf8))
        #expect(try PropertyList.decode(bytes) == .dictionary([key: value]))
    }

    @Test("a whole nested dictionary of every type survives")
    func roundTripsEverything() throws {
        let bytes = try PropertyList.encodeBinary(.dictionary(everyTypeSample))
        #expect(try PropertyList.decode(bytes) == .dictionary(everyTypeSample))
    }

    @Test("dictionary keys are written in sorted order")
    func sortedKeys() throws {
        let bytes = try PropertyList.encodeBinary(.dictionary(["b": .integer(1), "c": .integer(2), "a": .integer(3)]))
        // One-character ASCII strings are the marker 0x51 followed by the character.
        func position(_ key: String) -> Int? {
            let code = key.utf8.first!
            return bytes.indices.dropLast().first { bytes[$0] == 0x51 && bytes[$0 + 1] == code }
        }
        let a = try #require(position("a")), b = try #require(position("b")), c = try #require(position("c"))
        #expect(a < b && b < c)
    }

    @Test("the fuzzer's first finding decodes and survives a round trip (equal data objects merged by libplist)")
    func fuzzRegression() throws {
        let seed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/plist/corpus/regression-utf16-keys.bplist")
        let source = try DocumentSource(propertyList: [UInt8](Data(contentsOf: seed)))
        #expect(source.dictionary.count == 4)
        #expect(source.warnings == ["'name' is data, not a string; ignored", "'path' is data, not a string; ignored"])
        #expect(try DocumentSource(propertyList: source.binaryPropertyList()) == source)
    }
}

@Suite("PropertyList precision with libplist 2.2")
struct PropertyListPrecisionTests {
    @Test("dates keep their exact double, finer than libplist's microseconds",
          arguments: [0.1234567, -0.0000001, 1e-9, 700_000_000.123456789, -978_307_200.987654321, 4_000_000_000.5])
    func exactDates(seconds: Double) throws {
        let bytes = try PropertyList.encodeBinary(.dictionary(["d": .date(seconds)]))
        guard case .dictionary(let entries) = try PropertyList.decode(bytes), case .date(let back) = entries["d"] else {
            Issue.record("no date back"); return
        }
        #expect(back.bitPattern == seconds.bitPattern)
    }

    @Test("negative integers are written as 8-byte signed integers")
    func negativeIntegers() throws {
        let bytes = try PropertyList.encodeBinary(.array([.integer(-2)]))
        // One 8-byte integer object: marker 0x13 then two's complement.
        let marker = bytes.firstIndex(of: 0x13)
        #expect(marker != nil)
        if let marker {
            #expect(Array(bytes[marker + 1..<marker + 9]) == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE])
        }
    }

    @Test("integers above Int64.max are written as 16-byte integers")
    func hugeIntegers() throws {
        let bytes = try PropertyList.encodeBinary(.array([.unsignedInteger(UInt64.max)]))
        let marker = bytes.firstIndex(of: 0x14)
        #expect(marker != nil)
        if let marker {
            #expect(Array(bytes[marker + 1..<marker + 17]) == Array(repeating: 0, count: 8) + Array(repeating: 0xFF, count: 8))
        }
    }

    @Test("16-byte integers are signed 128-bit: small negative ones decode, others are refused")
    func sixteenByteIntegers() throws {
        func value(_ high: UInt8, _ low: [UInt8]) -> [UInt8] {
            var b = BPlistBuilder()
            b.add([0x14] + Array(repeating: high, count: 8) + low)
            return b.bytes
        }
        #expect(try PropertyList.decode(value(0xFF, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE])) == .integer(-2))
        #expect(try PropertyList.decode(value(0x00, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE])) == .unsignedInteger(UInt64.max - 1))
        #expect(try PropertyList.decode(value(0x00, [0, 0, 0, 0, 0, 0, 0, 3])) == .integer(3))
        // -2^64 + 2: below Int64.min.
        #expect(throws: PropertyListError.self) { try PropertyList.decode(value(0xFF, [0, 0, 0, 0, 0, 0, 0, 2])) }
    }

    @Test("unsignedInteger at or below Int64.max decodes as integer")
    func canonicalIntegers() throws {
        let bytes = try PropertyList.encodeBinary(.array([.unsignedInteger(5)]))
        #expect(try PropertyList.decode(bytes) == .array([.integer(5)]))
    }

    @Test("UIDs above 32 bits cannot be encoded (libplist 2.2 would keep only the low 32 bits)")
    func bigUIDs() throws {
        #expect(throws: PropertyListError.self) { try PropertyList.encodeBinary(.uid(1 << 40)) }
        let bytes = try PropertyList.encodeBinary(.array([.uid(UInt64(UInt32.max))]))
        #expect(try PropertyList.decode(bytes) == .array([.uid(UInt64(UInt32.max))]))
    }

    @Test("strings with NUL cannot be encoded (libplist keeps C strings)")
    func nulStrings() {
        #expect(throws: PropertyListError.self) { try PropertyList.encodeBinary(.string("a\0b")) }
        #expect(throws: PropertyListError.self) { try PropertyList.encodeBinary(.dictionary(["a\0": .integer(1)])) }
    }

    @Test("encoding refuses nesting deeper than maximumDepth")
    func deepEncode() {
        var value = PropertyListValue.array([])
        for _ in 0..<PropertyList.maximumDepth { value = .array([value]) }
        #expect(throws: PropertyListError.self) { try PropertyList.encodeBinary(value) }
        var ok = PropertyListValue.array([])
        for _ in 0..<(PropertyList.maximumDepth - 1) { ok = .array([ok]) }
        #expect(throws: Never.self) { try PropertyList.decode(try PropertyList.encodeBinary(ok)) }
    }
}

@Suite("PropertyList worst-case time")
struct PropertyListTimeTests {
    /// A 60 KB binary plist: one array of 30 000 references to one boolean.
    static func bigArray(_ count: Int) -> [UInt8] {
        var b = BPlistBuilder()
        b.offsetSize = 2
        b.referenceSize = 2
        b.add(BPlistBuilder.header(0xA, count) + (0..<count).flatMap { _ in [UInt8(0), 1] })
        b.add([0x09])
        return b.bytes
    }

    @Test("a 30 000-element array decodes in well under a second (was 5 s) (libplist 2.2's get_item is linear)")
    func bigArrayIsFast() throws {
        let bytes = Self.bigArray(30_000)
        #expect(bytes.count < PropertyList.maximumSize)
        let clock = ContinuousClock()
        var value: PropertyListValue?
        let elapsed = try clock.measure { value = try PropertyList.decode(bytes) }
        if case .array(let elements) = value { #expect(elements.count == 30_000) } else { Issue.record("not an array") }
        #expect(elapsed < .milliseconds(1000), "took \(elapsed)")
    }

    @Test("a 3 000-key dictionary encodes and decodes in well under a second")
    func bigDictionaryIsFast() throws {
        var entries: [String: PropertyListValue] = [:]
        for i in 0..<3_000 { entries["k\(i)"] = .integer(Int64(i)) }
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            let bytes = try PropertyList.encodeBinary(.dictionary(entries))
            #expect(try PropertyList.decode(bytes) == .dictionary(entries))
        }
        #expect(elapsed < .milliseconds(1000), "took \(elapsed)")
    }
}
