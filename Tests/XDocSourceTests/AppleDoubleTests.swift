import Testing
import XDSTestSupport
@testable import XDocSource

@Suite("AppleDouble parser and sidecar store")
struct AppleDoubleTests {
    /// The 287-byte blob of libarchive's test_read_format_zip_mac_metadata.c:
    /// one attribute `com.apple.acl.text` with a 135-byte value.
    @Test func layoutMatchesTheLibarchiveExample() throws {
        let acl = Array(String(repeating: "a", count: 134).utf8) + [0]
        let bytes = appleDoubleBytes(attributes: [("com.apple.acl.text", acl)])
        #expect(bytes.count == 287)
        let reader = BigEndianReader(bytes)
        #expect(reader.u32(92) == 287)  // total_size
        #expect(reader.u32(96) == 152)  // data_start
        #expect(reader.u32(100) == 135)  // data_length
        let parsed = try AppleDouble(bytes: bytes)
        #expect(parsed.attributes == [AppleDouble.Attribute(name: "com.apple.acl.text", value: acl)])
        #expect(parsed.finderInfo == [UInt8](repeating: 0, count: 32))
    }

    @Test func severalAttributesAreFound() throws {
        let value = try sampleSource().binaryPropertyList()
        let bytes = appleDoubleBytes(attributes: [
            ("com.apple.quarantine", Array("0081;5f;Safari;".utf8)),
            ("x-document-source", value),
            ("com.apple.lastuseddate#PS", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]),
        ])
        let parsed = try AppleDouble(bytes: bytes)
        #expect(parsed.attributes.map(\.name) == ["com.apple.quarantine", "x-document-source", "com.apple.lastuseddate#PS"])
        #expect(parsed.value(named: "x-document-source") == value)
        #expect(parsed.value(named: "missing") == nil)
    }

    /// Apple's bsdtar writes an empty attribute as offset 0, length 0 (libarchive's
    /// test_compat_mac-2.tar.Z): valid, and the values after it are still read.
    @Test func emptyAttributeAtOffsetZeroIsValid() throws {
        let value = try sampleSource().binaryPropertyList()
        // appleDoubleBytes puts the empty value at data_start; Apple writes offset 0.
        let bytes = set32(appleDoubleBytes(attributes: [("com.opcoders.c_empty", []), ("x-document-source", value)]), 120, 0)
        #expect(BigEndianReader(bytes).u32(120) == 0 && BigEndianReader(bytes).u32(124) == 0)
        let parsed = try AppleDouble(bytes: bytes)
        #expect(parsed.attributes.map(\.name) == ["com.opcoders.c_empty", "x-document-source"])
        #expect(parsed.value(named: "com.opcoders.c_empty") == [])
        #expect(parsed.value(named: "x-document-source") == value)
    }

    @Test func finderInfoOnlyHasNoAttributes() throws {
        var bytes = Array(appleDoubleBytes(attributes: []).prefix(26))
        bytes[25] = 1  // one entry
        bytes += [0, 0, 0, 9, 0, 0, 0, 38, 0, 0, 0, 32] + Array("TEXTttxt".utf8) + [UInt8](repeating: 0, count: 24)
        let parsed = try AppleDouble(bytes: bytes)
        #expect(parsed.attributes.isEmpty)
        #expect(parsed.finderInfo?.prefix(8) == ArraySlice("TEXTttxt".utf8))
    }

    /// The kernel's layout: a 4096-byte file whose Finder-info entry reserves free space past
    /// the attribute area and whose resource fork (286 bytes, "left blank") ends the file.
    @Test func kernelLayoutWithReservedSpaceAndResourceFork() throws {
        let value = try sampleSource().binaryPropertyList()
        var bytes = appleDoubleBytes(attributes: [("x-document-source", value)])
        let rsrcOffset = 4096 - 286
        func put(_ at: Int, _ v: Int) { for i in 0..<4 { bytes[at + i] = UInt8(v >> (24 - 8 * i) & 255) } }
        put(26 + 8, rsrcOffset - 50)  // Finder-info entry length up to the resource fork
        put(38 + 4, rsrcOffset)
        put(38 + 8, 286)
        bytes += [UInt8](repeating: 0, count: rsrcOffset - bytes.count)
        bytes += Array(repeating: UInt8(ascii: "r"), count: 286)
        #expect(bytes.count == 4096)
        #expect(try AppleDouble(bytes: bytes).value(named: "x-document-source") == value)
        // Read as a sidecar too, with only the file's start in memory.
        #expect(try AppleDouble(bytes: Array(bytes.prefix(600)), fileSize: 4096).value(named: "x-document-source") == value)
    }

    @Test func sidecarIsTheThirdStore() throws {
        let folder = TemporaryFolder()
        let path = folder.file("Report 文.pdf")
        folder.write("._Report 文.pdf", bytes: appleDoubleBytes(attributes: [
            ("com.apple.quarantine", Array("q".utf8)),
            ("x-document-source", try sampleSource().binaryPropertyList()),
        ]))
        let found = try #require(try DocumentSourceFile(path: path).read())
        #expect(found.store == .appleDouble)
        #expect(found.location == folder.path + "/._Report 文.pdf")
        #expect(found.source == sampleSource())
        // The native attribute wins once written; the sidecar is left as it was.
        try DocumentSourceFile(path: path).write(DocumentSource(identifier: "a.b", name: "N"))
        #expect(try DocumentSourceFile(path: path).read()?.store == .xattr)
    }

    @Test func sidecarOfAFolderAndOfASymlinkTarget() throws {
        let folder = TemporaryFolder()
        let bundle = folder.folder("sub/Notes.textbundle")
        folder.write("sub/._Notes.textbundle", bytes: appleDoubleBytes(attributes: [
            ("x-document-source", try sampleSource().binaryPropertyList())
        ]))
        #expect(try DocumentSourceFile(path: bundle + "/").read()?.store == .appleDouble)
        let link = folder.path + "/link"
        try FileManagerShim.symlink(link, to: bundle)
        #expect(try DocumentSourceFile(path: link).read()?.source == sampleSource())
    }

    @Test func sidecarWithoutTheAttributeMeansAbsent() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        folder.write("._a.txt", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", [1, 2])]))
        #expect(try DocumentSourceFile(path: path).read() == nil)
    }

    @Test func sidecarWithAMalformedValueIsMalformedValue() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        folder.write("._a.txt", bytes: appleDoubleBytes(attributes: [("x-document-source", Array("nope".utf8))]))
        let error = #expect(throws: DocumentSourceFileError.self) { _ = try DocumentSourceFile(path: path).read() }
        #expect(error?.kind == .malformedValue)
    }

    /// Hostile files: each breaks one check of xnu's
    /// `check_and_swap_apple_double_header` (bsd/vfs/vfs_xattr.c) or Samba's `ad_unpack`
    /// (source3/lib/adouble.c).
    static let corruptions: [(String, @Sendable ([UInt8]) -> [UInt8])] = [
        ("bad magic", { set32($0, 0, 0x0005_1600) }),
        ("bad version", { set32($0, 4, 0x0001_0000) }),
        ("no entries", { set16($0, 24, 0) }),
        ("sixteen entries", { set16($0, 24, 16) }),
        ("entry table past the end", { Array($0.prefix(40)) }),
        ("entry offset past the end", { set32($0, 26 + 4, 0xFFFF_FF00) }),
        ("entry length past the end", { set32($0, 26 + 8, 0x7FFF_FFFF) }),
        ("entry inside the header", { set32($0, 26 + 4, 10) }),
        ("overlapping entries", { set32(set32($0, 38 + 4, 60), 38 + 8, 8) }),
        ("Finder info shorter than 32", { set32($0, 26 + 8, 20) }),
        ("no ATTR magic", { set32($0, 84, 0x41545453) }),
        ("total size past the entry", { set32($0, 92, 0x10000) }),
        ("data start inside the header", { set32($0, 96, 100) }),
        ("data past total size", { set32($0, 100, 0xFFFF) }),
        ("absurd attribute count", { set16($0, 118, 5000) }),
        ("too many attributes for the area", { set16($0, 118, 40) }),
        ("value offset before data", { set32($0, 120, 90) }),
        ("value at offset 0 with a length", { set32($0, 120, 0) }),
        ("value length past the area", { set32($0, 124, 0xFFFF_FFF0) }),
        ("empty name", { set8($0, 130, 0) }),
        ("name too long", { set8($0, 130, 200) }),
        ("name without NUL", { set8($0, 131 + 17, UInt8(ascii: "x")) }),
        ("overlapping values", { set32($0, 120 + 32, UInt32(BigEndianReader($0).u32(120)!)) }),
    ]

    static let corruptionNames = corruptions.map(\.0)

    static func validSidecar() -> [UInt8] {
        appleDoubleBytes(attributes: [
            ("x-document-source", try! DocumentSource(identifier: "a.b", name: "N").binaryPropertyList()),
            ("com.apple.quarantine", Array("0081;5f;Safari;".utf8)),
        ])
    }

    @Test(arguments: corruptionNames)
    func corruptFilesAreRefused(name: String) throws {
        let corrupt = Self.corruptions.first { $0.0 == name }!.1
        let good = Self.validSidecar()
        #expect(throws: Never.self) { try AppleDouble(bytes: good) }
        let bad = corrupt(good)
        #expect(bad != good)
        #expect(throws: AppleDoubleError.self) { try AppleDouble(bytes: bad) }

        // Through the store: a malformed sidecar is malformed data (exit 65), not a crash.
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        folder.write("._a.txt", bytes: bad)
        let error = #expect(throws: DocumentSourceFileError.self) { _ = try DocumentSourceFile(path: path).read() }
        #expect(error?.kind == .malformedSidecar)
        #expect(error?.message.hasPrefix("malformed AppleDouble sidecar \(folder.path)/._a.txt: ") == true)
    }

    @Test func everyTruncationIsRefused() {
        let good = Self.validSidecar()
        for length in 0..<good.count {
            #expect(throws: AppleDoubleError.self, "prefix of \(length) bytes") {
                try AppleDouble(bytes: Array(good.prefix(length)))
            }
        }
    }

    @Test func randomMutationsNeverCrash() {
        var generator = SplitMix64(seed: 0x5EED)
        let good = Self.validSidecar()
        var refused = 0
        for _ in 0..<3000 {
            var bad = good
            for _ in 0..<Int(generator.next() % 4 + 1) {
                bad[Int(generator.next() % UInt64(bad.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            do {
                let parsed = try AppleDouble(bytes: bad)
                for attribute in parsed.attributes { #expect(attribute.value.count <= bad.count) }
            } catch {
                refused += 1
            }
        }
        #expect(refused > 0)
    }
}

private func set32(_ bytes: [UInt8], _ at: Int, _ value: UInt32) -> [UInt8] {
    var out = bytes
    for i in 0..<4 { out[at + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(i))) }
    return out
}

private func set16(_ bytes: [UInt8], _ at: Int, _ value: UInt16) -> [UInt8] {
    var out = bytes
    out[at] = UInt8(value >> 8)
    out[at + 1] = UInt8(value & 255)
    return out
}

private func set8(_ bytes: [UInt8], _ at: Int, _ value: UInt8) -> [UInt8] {
    var out = bytes
    out[at] = value
    return out
}
