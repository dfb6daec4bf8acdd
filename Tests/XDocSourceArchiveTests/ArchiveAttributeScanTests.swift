import Foundation
import Testing
import XDSTestSupport
@testable import XDocSource
@testable import XDocSourceArchive

/// The records and problems of one attribute scan.
struct AttributeScanResult {
    var records: [ArchiveMemberAttributes] = []
    var problems: [ArchiveProblem] = []
    var summary = ArchiveScanner.Summary()
    /// name → value (lossy text), of the records of `member`.
    func values(of member: String) -> [String: String] {
        var out: [String: String] = [:]
        for record in records where record.name.lossyString == member {
            for attribute in record.attributes { out[String(decoding: attribute.name, as: UTF8.self)] = String(decoding: attribute.value, as: UTF8.self) }
        }
        return out
    }
}

/// Scans `path` for the attributes whose names (pax: as given, AppleDouble: plain) are in `names`.
func scanAttributes(_ path: String, names: Set<String>, limits: ArchiveScanner.Limits = .init()) throws(ArchiveError) -> AttributeScanResult {
    var result = AttributeScanResult()
    let scanner = ArchiveScanner(path: path, limits: limits)!
    result.summary = try scanner.scanAttributes(named: { _, name in names.contains(String(decoding: name, as: UTF8.self)) }) { event in
        switch event {
        case .attributes(let record): result.records.append(record)
        case .problem(let problem): result.problems.append(problem)
        }
        return .proceed
    }
    return result
}

/// Sets a real extended attribute with setfattr (the value as text).
func setfattr(_ path: String, _ name: String, _ value: String) async throws {
    let run = try await ProcessRunner.runOnPath(["setfattr", "-n", name, "-v", value, path])
    guard run.status == 0 else { throw ArchiveTestFailure(description: "setfattr: \(run)") }
}

/// A pax tar written from the documented layout (POSIX pax, ustar headers): per member an
/// extended header (type `x`) of `LENGTH KEYWORD=VALUE\n` records, then the member's header
/// and data, each padded to 512 bytes; two zero blocks at the end.
func paxTar(_ members: [(name: String, records: [(String, [UInt8])], data: [UInt8])]) -> [UInt8] {
    func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: (512 - bytes.count % 512) % 512) }
    func header(_ name: String, type: UInt8, size: Int) -> [UInt8] {
        func field(_ text: String, _ width: Int) -> [UInt8] {
            let bytes = Array(text.utf8)
            return bytes + [UInt8](repeating: 0, count: width - bytes.count)
        }
        func octal(_ value: Int, _ width: Int) -> [UInt8] {
            let digits = String(value, radix: 8)
            return field(String(repeating: "0", count: width - 1 - digits.count) + digits, width)
        }
        var block = field(name, 100) + octal(0o644, 8) + octal(0, 8) + octal(0, 8) + octal(size, 12) + octal(0, 12)
        block += [UInt8](repeating: 0x20, count: 8) + [type] + field("", 100) + Array("ustar\u{0}00".utf8)
        block += field("", 32 + 32 + 8 + 8 + 155)
        block = padded(block)
        let sum = String(block.reduce(0) { $0 + Int($1) }, radix: 8)
        block.replaceSubrange(148..<156, with: Array((String(repeating: "0", count: 6 - sum.count) + sum).utf8) + [0, 0x20])
        return block
    }
    var out: [UInt8] = []
    for member in members {
        var records: [UInt8] = []
        for (key, value) in member.records {
            let base = key.utf8.count + value.count + 3  // " ", "=", "\n"
            var length = base + 1
            while String(length).count + base != length { length = base + String(length).count }
            records += Array("\(length) \(key)=".utf8) + value + [0x0A]
        }
        out += header("PaxHeaders/" + member.name, type: UInt8(ascii: "x"), size: records.count) + padded(records)
        out += header(member.name, type: UInt8(ascii: "0"), size: member.data.count) + padded(member.data)
    }
    return out + [UInt8](repeating: 0, count: 1024)
}

@Suite("ArchiveScanner.scanAttributes: members' attributes by name, raw, without extracting")
struct ArchiveAttributeScanTests {
    static let quarantine = "0082;5fad2a2e;Safari;"
    static let url = "https://user:secret@example.com/file.zip?token=abc#frag"

    /// Files whose attributes were set with setfattr, archived by GNU tar `--xattrs` and bsdtar
    /// (which writes each attribute twice, `LIBARCHIVE.xattr.` and `SCHILY.xattr.`), in every
    /// compression read today.
    @Test(arguments: [
        ("gnu.tar", "tar --xattrs --xattrs-include='user.*' -cf"),
        ("gnu.tar.gz", "tar --xattrs --xattrs-include='user.*' -czf"),
        ("gnu.tar.bz2", "tar --xattrs --xattrs-include='user.*' -cjf"),
        ("gnu.tar.zst", "tar --xattrs --xattrs-include='user.*' --zstd -cf"),
        ("bsd.tar", "bsdtar -cf"),
        ("bsd.tgz", "bsdtar -czf"),
        ("bsd.tbz2", "bsdtar -cjf"),
        ("bsd-pax.txz", "bsdtar --format=pax -cJf"),
        ("bsd.tzst", "bsdtar --zstd -cf"),
    ])
    func realWritersPaxHeaders(name: String, command: String) async throws {
        let tmp = TemporaryFolder()
        let tree = tmp.folder("tree")
        _ = tmp.folder("tree/sub")
        let a = tmp.file("tree/sub/a.txt", "a")
        let b = tmp.file("tree/b.txt", "b")
        _ = tmp.file("tree/c.txt", "c")
        try await setfattr(a, "user.com.apple.quarantine", Self.quarantine)
        try await setfattr(a, "user.xdg.origin.url", Self.url)
        try await setfattr(a, "user.mime_type", "text/plain")
        try await setfattr(b, "user.xdg.referrer.url", "https://example.com/page")
        try await shell("cd '\(tree)' && \(command) '\(tmp.path)/\(name)' b.txt c.txt sub")

        let wanted: Set = ["user.com.apple.quarantine", "user.xdg.origin.url", "user.xdg.referrer.url"]
        let result = try scanAttributes(tmp.path + "/" + name, names: wanted)
        #expect(result.problems.isEmpty)
        // One record per entry holding a wanted name: user.mime_type and c.txt are not reported,
        // and bsdtar's two spellings of a name make one attribute.
        #expect(result.records.map(\.name.lossyString) == ["b.txt", "sub/a.txt"])
        #expect(result.records.allSatisfy { $0.origin == .paxHeader && $0.entry == $0.name })
        let aRecord = try #require(result.records.last)
        #expect(Set(aRecord.attributes.map { String(decoding: $0.name, as: UTF8.self) }) == ["user.com.apple.quarantine", "user.xdg.origin.url"])
        #expect(aRecord.attributes.count == 2)
        #expect(result.values(of: "sub/a.txt") == ["user.com.apple.quarantine": Self.quarantine, "user.xdg.origin.url": Self.url])
        #expect(result.values(of: "b.txt") == ["user.xdg.referrer.url": "https://example.com/page"])
        #expect(result.summary.tagged == 2 && !result.summary.stopped)
        #expect(aRecord.path(in: DocumentSourceTreePath(tmp.path + "/" + name)).string == tmp.path + "/" + name + "!/sub/a.txt")

        // show's scan of the same archive finds no x-document-source, and says nothing.
        let shown = try scanArchive(tmp.path + "/" + name)
        #expect(shown.members.isEmpty && shown.problems.isEmpty)
    }

    /// A zip made by `zip` from a folder holding Finder's `__MACOSX/DIR/._NAME`, a `._NAME`
    /// beside its member, and an AppleDouble entry whose member is not in the archive.
    @Test func zipAppleDoubleEntries() async throws {
        let tmp = TemporaryFolder()
        let tree = tmp.folder("tree")
        _ = tmp.folder("tree/docs")
        _ = tmp.folder("tree/__MACOSX/docs")
        _ = tmp.file("tree/docs/report.txt", "report")
        _ = tmp.file("tree/notes.md", "notes")
        let whereFroms: [UInt8] = Array("bplist00-not-checked-here".utf8)
        let full = appleDoubleBytes(attributes: [
            ("com.apple.quarantine", Array(Self.quarantine.utf8)),
            ("com.apple.metadata:_kMDItemUserTags", [1, 2, 3]),
            ("com.apple.metadata:kMDItemWhereFroms", whereFroms),
        ])
        try Data(full).write(to: URL(fileURLWithPath: tree + "/__MACOSX/docs/._report.txt"))
        try Data(appleDoubleBytes(attributes: [("com.apple.provenance", [1, 2, 0, 0xD5, 0xF3, 0x24, 0x7E, 0x64, 0xBD, 0xE9, 0x45])]))
            .write(to: URL(fileURLWithPath: tree + "/._notes.md"))
        try Data(appleDoubleBytes(attributes: [("com.apple.quarantine", Array("0081;5f000000;Chrome;".utf8))]))
            .write(to: URL(fileURLWithPath: tree + "/__MACOSX/._gone.txt"))
        try Data(appleDoubleBytes(attributes: [("com.apple.FinderInfo", [0])]))
            .write(to: URL(fileURLWithPath: tree + "/._untagged.txt"))
        let zip = tmp.path + "/finder.zip"
        try await shell("cd '\(tree)' && zip -qr '\(zip)' docs notes.md ._notes.md ._untagged.txt __MACOSX")

        let wanted: Set = ["com.apple.quarantine", "com.apple.metadata:kMDItemWhereFroms", "com.apple.provenance"]
        let result = try scanAttributes(zip, names: wanted)
        #expect(result.problems.isEmpty)
        let byName = Dictionary(result.records.map { ($0.name.lossyString, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(Set(byName.keys) == ["docs/report.txt", "notes.md", "gone.txt"])
        let report = try #require(byName["docs/report.txt"])
        #expect(report.origin == .appleDouble)
        #expect(report.entry.lossyString == "__MACOSX/docs/._report.txt")
        // Entry order, the tags left out.
        #expect(report.attributes == [
            ArchiveAttribute(name: Array("com.apple.quarantine".utf8), value: Array(Self.quarantine.utf8)),
            ArchiveAttribute(name: Array("com.apple.metadata:kMDItemWhereFroms".utf8), value: whereFroms),
        ])
        #expect(byName["notes.md"]?.entry.lossyString == "._notes.md")
        #expect(byName["notes.md"]?.attributes.first?.value == [1, 2, 0, 0xD5, 0xF3, 0x24, 0x7E, 0x64, 0xBD, 0xE9, 0x45])
        // Listed under its member's name although the archive has no gone.txt, as show does.
        #expect(byName["gone.txt"]?.entry.lossyString == "__MACOSX/._gone.txt")
        #expect(result.values(of: "gone.txt") == ["com.apple.quarantine": "0081;5f000000;Chrome;"])
    }

    /// A tar made on a Mac: pax records without `user.`, `LIBARCHIVE.xattr.` URL-encoded with a
    /// base64 value (written here by Python's tarfile, as libarchive lays them out), and a
    /// `._NAME` AppleDouble entry before the member, as macOS bsdtar writes.
    @Test func macOSTarPaxHeadersAndAppleDoubleEntries() async throws {
        let tmp = TemporaryFolder()
        let tar = tmp.path + "/mac.tar.gz"
        let double = appleDoubleBytes(attributes: [("com.apple.quarantine", Array(Self.quarantine.utf8))])
        let script = """
        import base64, io, sys, tarfile
        out, double = sys.argv[1], bytes.fromhex(sys.argv[2])
        with tarfile.open(out, "w:gz", format=tarfile.PAX_FORMAT) as tar:
            info = tarfile.TarInfo("./._a.txt"); info.size = len(double)
            tar.addfile(info, io.BytesIO(double))
            info = tarfile.TarInfo("./a.txt"); info.size = 1
            info.pax_headers = {
                "LIBARCHIVE.xattr.com.apple.provenance": base64.b64encode(bytes.fromhex("010200d5f3247e64bde945")).decode(),
                "LIBARCHIVE.xattr.com.apple.lastuseddate%23PS": base64.b64encode(bytes(16)).decode(),
                "SCHILY.xattr.com.apple.provenance": "second-spelling-another-value",
                "SCHILY.xattr.com.apple.FinderInfo": "not-asked-for",
            }
            tar.addfile(info, io.BytesIO(b"a"))
        """
        let run = try await ProcessRunner.runOnPath(["python3", "-c", script, tar, double.map { String(format: "%02x", $0) }.joined()])
        #expect(run.status == 0, "\(run)")

        let result = try scanAttributes(tar, names: ["com.apple.provenance", "com.apple.lastuseddate#PS", "com.apple.quarantine"])
        #expect(result.problems.isEmpty)
        #expect(result.records.map(\.name.lossyString) == ["./a.txt", "./a.txt"])
        #expect(result.records.map(\.origin) == [.appleDouble, .paxHeader])
        #expect(result.records.map(\.entry.lossyString) == ["./._a.txt", "./a.txt"])
        #expect(result.records.first?.attributes == [ArchiveAttribute(name: Array("com.apple.quarantine".utf8), value: Array(Self.quarantine.utf8))])
        let pax = try #require(result.records.last)
        // In the header's order (libarchive lists them newest first), with their keywords; a
        // second spelling of one value once, of another value too.
        #expect(pax.attributes.map { String(decoding: $0.name, as: UTF8.self) } == ["com.apple.provenance", "com.apple.lastuseddate#PS", "com.apple.provenance"])
        #expect(pax.attributes.map { String(decoding: $0.keyword ?? [], as: UTF8.self) } == [
            "LIBARCHIVE.xattr.com.apple.provenance", "LIBARCHIVE.xattr.com.apple.lastuseddate%23PS", "SCHILY.xattr.com.apple.provenance"])
        #expect(pax.attributes.last?.value == Array("second-spelling-another-value".utf8))
        #expect(pax.attributes.first { $0.name == Array("com.apple.provenance".utf8) }?.value == [1, 2, 0, 0xD5, 0xF3, 0x24, 0x7E, 0x64, 0xBD, 0xE9, 0x45])
        #expect(pax.attributes.first { $0.name == Array("com.apple.lastuseddate#PS".utf8) }?.value == [UInt8](repeating: 0, count: 16))
    }

    /// A value over the bound is a problem naming the member and the attribute; the member's
    /// other attributes and the rest of the archive are still reported.
    @Test func valueOverTheBoundIsAProblem() async throws {
        let tmp = TemporaryFolder()
        let tree = tmp.folder("tree")
        let a = tmp.file("tree/a.txt", "a")
        let b = tmp.file("tree/b.txt", "b")
        try await setfattr(a, "user.xdg.origin.url", "https://example.com/" + String(repeating: "x", count: 300))
        try await setfattr(a, "user.com.apple.quarantine", Self.quarantine)
        try await setfattr(b, "user.com.apple.quarantine", Self.quarantine)
        try await shell("cd '\(tree)' && tar --xattrs --xattrs-include='user.*' -cf '\(tmp.path)/big.tar' a.txt b.txt")
        let result = try scanAttributes(tmp.path + "/big.tar", names: ["user.xdg.origin.url", "user.com.apple.quarantine"],
                                        limits: ArchiveScanner.Limits(maximumAttributeValueSize: 256))
        #expect(result.problems.map(\.kind) == [.valueTooLarge])
        #expect(result.problems.first?.entry?.lossyString == "a.txt")
        #expect(result.problems.first?.message == "the attribute user.xdg.origin.url of a.txt is 320 bytes, more than the 256 bytes read: skipped")
        #expect(result.values(of: "a.txt") == ["user.com.apple.quarantine": Self.quarantine])
        #expect(result.values(of: "b.txt") == ["user.com.apple.quarantine": Self.quarantine])
    }

    /// A pax header as wide as libarchive reads (1 MiB: 40 000 names) is reported whole, in
    /// the header's order, each name once, without work that grows with the square of the
    /// names (it took 269 s in a debug build when each name was searched for among those kept;
    /// 0.3 s with a set).
    @Test func widePaxHeader() throws {
        let tmp = TemporaryFolder()
        let tar = tmp.write("wide.tar", bytes: paxTar([
            ("a.txt", (0..<40_000).map { ("SCHILY.xattr.\($0)", []) }, [UInt8(ascii: "a")]),
        ]))
        var names: [[UInt8]] = []
        let summary = try ArchiveScanner(path: tar)!.scanAttributes(named: { _, _ in true }) { event in
            if case .attributes(let record) = event { names += record.attributes.map(\.name) }
            return .proceed
        }
        #expect(names.count == 40_000)
        #expect(names == (0..<40_000).map { Array(String($0).utf8) })
        #expect(summary.tagged == 1 && summary.problems == 0)
    }

    /// The bounds of show's scan hold: a `._NAME` entry that is not AppleDouble is a problem and
    /// the scan goes on; the entry bound stops it; the predicate sees AppleDouble names plain.
    @Test func boundsAndProblemsAsShow() async throws {
        let tmp = TemporaryFolder()
        let zip = tmp.path + "/bad.zip"
        try await makeTestArchive(["out": zip, "entries": [
            ["name": "._broken", "data": "not appledouble"],
            ["name": "__MACOSX/._ok.txt", "appledouble": ["value": sourceValue("com.example", "E")]],
            ["name": "later.txt", "data": "x"],
        ]])
        var origins: [ArchiveAttributeOrigin] = []
        var seen: [String] = []
        let scanner = ArchiveScanner(path: zip)!
        var records: [ArchiveMemberAttributes] = []
        var problems: [ArchiveProblem] = []
        let summary = try scanner.scanAttributes(named: { origin, name in
            origins.append(origin)
            seen.append(String(decoding: name, as: UTF8.self))
            return name == Array("x-document-source".utf8)
        }) { event in
            switch event {
            case .attributes(let record): records.append(record)
            case .problem(let problem): problems.append(problem)
            }
            return .proceed
        }
        #expect(problems.map(\.kind) == [.malformedAppleDouble])
        #expect(Set(origins) == [.appleDouble])
        #expect(seen == ["com.apple.quarantine", "x-document-source", "com.apple.metadata:kMDItemWhereFroms"])
        #expect(records.map(\.name.lossyString) == ["ok.txt"])
        #expect(summary.entries == 3 && summary.tagged == 1)

        let capped = try scanAttributes(zip, names: ["x-document-source"], limits: ArchiveScanner.Limits(maximumEntries: 1))
        #expect(capped.problems.map(\.kind) == [.malformedAppleDouble, .tooManyEntries])
        #expect(capped.records.isEmpty && capped.summary.stopped)
    }
}
