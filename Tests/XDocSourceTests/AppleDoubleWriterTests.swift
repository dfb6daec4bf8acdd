import Foundation
import Testing
import XDSTestSupport
@testable import XDocSource

/// A sidecar with everything a Mac puts in one, built here independently of the writer.
struct SidecarParts: Equatable {
    var finderInfo: [UInt8]
    var attributes: [(String, [UInt8])]
    /// Entries other than Finder info and the resource fork, e.g. a comment (id 4).
    var extra: [(UInt32, [UInt8])] = []
    var resourceFork: [UInt8]? = nil
    /// Free bytes the kernel reserves inside the Finder-info entry after the attributes.
    var reserved = 0

    static func == (a: SidecarParts, b: SidecarParts) -> Bool {
        a.finderInfo == b.finderInfo && a.attributes.map(\.0) == b.attributes.map(\.0)
            && a.attributes.map(\.1) == b.attributes.map(\.1) && a.extra.map(\.0) == b.extra.map(\.0)
            && a.extra.map(\.1) == b.extra.map(\.1) && a.resourceFork == b.resourceFork
    }

    /// The file, laid out as xnu's bsd/vfs/vfs_xattr.c does (Finder info first, the resource fork last).
    func bytes() -> [UInt8] {
        func u32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 255), UInt8(v & 255)] }
        let count = 1 + extra.count + (resourceFork == nil ? 0 : 1)
        let info = 26 + 12 * count
        var entries: [UInt8] = []
        var at = info + 70
        var dataStart = at
        for (name, _) in attributes { dataStart = (dataStart + 11 + name.utf8.count + 1 + 3) & ~3 }
        var valueAt = dataStart
        for (name, value) in attributes {
            entries += u32(valueAt) + u32(value.count) + [0, 0] + [UInt8(name.utf8.count + 1)] + Array(name.utf8) + [0]
            at += 12 + name.utf8.count
            while at % 4 != 0 { entries.append(0); at += 1 }
            valueAt += value.count
        }
        let total = valueAt
        var out = u32(0x0005_1607) + u32(0x0002_0000) + Array("Mac OS X        ".utf8) + u16(count)
        var next = total + reserved
        out += u32(9) + u32(info) + u32(next - info)
        for (id, data) in extra { out += u32(Int(id)) + u32(next) + u32(data.count); next += data.count }
        if let resourceFork { out += u32(2) + u32(next) + u32(resourceFork.count) }
        out += finderInfo + [0, 0] + u32(0x4154_5452) + u32(0x1234) + u32(total) + u32(dataStart) + u32(total - dataStart)
        out += [UInt8](repeating: 0, count: 12) + u16(0) + u16(attributes.count) + entries
        for (_, value) in attributes { out += value }
        out += [UInt8](repeating: 0, count: reserved)
        for (_, data) in extra { out += data }
        if let resourceFork { out += resourceFork }
        return out
    }

    /// Reads a file back with a parser of its own (not the library's): entries by id, the
    /// Finder info, the attributes in order.
    static func parse(_ b: [UInt8]) -> SidecarParts? {
        func u32(_ at: Int) -> Int { Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3]) }
        guard b.count >= 26, u32(0) == 0x0005_1607 else { return nil }
        let count = Int(b[24]) << 8 | Int(b[25])
        var parts = SidecarParts(finderInfo: [], attributes: [])
        for i in 0..<count {
            let id = u32(26 + 12 * i), offset = u32(30 + 12 * i), length = u32(34 + 12 * i)
            guard offset + length <= b.count else { return nil }
            let data = Array(b[offset..<offset + length])
            switch id {
            case 9:
                parts.finderInfo = Array(data.prefix(32))
                guard length > 32 else { continue }
                let h = offset + 34
                let n = Int(b[h + 34]) << 8 | Int(b[h + 35])
                var e = h + 36
                for _ in 0..<n {
                    let vo = u32(e), vl = u32(e + 4), nl = Int(b[e + 10])
                    let name = String(decoding: b[(e + 11)..<(e + 10 + nl)], as: UTF8.self)
                    parts.attributes.append((name, Array(b[vo..<vo + vl])))
                    e = (e + 11 + nl + 3) & ~3
                }
            case 2: parts.resourceFork = data
            default: parts.extra.append((UInt32(id), data))
            }
        }
        return parts
    }
}

@Suite("AppleDouble writer")
struct AppleDoubleWriterTests {
    static let finderInfo = Array("TEXTttxt".utf8) + [0x01, 0x00] + [UInt8](repeating: 7, count: 22)
    static let fork = Array("resource fork bytes, any length ".utf8) + (0..<300).map { UInt8($0 & 255) }
    static func value(_ name: String) -> [UInt8] { try! DocumentSource(identifier: "a.b", name: name).binaryPropertyList() }

    static func fullSidecar(reserved: Int = 0) -> SidecarParts {
        SidecarParts(
            finderInfo: finderInfo,
            attributes: [
                ("com.apple.quarantine", Array("0081;5f;Safari;".utf8)),
                ("x-document-source", value("Old")),
                ("com.apple.lastuseddate#PS", Array(1...16)),
                ("org.example.odd", Array("abc".utf8)),  // a length that is not a multiple of 4
            ],
            extra: [(4, Array("a Finder comment".utf8))],
            resourceFork: fork, reserved: reserved)
    }

    func edit(_ bytes: [UInt8], _ value: [UInt8]?) throws -> AppleDouble.Edit {
        try AppleDouble.edited(bytes, setting: "x-document-source", to: value)
    }

    @Test(arguments: [0, 3000])
    func updateKeepsEverythingElse(reserved: Int) throws {
        let parts = Self.fullSidecar(reserved: reserved)
        let original = parts.bytes()
        #expect(try AppleDouble(bytes: original).value(named: "x-document-source") == Self.value("Old"))
        let new = Self.value("A much longer name than before, so every offset after it moves")
        guard case .replace(let bytes) = try edit(original, new) else { Issue.record("not replaced"); return }
        // (a) the reader reads back exactly
        let read = try AppleDouble(bytes: bytes)
        #expect(read.value(named: "x-document-source") == new)
        #expect(read.finderInfo == Self.finderInfo)
        // (b) everything else, read by a parser of the test's own, is byte-identical
        var expected = parts
        expected.attributes[1].1 = new
        #expect(SidecarParts.parse(bytes) == expected)
        // The layout is macOS's: Finder info at 50, the fork last and ending the file.
        let r = BigEndianReader(bytes)
        #expect(r.u32(26) == 9 && r.u32(30) == 62)  // three entries: the info starts at 26 + 36
        #expect(r.u32(50) == 2 && Int(r.u32(54)!) + Int(r.u32(58)!) == bytes.count)
        #expect(Array(bytes.suffix(Self.fork.count)) == Self.fork)
        // Unchanged value: the same bytes come out as when written again.
        guard case .replace(let again) = try edit(bytes, new) else { Issue.record("not replaced"); return }
        #expect(again == bytes)
    }

    @Test func addAndRemoveKeepOthers() throws {
        var parts = Self.fullSidecar()
        parts.attributes.remove(at: 1)
        guard case .replace(let added) = try edit(parts.bytes(), Self.value("New")) else { Issue.record(); return }
        var expected = parts
        expected.attributes.append(("x-document-source", Self.value("New")))
        #expect(SidecarParts.parse(added) == expected)
        guard case .replace(let removed) = try edit(added, nil) else { Issue.record(); return }
        #expect(SidecarParts.parse(removed) == parts)
        // The same layout as the independent builder's, byte for byte (debug tag aside).
        var built = parts.bytes()
        built.replaceSubrange(88..<92, with: [0, 0, 0x12, 0x34])
        var mine = removed
        mine.replaceSubrange(88..<92, with: [0, 0, 0x12, 0x34])
        #expect(mine == built)
        #expect(try edit(removed, nil) == .unchanged)
    }

    @Test func newFileIsTheLibarchiveLayout() throws {
        let acl = Array(String(repeating: "a", count: 134).utf8) + [0]
        let bytes = try AppleDouble.newFile(attributes: [.init(name: "com.apple.acl.text", value: acl)])
        #expect(bytes == appleDoubleBytes(attributes: [("com.apple.acl.text", acl)]))
        #expect(bytes.count == 287)
    }

    @Test func removingTheLastAttributeDeletesAnEmptySidecarOnly() throws {
        let only = appleDoubleBytes(attributes: [("x-document-source", Self.value("N"))])
        #expect(try edit(only, nil) == .delete)
        // Finder info, a resource fork or another attribute keep the sidecar, with an empty ATTR.
        var withInfo = SidecarParts(finderInfo: Self.finderInfo, attributes: [("x-document-source", Self.value("N"))])
        guard case .replace(let kept) = try edit(withInfo.bytes(), nil) else { Issue.record(); return }
        withInfo.attributes = []
        #expect(SidecarParts.parse(kept) == withInfo)
        #expect(try AppleDouble(bytes: kept).attributes.isEmpty)
        let withFork = SidecarParts(
            finderInfo: [UInt8](repeating: 0, count: 32), attributes: [("x-document-source", [1])], resourceFork: [1])
        guard case .replace = try edit(withFork.bytes(), nil) else { Issue.record(); return }
    }

    /// The blank resource map Finder writes into every `._` file counts as an empty resource
    /// fork, as no fork does: a sidecar left with only it is deleted, by `strip` (removing
    /// names) and by `remove` alike. Before, only a fork of length 0 was empty, and the archive
    /// cleaner had its own rule that took the blank map for empty too. A fork holding a
    /// resource, or one too long to be the blank map, keeps the sidecar, byte-exact.
    @Test func finderBlankResourceForkIsEmpty() throws {
        #expect(finderBlankResourceFork.count == 286)
        #expect(AppleDouble.isEmptyResourceFork([]))
        #expect(AppleDouble.isEmptyResourceFork(finderBlankResourceFork[...]))
        #expect(!AppleDouble.isEmptyResourceFork(oneResourceFork[...]))
        #expect(!AppleDouble.isEmptyResourceFork([1]))
        #expect(!AppleDouble.isEmptyResourceFork((finderBlankResourceFork + [UInt8](repeating: 0, count: 300))[...]))
        let blank = appleDoubleBytes(attributes: [("com.apple.quarantine", Array("0081;5f000000;Safari;".utf8))],
                                     resourceFork: finderBlankResourceFork)
        #expect(try AppleDouble.edited(blank, removing: ["com.apple.quarantine"]) == .delete)
        let onlySource = appleDoubleBytes(attributes: [("x-document-source", Self.value("N"))], resourceFork: finderBlankResourceFork)
        #expect(try edit(onlySource, nil) == .delete)
        let resource = appleDoubleBytes(attributes: [("com.apple.quarantine", Array("0081;5f000000;Safari;".utf8))],
                                        resourceFork: oneResourceFork)
        guard case .replace(let kept) = try AppleDouble.edited(resource, removing: ["com.apple.quarantine"]) else {
            Issue.record("a resource fork holding a resource was not kept")
            return
        }
        #expect(Array(kept.suffix(oneResourceFork.count)) == oneResourceFork)
        #expect(try AppleDouble(bytes: kept).attributes.isEmpty)
    }

    @Test func duplicateNamesAreAllReplaced() throws {
        let parts = SidecarParts(
            finderInfo: Self.finderInfo,
            attributes: [("x-document-source", [1]), ("q", [2]), ("x-document-source", [3])])
        guard case .replace(let bytes) = try edit(parts.bytes(), [9, 9]) else { Issue.record(); return }
        #expect(SidecarParts.parse(bytes)?.attributes.map(\.0) == ["x-document-source", "q"])
        #expect(try AppleDouble(bytes: bytes).value(named: "x-document-source") == [9, 9])
    }

    @Test func finderInfoEntryIsAddedWhenMissing() throws {
        // Only a resource fork (id 2): the Finder-info entry goes first in the table.
        var bytes: [UInt8] = [0, 5, 0x16, 7, 0, 2, 0, 0] + Array("Mac OS X        ".utf8) + [0, 1]
        bytes += [0, 0, 0, 2, 0, 0, 0, 38, 0, 0, 0, 4] + [1, 2, 3, 4]
        guard case .replace(let out) = try edit(bytes, [42]) else { Issue.record(); return }
        let parts = try #require(SidecarParts.parse(out))
        #expect(parts.resourceFork == [1, 2, 3, 4])
        #expect(parts.finderInfo == [UInt8](repeating: 0, count: 32))
        #expect(try AppleDouble(bytes: out).value(named: "x-document-source") == [42])
    }

    @Test func tooLargeIsNotMalformed() throws {
        let big = [UInt8](repeating: 1, count: 65_000)
        let bytes = appleDoubleBytes(attributes: [("other", [UInt8](repeating: 2, count: 1000))])
        #expect(throws: AppleDoubleError.tooLarge("the attributes would need 66172 bytes, more than the 64 KiB an AppleDouble file holds")) {
            try edit(bytes, big)
        }
    }

    /// A Python parser of its own (not the library's, not the test's Swift one) reads what the
    /// writer wrote.
    @Test func pythonReadsTheRewrittenFile() async throws {
        let folder = TemporaryFolder()
        let parts = Self.fullSidecar(reserved: 100)
        guard case .replace(let bytes) = try edit(parts.bytes(), Self.value("Py")) else { Issue.record(); return }
        let file = folder.write("._x", bytes: bytes)
        let script = """
            import struct, sys
            b = open(sys.argv[1], 'rb').read()
            magic, version, n = struct.unpack('>II16xH', b[:26])
            assert (magic, version) == (0x51607, 0x20000)
            for i in range(n):
                eid, off, ln = struct.unpack('>III', b[26 + 12 * i:38 + 12 * i])
                print('entry', eid, b[off:off + ln].hex())
                if eid == 9 and ln > 32:
                    h = off + 34
                    m, tag, total, ds, dl = struct.unpack('>IIIII', b[h:h + 20])
                    assert m == 0x41545452 and ds + dl == total == off + ln and ds % 4 == 0
                    count, = struct.unpack('>H', b[h + 34:h + 36])
                    e = h + 36
                    for _ in range(count):
                        assert e % 4 == 0
                        vo, vl, fl, nl = struct.unpack('>IIHB', b[e:e + 11])
                        print('attr', b[e + 11:e + 10 + nl].decode(), b[vo:vo + vl].hex())
                        e = (e + 11 + nl + 3) & ~3
            """
        let run = try await ProcessRunner.runOnPath(["python3", "-c", script, file])
        #expect(run.status == 0, "\(run)")
        func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }
        var lines = ["entry 9 " + hex(Array(bytes[62..<(62 + Int(BigEndianReader(bytes).u32(34)!))]))]
        lines += parts.attributes.map { "attr \($0.0) " + hex($0.0 == "x-document-source" ? Self.value("Py") : $0.1) }
        lines += ["entry 4 " + hex(parts.extra[0].1), "entry 2 " + hex(Self.fork)]
        #expect(run.stdout.split(separator: "\n").map(String.init) == lines)
    }
}
