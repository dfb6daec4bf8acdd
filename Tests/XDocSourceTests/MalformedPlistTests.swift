import Foundation
import Testing
@testable import XDocSource

/// One hostile attribute value and a fragment its error message must contain.
struct MalformedCase: CustomTestStringConvertible, Sendable {
    let name: String
    let bytes: [UInt8]
    let fragment: String
    var testDescription: String { name }
}

typealias B = BPlistBuilder

/// A chain of `depth` one-element arrays, with 2-byte references and offsets.
func deepBinaryArrays(_ depth: Int) -> [UInt8] {
    var b = B()
    b.offsetSize = 2
    b.referenceSize = 2
    for i in 0..<depth { b.add([0xA1, UInt8((i + 1) >> 8), UInt8((i + 1) & 0xFF)]) }
    b.add([0x09])
    return b.bytes
}

/// Array i holds array i+1 twice: a few bytes that expand to 2^levels values.
func exponentialSharing(levels: Int) -> [UInt8] {
    var b = B()
    for i in 0..<levels { b.add([0xA2, UInt8(i + 1), UInt8(i + 1)]) }
    b.add([0x08])
    return b.bytes
}

let xmlHeader = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"#

let malformedCases: [MalformedCase] = {
    var cases: [MalformedCase] = []
    func add(_ name: String, _ bytes: [UInt8], _ fragment: String) {
        cases.append(MalformedCase(name: name, bytes: bytes, fragment: fragment))
    }
    let good = B.minimal().bytes
    add("empty", [], "empty")
    add("truncated (last 5 bytes cut)", Array(good.dropLast(5)), "binary plist")
    add("too short for a trailer", Array("bplist00".utf8) + [0xD0, 0, 0], "truncated")
    add("bad magic", Array("bplizt00".utf8) + Array(good.dropFirst(8)), "neither binary")
    add("unsupported version", Array("bplist17".utf8) + Array(good.dropFirst(8)), "version '17'")
    add("plain text", Array("hello world".utf8), "neither binary")

    var b = B.minimal(); b.offsetSize = 3
    add("trailer offset size 3", b.bytes, "offset size 3 is not 1, 2, 4 or 8")
    b = B.minimal(); b.referenceSize = 0
    add("trailer reference size 0", b.bytes, "reference size 0")
    b = B.minimal(); b.objectCountOverride = 0
    add("object count zero", b.bytes, "object count is zero")
    b = B.minimal(); b.objectCountOverride = 1 << 63
    add("absurd object count 2^63", b.bytes, "object count 9223372036854775808 is impossible")
    b = B.minimal(); b.objectCountOverride = UInt64.max
    add("object count 2^64-1", b.bytes, "impossible")
    b = B.minimal(); b.root = 3
    add("root index equal to the count", b.bytes, "root object 3 is not below the object count 3")
    b = B.minimal(); b.tableOffsetOverride = 1 << 40
    add("offset table beyond the data", b.bytes, "offset table lies outside the data")
    b = B.minimal(); b.tableOffsetOverride = 2
    add("offset table inside the header", b.bytes, "offset table lies outside the data")
    b = B.minimal(); b.tableOffsetOverride = UInt64(good.count - 34)
    add("offset table running into the trailer", b.bytes, "offset table lies outside the data")
    b = B.minimal(); b.offsetOverrides[1] = 3
    add("object offset into the header", b.bytes, "object 1 starts inside the header")
    b = B.minimal(); b.offsetOverrides[2] = 200
    add("object offset beyond the offset table", b.bytes, "object 2 starts at offset 200, beyond the objects")

    b = B(); b.add(B.dict([1], [7])); b.add(B.ascii("name"))
    add("reference index beyond the count", b.bytes, "refers to object 7, but there are only 2")
    b = B(); b.add(B.array([0]))
    add("array containing itself", b.bytes, "cycle")
    b = B(); b.add(B.dict([2], [1])); b.add(B.dict([2], [0])); b.add(B.ascii("k"))
    add("two dictionaries referring to each other", b.bytes, "cycle")
    add("10 000-deep binary nesting", deepBinaryArrays(10_000), "nested more than 64 levels deep")
    add("65-deep binary nesting", deepBinaryArrays(65), "nested more than 64 levels deep")
    add("exponential shared references (2^40 values)", exponentialSharing(levels: 40), "expands to more than 131072 values")
    b = B()
    for i in 0..<6 { b.add([0xA2, UInt8(i + 1), UInt8(i + 1)]) }
    b.add(B.ascii(String(repeating: "x", count: 30_000)))
    add("a 30 KB string shared 64 times", b.bytes, "expands to more than 1048576 bytes")
    b = B()
    for i in 0..<6 { b.add([0xA2, UInt8(i + 1), UInt8(i + 1)]) }
    b.add([0x4F, 0x11, 0x75, 0x30] + Array(repeating: 7, count: 30_000))
    add("30 KB of data shared 64 times", b.bytes, "expands to more than 1048576 bytes")

    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add(B.utf16([0x0041, 0xD800]))
    add("UTF-16 string ending in a lone high surrogate", b.bytes, "lone surrogate")
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add(B.utf16([0xDC00, 0x0041]))
    add("UTF-16 string with a lone low surrogate", b.bytes, "lone surrogate")
    b = B(); b.add(B.dict([1], [2])); b.add(B.utf16([0xD83D])); b.add(B.int(1))
    add("dictionary key with a lone surrogate", b.bytes, "lone surrogate")
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add([0x60])
    add("empty UTF-16 string (fuzzer finding: libplist 2.2 fails on it)", b.bytes, "empty UTF-16 string")
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add([0x52, 0x41, 0xE9])
    add("ASCII string with a byte above 0x7F", b.bytes, "non-ASCII byte")
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add([0x53, 0x61, 0x00, 0x62])
    add("ASCII string with a NUL byte", b.bytes, "NUL")
    b = B(); b.add(B.dict([1], [2])); b.add(B.int(5)); b.add(B.int(1))
    add("dictionary key that is an integer", b.bytes, "is not a string")
    b = B(); b.add(B.dict([1, 1], [2, 2])); b.add(B.ascii("name")); b.add(B.int(1))
    add("duplicate dictionary key", b.bytes, "has the key 'name' twice")
    b = B(); b.add(B.dict([1, 1], [2, 2])); b.add(B.utf16([0x61, 0x0A, 0x2028, 0x62])); b.add(B.int(1))
    add("duplicate key with a line break, quoted on one line", b.bytes, #"has the key 'a\u{a}\u{2028}b' twice"#)
    add("version with a line break", Array("bplist\n0".utf8) + Array(good.dropFirst(8)), #"version '\u{a}0'"#)
    add("XML character reference followed by a line break",
        Array((xmlHeader + "<dict><key>name</key><string>&#12\n</string></dict></plist>").utf8), #"'&#12\u{a}'"#)
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add([0x00])
    add("null object", b.bytes, "null")
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add([0x7F])
    add("unknown marker 0x7F", b.bytes, "marker 0x7f")
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add([0x4F, 0x10, 30, 1, 2])
    add("data length beyond the objects", b.bytes, "runs past the end")
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add([0x4F, 0x23, 1, 2, 3, 4, 5, 6, 7, 8])
    add("length given by a non-integer", b.bytes, "malformed length")
    b = B(); b.add([0xDF, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    add("dictionary claiming 2^63 entries", b.bytes, "more than the data holds")
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("n")); b.add([0x14, 1] + Array(repeating: 0, count: 15))
    add("16-byte integer above 64 bits", b.bytes, "does not fit in 64 bits")
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("n")); b.add([0x33, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0])
    add("date that is NaN", b.bytes, "not a representable time")
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("n")); b.add([0x82, 0, 0, 1])
    add("UID of 3 bytes", b.bytes, "size of 3 bytes")
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("n")); b.add([0x87, 0, 0, 1, 0, 0, 0, 0, 0])
    add("UID of 8 bytes (libplist 2.2 cannot read it)", b.bytes, "only 1, 2 or 4 (32-bit UIDs)")

    // 10 000 closed levels would exceed the size cap, so: 9 000 unclosed, and 4 000 closed.
    let unclosedXML = xmlHeader + String(repeating: "<array>", count: 9_000)
    add("9 000-deep XML nesting, unclosed", Array(unclosedXML.utf8), "nested more than 64 levels deep")
    let deepXML = xmlHeader + String(repeating: "<array>", count: 4_000) + String(repeating: "</array>", count: 4_000) + "</plist>"
    add("4 000-deep XML nesting", Array(deepXML.utf8), "nested more than 64 levels deep")
    let deepDictXML = xmlHeader + String(repeating: "<dict><key>k</key>", count: 65) + "<true/>" + String(repeating: "</dict>", count: 65) + "</plist>"
    add("65-deep XML dictionaries", Array(deepDictXML.utf8), "nested more than 64 levels deep")
    add("XML garbage", Array("<plist><dict><key>a</key><string>x</dict>~~~".utf8), "XML plist is malformed")
    add("XML unterminated tag", Array((xmlHeader + "<dict><key>a</key><string").utf8), "unterminated tag")
    add("XML with an entity declaration",
        Array(#"<?xml version="1.0"?><!DOCTYPE plist [<!ENTITY a "aaaa">]><plist><string>&a;</string></plist>"#.utf8),
        "entities")
    add("XML that is not UTF-8", Array(xmlHeader.utf8) + [0xFF, 0xFE] + Array("</plist>".utf8), "not valid UTF-8")
    add("XML character reference to a lone surrogate", Array((xmlHeader + "<dict><key>name</key><string>&#xD800;</string></dict></plist>").utf8), "invalid character reference '&#xD800;'")
    add("XML character reference to NUL", Array((xmlHeader + "<dict><key>name</key><string>a&#0;b</string></dict></plist>").utf8), "invalid character reference '&#0;'")
    add("XML character reference beyond Unicode", Array((xmlHeader + "<dict><key>name</key><string>&#99999999999;</string></dict></plist>").utf8), "invalid character reference")
    add("XML with a NUL byte", Array(xmlHeader.utf8) + [0] + Array("</plist>".utf8), "NUL")
    add("oversize value (65537 bytes)", Array("bplist00".utf8) + Array(repeating: 0, count: 65_529), "more than the 65536")

    b = B(); b.add(B.array([1])); b.add(B.ascii("x"))
    add("root that is an array", b.bytes, "root is an array, not a dictionary")
    add("XML root that is a string", Array((xmlHeader + "<string>x</string></plist>").utf8), "root is a string, not a dictionary")
    return cases
}()

@Suite("Malformed attribute values")
struct MalformedPlistTests {
    @Test("each malformed value is refused with a one-line message", arguments: malformedCases)
    func refused(_ malformed: MalformedCase) {
        let error = #expect(throws: PropertyListError.self) {
            try DocumentSource(propertyList: malformed.bytes)
        }
        guard let error else { return }
        #expect(error.message.contains(malformed.fragment), "message was: \(error.message)")
        #expect(!error.message.contains("\n"))
        #expect(error.description == error.message)
    }

    @Test("the builder's unmodified value is valid, so each case fails for its own reason")
    func builderBaseline() throws {
        let source = try DocumentSource(propertyList: B.minimal().bytes)
        #expect(source.name == "x")
        #expect(throws: Never.self) { try PropertyList.decode(exponentialSharing(levels: 10)) }
    }

    @Test("sharing that stays small is accepted (a DAG is not a cycle)")
    func smallSharing() throws {
        var b = B()
        b.add(B.dict([1, 2], [3, 3]))
        b.add(B.ascii("a"))
        b.add(B.ascii("b"))
        b.add(B.array([4, 4]))
        b.add(B.ascii("shared"))
        let source = try DocumentSource(propertyList: b.bytes)
        #expect(source.dictionary["a"] == .array([.string("shared"), .string("shared")]))
        #expect(source.dictionary["b"] == source.dictionary["a"])
        // 2^10 values from 11 small arrays is within the limit.
        var root = B()
        root.add(B.dict([1], [2]))
        root.add(B.ascii("tree"))
        for i in 0..<10 { root.add([0xA2, UInt8(i + 3), UInt8(i + 3)]) }
        root.add([0x08])
        #expect(throws: Never.self) { try DocumentSource(propertyList: root.bytes) }
    }

    @Test("64 levels of nesting are accepted in binary and XML")
    func depthLimitIsExact() throws {
        #expect(throws: Never.self) { try PropertyList.decode(deepBinaryArrays(64)) }
        let xml = xmlHeader + String(repeating: "<array>", count: 64) + String(repeating: "</array>", count: 64) + "</plist>"
        #expect(throws: Never.self) { try PropertyList.decode(Array(xml.utf8)) }
    }
}


/// The fuzzer's seeds and regression inputs (Fuzz/plist/corpus), replayed with its checks.
let fuzzCorpus: [String] = {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/plist/corpus")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.sorted().map { folder.appendingPathComponent($0).path }
}()

@Suite("Fuzz corpus replay")
struct PlistFuzzCorpusTests {
    @Test("the corpus is there")
    func present() {
        #expect(fuzzCorpus.count >= 12)
    }

    @Test("each seed decodes and round-trips, or is refused by the validator before libplist",
          arguments: fuzzCorpus)
    func replay(path: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        do {
            let source = try DocumentSource(propertyList: bytes)
            #expect(try DocumentSource(propertyList: source.binaryPropertyList()) == source)
        } catch {
            #expect(!error.message.contains("could not be parsed by libplist"), "\(error)")
            #expect(!error.message.contains("different structure"), "\(error)")
            #expect(!error.message.contains("differently than the validator"), "\(error)")
        }
    }
}

@Suite("XML nesting cannot be hidden from the depth check")
struct XMLDepthSpellingTests {
    @Test("every spelling of an opening tag counts toward the depth limit", arguments: [
        "<array >", "<array\t>", "<array\n>", #"<array a="1">"#, #"<array a=">">"#, "<array a=/>", "<array/ >",
        "<dict >", "<dict><key>k</key>",
    ])
    func spelling(open: String) {
        let close = open.hasPrefix("<dict") ? "</dict>" : "</array>"
        let xml = xmlHeader + String(repeating: open, count: 3_000) + String(repeating: close, count: 3_000) + "</plist>"
        #expect(throws: PropertyListError.self) { try DocumentSource(propertyList: Array(xml.utf8)) }
    }
}
