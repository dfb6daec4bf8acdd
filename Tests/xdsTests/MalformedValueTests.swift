import Foundation
import XDSTestSupport
import Testing

/// Builds binary plists byte by byte, including broken ones. `objects` are encoded objects
/// whose references are `refSize` bytes wide.
func bplist(_ objects: [[UInt8]], refSize: Int = 1, root: UInt64 = 0, objectCount: UInt64? = nil,
            tableOffset: UInt64? = nil, offsetSize: UInt8? = nil, offsets: [Int]? = nil) -> [UInt8] {
    var out = Array("bplist00".utf8)
    var computed: [Int] = []
    for object in objects {
        computed.append(out.count)
        out += object
    }
    let table = offsets ?? computed
    let size = Int(offsetSize ?? (out.count < 256 ? 1 : out.count < 65_536 ? 2 : 4))
    let tableStart = out.count
    for offset in table { out += be(UInt64(offset), size) }
    out += [0, 0, 0, 0, 0, 0, offsetSize ?? UInt8(size), UInt8(refSize)]
    out += be(objectCount ?? UInt64(objects.count), 8) + be(root, 8) + be(tableOffset ?? UInt64(tableStart), 8)
    return out
}

func be(_ value: UInt64, _ size: Int) -> [UInt8] {
    (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
}

/// `{"a": "b"}` as objects: dict, "a", "b".
let smallDict: [[UInt8]] = [[0xD1, 1, 2], [0x51, 0x61], [0x51, 0x62]]

/// Root dict {"a": [[[…]]]} nested `depth` arrays deep, with 2-byte references.
func deepPlist(depth: Int) -> [UInt8] {
    var objects: [[UInt8]] = [[0xD1, 0, 1, 0, 2], [0x51, 0x61]]
    for level in 0..<depth {
        objects.append(level == depth - 1 ? [0xA0] : [0xA1] + be(UInt64(level + 3), 2))
    }
    return bplist(objects, refSize: 2)
}

let malformedValues: [String: [UInt8]] = {
    let good = bplist(smallDict)
    var values: [String: [UInt8]] = [
        "empty": [],
        "text": Array("hello, world".utf8),
        "only the magic": Array("bplist00".utf8),
        "truncated": Array(good.prefix(good.count / 2)),
        "bad trailer sizes": bplist(smallDict, offsetSize: 3),
        "offset table out of range": bplist(smallDict, tableOffset: 0xFFFF_FFFF_FF),
        "offset table in the header": bplist(smallDict, tableOffset: 2),
        "object offset out of range": bplist(smallDict, offsets: [8, 11, 250]),
        "object offset into the header": bplist(smallDict, offsets: [8, 3, 13]),
        "root out of range": bplist(smallDict, root: 7),
        "absurd object count": bplist(smallDict, objectCount: 1 << 60),
        "cyclic dict": bplist([[0xD1, 1, 0], [0x51, 0x61]]),
        "cyclic through an array": bplist([[0xD1, 1, 2], [0x51, 0x61], [0xA1, 2]]),
        "10000-deep nesting": deepPlist(depth: 10_000),
        "non-dict root (array)": bplist([[0xA1, 1], [0x51, 0x61]]),
        "non-dict root (string)": bplist([[0x51, 0x61]]),
        "invalid UTF-16 string": bplist([[0xD1, 1, 2], [0x51, 0x61], [0x61, 0xD8, 0x00]]),
        "non-string key": bplist([[0xD1, 1, 2], [0x10, 0x05], [0x51, 0x62]]),
        "reference out of range": bplist([[0xD1, 1, 9], [0x51, 0x61]]),
        "XML garbage": Array("<?xml version=\"1.0\"?><plist><dict><key>a</key>".utf8),
        "XML non-dict root": Array("<?xml version=\"1.0\"?><plist version=\"1.0\"><array><string>a</string></array></plist>".utf8),
    ]
    // A sanity check of the builder: the well-formed value must be accepted (tested below).
    values["(well-formed)"] = good
    return values
}()

@Suite("Malformed values")
struct MalformedValueTests {
    @Test func builderMakesValidPlists() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("a.txt")
        try await folder.setAttribute(file, bplist(smallDict))
        let json = try await xds("show", "--json", "a.txt", in: folder.path)
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout.contains(#""other":{"a":"b"}"#))
        // plistlib agrees that the deep value's problem is the depth, not the encoding.
        try await folder.setAttribute(file, deepPlist(depth: 20))
        #expect(try await xds("show", "a.txt", in: folder.path).status == 0)
    }

    @Test(arguments: malformedValues.keys.filter { !$0.hasPrefix("(") }.sorted())
    func showRefusesAndSetLeavesBytesUntouched(name: String) async throws {
        var value = try #require(malformedValues[name])
        let folder = value.count > 3000 ? await TemporaryFolder.withBigValues() : TemporaryFolder()
        if value.count > 3000 && !folder.takesBigValues {
            // ext4 keeps about 4 KB per value, and tmpfs before Linux 6.6 has no user attributes:
            // nest 600 deep instead, still past the decoder's depth limit.
            value = deepPlist(depth: 600)
        }
        let file = folder.file("a.txt")
        if value.isEmpty {
            #expect(try await sh("setfattr -n user.x-document-source -v '' a.txt", in: folder.path).status == 0)
        } else {
            try await folder.setAttribute(file, value)
        }
        #expect(try await folder.attribute(file).map([UInt8].init) == value)

        let show = try await xds("show", "a.txt", in: folder.path)
        #expect(show.status == 65, "\(show)")
        #expect(show.stdout.isEmpty)
        #expect(show.errorLines.count == 1)
        #expect(show.errorLines.first?.hasPrefix("xds: a.txt: malformed x-document-source value: ") == true)

        let json = try await xds("show", "--json", "a.txt", in: folder.path)
        #expect(json.status == 65 && json.stdout.isEmpty)

        let set = try await xds("set", "a.txt", "--id", "a.b", "--name", "N", in: folder.path)
        #expect(set.status == 65, "\(set)")
        #expect(try await folder.attribute(file).map([UInt8].init) == value)
    }
}
