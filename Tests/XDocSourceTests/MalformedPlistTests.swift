import Foundation
import Testing
@testable import XDocSource

/// One hostile attribute value and the kind of error it must raise.
struct MalformedCase: CustomTestStringConvertible, Sendable {
    let name: String
    let bytes: [UInt8]
    let kind: PropertyListError.Kind
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
    func add(_ name: String, _ bytes: [UInt8], _ kind: PropertyListError.Kind) {
        cases.append(MalformedCase(name: name, bytes: bytes, kind: kind))
    }
    let good = B.minimal().bytes
    add("empty", [], .notAPropertyList)
    add("truncated (last 5 bytes cut)", Array(good.dropLast(5)), .trailer)
    add("too short for a trailer", Array("bplist00".utf8) + [0xD0, 0, 0], .trailer)
    add("bad magic", Array("bplizt00".utf8) + Array(good.dropFirst(8)), .notAPropertyList)
    add("unsupported version", Array("bplist17".utf8) + Array(good.dropFirst(8)), .notAPropertyList)
    add("plain text", Array("hello world".utf8), .notAPropertyList)

    var b = B.minimal(); b.offsetSize = 3
    add("trailer offset size 3", b.bytes, .trailer)
    b = B.minimal(); b.referenceSize = 0
    add("trailer reference size 0", b.bytes, .trailer)
    b = B.minimal(); b.objectCountOverride = 0
    add("object count zero", b.bytes, .trailer)
    b = B.minimal(); b.objectCountOverride = 1 << 63
    add("absurd object count 2^63", b.bytes, .trailer)
    b = B.minimal(); b.objectCountOverride = UInt64.max
    add("object count 2^64-1", b.bytes, .trailer)
    b = B.minimal(); b.root = 3
    add("root index equal to the count", b.bytes, .trailer)
    b = B.minimal(); b.tableOffsetOverride = 1 << 40
    add("offset table beyond the data", b.bytes, .trailer)
    b = B.minimal(); b.tableOffsetOverride = 2
    add("offset table inside the header", b.bytes, .trailer)
    b = B.minimal(); b.tableOffsetOverride = UInt64(good.count - 34)
    add("offset table running into the trailer", b.bytes, .trailer)
    b = B.minimal(); b.offsetOverrides[1] = 3
    add("object offset into the header", b.bytes, .offsetTable)
    b = B.minimal(); b.offsetOverrides[2] = 200
    add("object offset beyond the offset table", b.bytes, .offsetTable)

    b = B(); b.add(B.dict([1], [7])); b.add(B.ascii("name"))
    add("reference index beyond the count", b.bytes, .reference)
    b = B(); b.add(B.array([0]))
    add("array containing itself", b.bytes, .cycle)
    b = B(); b.add(B.dict([2], [1])); b.add(B.dict([2], [0])); b.add(B.ascii("k"))
    add("two dictionaries referring to each other", b.bytes, .cycle)
    add("10 000-deep binary nesting", deepBinaryArrays(10_000), .tooDeep)
    add("65-deep binary nesting", deepBinaryArrays(65), .tooDeep)
    add("exponential shared references (2^40 values)", exponentialSharing(levels: 40), .expansion)
    b = B()
    for i in 0..<6 { b.add([0xA2, UInt8(i + 1), UInt8(i + 1)]) }
    b.add(B.ascii(String(repeating: "x", count: 30_000)))
    add("a 30 KB string shared 64 times", b.bytes, .expansion)
    b = B()
    for i in 0..<6 { b.add([0xA2, UInt8(i + 1), UInt8(i + 1)]) }
    b.add([0x4F, 0x11, 0x75, 0x30] + Array(repeating: 7, count: 30_000))
    add("30 KB of data shared 64 times", b.bytes, .expansion)

    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add(B.utf16([0x0041, 0xD800]))
    add("UTF-16 string ending in a lone high surrogate", b.bytes, .text)
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add(B.utf16([0xDC00, 0x0041]))
    add("UTF-16 string with a lone low surrogate", b.bytes, .text)
    b = B(); b.add(B.dict([1], [2])); b.add(B.utf16([0xD83D])); b.add(B.int(1))
    add("dictionary key with a lone surrogate", b.bytes, .text)
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add([0x60])
    add("empty UTF-16 string (fuzzer finding: libplist 2.2 fails on it)", b.bytes, .text)
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add([0x52, 0x41, 0xE9])
    add("ASCII string with a byte above 0x7F", b.bytes, .text)
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add([0x53, 0x61, 0x00, 0x62])
    add("ASCII string with a NUL byte", b.bytes, .text)
    b = B(); b.add(B.dict([1], [2])); b.add(B.int(5)); b.add(B.int(1))
    add("dictionary key that is an integer", b.bytes, .object)
    b = B(); b.add(B.dict([1, 1], [2, 2])); b.add(B.ascii("name")); b.add(B.int(1))
    add("duplicate dictionary key", b.bytes, .duplicateKey)
    b = B(); b.add(B.dict([1, 1], [2, 2])); b.add(B.utf16([0x61, 0x0A, 0x2028, 0x62])); b.add(B.int(1))
    add("duplicate key with a line break, quoted on one line", b.bytes, .duplicateKey)
    add("version with a line break", Array("bplist\n0".utf8) + Array(good.dropFirst(8)), .notAPropertyList)
    add("XML character reference followed by a line break",
        Array((xmlHeader + "<dict><key>name</key><string>&#12\n</string></dict></plist>").utf8), .text)
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add([0x00])
    add("null object", b.bytes, .object)
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add([0x7F])
    add("unknown marker 0x7F", b.bytes, .object)
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add([0x4F, 0x10, 30, 1, 2])
    add("data length beyond the objects", b.bytes, .object)
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("name")); b.add([0x4F, 0x23, 1, 2, 3, 4, 5, 6, 7, 8])
    add("length given by a non-integer", b.bytes, .object)
    b = B(); b.add([0xDF, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    add("dictionary claiming 2^63 entries", b.bytes, .object)
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("n")); b.add([0x14, 1] + Array(repeating: 0, count: 15))
    add("16-byte integer above 64 bits", b.bytes, .integer)
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("n")); b.add([0x33, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0])
    add("date that is NaN", b.bytes, .date)
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("n")); b.add([0x82, 0, 0, 1])
    add("UID of 3 bytes", b.bytes, .object)
    b = B(); b.add(B.dict([1], [2])); b.add(B.ascii("n")); b.add([0x87, 0, 0, 1, 0, 0, 0, 0, 0])
    add("UID of 8 bytes (libplist 2.2 cannot read it)", b.bytes, .object)

    // 10 000 closed levels would exceed the size cap, so: 9 000 unclosed, and 4 000 closed.
    let unclosedXML = xmlHeader + String(repeating: "<array>", count: 9_000)
    add("9 000-deep XML nesting, unclosed", Array(unclosedXML.utf8), .tooDeep)
    let deepXML = xmlHeader + String(repeating: "<array>", count: 4_000) + String(repeating: "</array>", count: 4_000) + "</plist>"
    add("4 000-deep XML nesting", Array(deepXML.utf8), .tooDeep)
    let deepDictXML = xmlHeader + String(repeating: "<dict><key>k</key>", count: 65) + "<true/>" + String(repeating: "</dict>", count: 65) + "</plist>"
    add("65-deep XML dictionaries", Array(deepDictXML.utf8), .tooDeep)
    add("XML garbage", Array("<plist><dict><key>a</key><string>x</dict>~~~".utf8), .xmlSyntax)
    add("XML unterminated tag", Array((xmlHeader + "<dict><key>a</key><string").utf8), .xmlSyntax)
    add("XML with an entity declaration",
        Array(#"<?xml version="1.0"?><!DOCTYPE plist [<!ENTITY a "aaaa">]><plist><string>&a;</string></plist>"#.utf8),
        .xmlEntity)
    add("XML that is not UTF-8", Array(xmlHeader.utf8) + [0xFF, 0xFE] + Array("</plist>".utf8), .text)
    add("XML character reference to a lone surrogate", Array((xmlHeader + "<dict><key>name</key><string>&#xD800;</string></dict></plist>").utf8), .text)
    add("XML character reference to NUL", Array((xmlHeader + "<dict><key>name</key><string>a&#0;b</string></dict></plist>").utf8), .text)
    add("XML character reference beyond Unicode", Array((xmlHeader + "<dict><key>name</key><string>&#99999999999;</string></dict></plist>").utf8), .text)
    add("XML with a NUL byte", Array(xmlHeader.utf8) + [0] + Array("</plist>".utf8), .text)
    add("oversize value (65537 bytes)", Array("bplist00".utf8) + Array(repeating: 0, count: 65_529), .tooLarge)

    b = B(); b.add(B.array([1])); b.add(B.ascii("x"))
    add("root that is an array", b.bytes, .notADictionary)
    add("XML root that is a string", Array((xmlHeader + "<string>x</string></plist>").utf8), .notADictionary)
    return cases
}()

@Suite("Malformed attribute values")
struct MalformedPlistTests {
    @Test("each malformed value is refused with its kind and a one-line message", arguments: malformedCases)
    func refused(_ malformed: MalformedCase) {
        let error = #expect(throws: PropertyListError.self) {
            try DocumentSource(propertyList: malformed.bytes)
        }
        guard let error else { return }
        #expect(error.kind == malformed.kind, "message was: \(error.message)")
        #expect(!error.message.contains("\n"))
        #expect(error.description == error.message)
    }

    /// Where the wording is the point: text from the input is quoted by the one escaper, on one line.
    /// Values whose message quotes text from the input, and that message.
    static let quotedCases: [([UInt8], String)] = {
        var duplicate = B()
        duplicate.add(B.dict([1, 1], [2, 2]))
        duplicate.add(B.utf16([0x61, 0x0A, 0x2028, 0x62]))
        duplicate.add(B.int(1))
        let version: [UInt8] = Array("bplist\n0".utf8) + Array(B.minimal().bytes.dropFirst(8))
        let reference = xmlHeader + "<dict><key>name</key><string>&#12\n</string></dict></plist>"
        let xmlDuplicate = xmlHeader + "<dict><key>a\\b\u{202E}</key><true/><key>a\\b\u{202E}</key><true/></dict></plist>"
        return [
            (version, #"binary plist version '\n0' is not supported (only bplist00)"#),
            (duplicate.bytes, #"binary plist: dictionary object 0 has the key 'a\n\u{2028}b' twice"#),
            (Array(reference.utf8), #"XML plist has an invalid character reference '&#12\n'"#),
            (Array(xmlDuplicate.utf8), #"XML plist: a dictionary has the key 'a\\b\u{202e}' twice"#),
        ]
    }()

    /// Where the wording is the point: text from the input is quoted by the one escaper, on one line.
    @Test("text from the input is quoted on one line", arguments: quotedCases)
    func quotedMessages(bytes: [UInt8], message: String) {
        let error = #expect(throws: PropertyListError.self) { try DocumentSource(propertyList: bytes) }
        #expect(error?.message == message)
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
            #expect(error.kind != .libplist, "\(error)")
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
