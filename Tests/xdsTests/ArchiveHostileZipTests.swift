import Foundation
import Testing
import XDocSource
import XDocSourceArchive
import XDSTestSupport

/// Builds a zip whose central directory lies, with scripts/make_hostile_zip.py (see its doc).
private func makeHostileZip(_ path: String, _ entries: [[String: Any]], front: String? = nil) async throws {
    var spec: [String: Any] = ["out": path, "entries": entries]
    if let front { spec["front_hex"] = front }
    let json = try JSONSerialization.data(withJSONObject: spec)
    let made = try await run("/usr/bin/env", ["python3", packageRoot + "/scripts/make_hostile_zip.py"], input: json)
    #expect(made.status == 0, "make_hostile_zip.py: \(made)")
}

/// An AppleDouble entry whose x-document-source value names `id`.
private func double(_ id: String, padTo: Int = 0) -> [String: Any] {
    ["value": ["identifier": id, "name": "N"], "pad_to": padTo]
}

/// The 64-bit values a hostile zip64 extra field carries.
private let int64Max: UInt64 = (1 << 63) - 1
private let uint64Max = UInt64.max

/// Issue 24: sizes, offsets and counts in a zip are hostile. None may crash `xds` (it used to
/// die of SIGILL on an overflow, taking `show -r` and `remove -r` of a whole share with it), a
/// lie is one line naming the archive (65), and the walk goes on; overlapping entries are
/// damage, not thousands of members, and inflating is bounded per archive.
@Suite("Archives: hostile zip sizes and offsets", .timeLimit(.minutes(3)))
struct ArchiveHostileZipTests {
    /// One case: a zip whose `._` entry (or plain member) has these zip64 values, and what
    /// `xds show` says of it.
    struct Case: CustomStringConvertible, Sendable {
        let name: String
        /// The entries, as JSON (make_hostile_zip.py's).
        let entries: Data
        let front: String?
        let status: Int32
        let error: String?
        var description: String { name }

        init(name: String, entries: [[String: Any]], front: String? = nil, status: Int32, error: String?) {
            self.name = name
            self.entries = try! JSONSerialization.data(withJSONObject: entries)
            self.front = front
            self.status = status
            self.error = error
        }
    }

    static let cases: [Case] = {
        let sequestered = "__MACOSX/._doc.txt"
        let plain: [String: Any] = ["name": "doc.txt", "data": "d", "method": "stored"]
        func tagged(_ method: String, _ zip64: [String: Any]) -> [String: Any] {
            ["name": sequestered, "appledouble": double("com.example.x"), "method": method, "zip64": zip64]
        }
        let runsIn = "damaged archive (zip): the data of entry 2 (\(sequestered)) runs into its central directory"
        let notBefore = "damaged archive (zip): the local header of entry 2 (\(sequestered)) is not before its central directory"
        var cases: [Case] = []
        for method in ["stored", "deflate"] {
            // The issue's zip: a compressed size of 2^63 - 1 (dataStart + compressed overflowed).
            cases.append(Case(name: "\(method) compressed 2^63-1", entries: [plain, tagged(method, ["compressed": int64Max])],
                              status: 65, error: runsIn))
            cases.append(Case(name: "\(method) compressed 2^64-1", entries: [plain, tagged(method, ["compressed": uint64Max])],
                              status: 65, error: runsIn))
            cases.append(Case(name: "\(method) both sizes 2^63-1", entries: [plain, tagged(method, ["compressed": int64Max, "uncompressed": int64Max])],
                              status: 65, error: "\(sequestered) is \(int64Max) bytes, more than the 1048576 read: skipped"))
            cases.append(Case(name: "\(method) offset 2^63-1", entries: [plain, tagged(method, ["local": int64Max])],
                              status: 65, error: notBefore))
            cases.append(Case(name: "\(method) offset 2^64-1", entries: [plain, tagged(method, ["local": uint64Max])],
                              status: 65, error: notBefore))
            // Bytes in front (a self-extracting zip): the offset is corrected, and overflows.
            cases.append(Case(name: "\(method) offset 2^63-2 behind a stub", entries: [plain, tagged(method, ["local": int64Max - 1])],
                              front: String(repeating: "7f454c46", count: 64), status: 65, error: notBefore))
            // A size that runs just past the data, into the directory.
            cases.append(Case(name: "\(method) compressed 2^32", entries: [plain, tagged(method, ["compressed": 1 << 32])],
                              status: 65, error: runsIn))
            // The true values in zip64 fields are read as any others.
            cases.append(Case(name: "\(method) true zip64 values", entries: [plain, tagged(method, ["compressed": true, "uncompressed": true, "local": true])],
                              status: 0, error: nil))
            // A member that is not read (no value can be in it) is skipped whatever it says.
            cases.append(Case(name: "\(method) plain member with hostile sizes",
                              entries: [["name": "doc.txt", "data": "d", "method": method,
                                         "zip64": ["compressed": int64Max, "uncompressed": uint64Max, "local": int64Max]],
                                        ["name": sequestered, "appledouble": double("com.example.x"), "method": method]],
                              status: 0, error: nil))
        }
        return cases
    }()

    @Test(arguments: cases)
    func hostileZip64ValuesAreOneLineNotACrash(_ testCase: Case) async throws {
        let folder = TemporaryFolder()
        let entries = try #require(try JSONSerialization.jsonObject(with: testCase.entries) as? [[String: Any]])
        try await makeHostileZip(folder.path + "/x.zip", entries, front: testCase.front)
        let shown = try await xds("show", "x.zip", in: folder.path)
        #expect(shown.status == testCase.status, "\(shown)")
        if let error = testCase.error {
            #expect(shown.errorLines.first == "xds: x.zip: " + error)
        } else {
            #expect(shown.stderr == "")
            #expect(shown.stdout.hasPrefix("x.zip!/doc.txt\n  identifier: com.example.x\n"))
        }
    }

    /// A share with such zips among tagged files: `show -r` reports each zip in one line (65)
    /// and lists every tagged file, the ones after the zips included; `remove -r` removes every
    /// value (it used to die half-way, some values removed and the rest kept).
    @Test(arguments: ["1", "2"])
    func theWalkGoesOnPastAHostileZip(_ jobs: String) async throws {
        let folder = TemporaryFolder()
        let share = folder.path + "/share"
        try FileManager.default.createDirectory(atPath: share + "/later", withIntermediateDirectories: true)
        let bad: [String: Any] = ["name": "__MACOSX/._doc.txt", "appledouble": double("com.example.bad"), "zip64": ["compressed": int64Max]]
        try await makeHostileZip(share + "/a.zip", [["name": "doc.txt", "data": "d", "method": "stored"], bad.merging(["method": "stored"]) { $1 }])
        try await makeHostileZip(share + "/later/b.zip", [bad])
        try await makeHostileZip(share + "/good.zip", [["name": "._g", "appledouble": double("com.example.good")]])
        let value = try DocumentSource(identifier: "com.example.t", name: "T").binaryPropertyList()
        let files = ["0.txt", "b.txt", "later/c.txt", "z.txt"].map { share + "/" + $0 }
        for file in files {
            try "x".write(toFile: file, atomically: false, encoding: .utf8)
            try await folder.setAttribute(file, value)
        }

        let shown = try await xds("show", "-r", "-j", jobs, "--json", "share", in: folder.path)
        #expect(shown.status == 65, "\(shown)")
        #expect(Set(shown.errorLines) == [
            "xds: share/a.zip: damaged archive (zip): the data of entry 2 (__MACOSX/._doc.txt) runs into its central directory",
            "xds: share/later/b.zip: damaged archive (zip): the data of entry 1 (__MACOSX/._doc.txt) runs into its central directory",
        ])
        let listed = try Set(shown.jsonLines().compactMap { $0["file"] as? String })
        #expect(listed == ["share/0.txt", "share/b.txt", "share/later/c.txt", "share/z.txt", "share/good.zip!/g"])

        // The archives themselves: one line each, 65.
        let archive = try await xds("show", "share/a.zip", in: folder.path)
        #expect(archive.status == 65 && archive.stdout == "" && archive.errorLines.count == 1, "\(archive)")

        let removed = try await xds("remove", "-r", "-j", jobs, "share", in: folder.path)
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.errorLines == ["xds: share/good.zip: 1 member carries x-document-source; xds does not rewrite archives"])
        for file in files { #expect(try await folder.attribute(file) == nil, "\(file) keeps its value") }
    }

    // MARK: - Bounded work

    /// Issue 24's bomb, scaled down: 200 central-directory entries all pointing at one deflated
    /// `._a` that inflates to 1 MiB. One line (the overlap is damage), not 200 records.
    @Test(arguments: ["stored", "deflate"])
    func overlappingEntriesAreDamageNotMembers(_ method: String) async throws {
        let folder = TemporaryFolder()
        try await makeHostileZip(folder.path + "/bomb.zip", [
            ["name": "._first", "appledouble": double("com.example.first"), "method": method],
            ["name": "._a", "appledouble": double("com.example.a", padTo: 1 << 20), "method": method, "copies": 200],
        ])
        let shown = try await xds("show", "bomb.zip", in: folder.path)
        #expect(shown.status == 65, "\(shown)")
        // The first entry and the first copy are members; the second copy is the damage.
        #expect(shown.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.isEmpty } == ["bomb.zip!/first", "bomb.zip!/a"])
        #expect(shown.errorLines == ["xds: bomb.zip: damaged archive (zip): the data of entry 3 (._a) overlaps another entry's"])
    }

    /// Entries that overlap in any order (not only the same offset): an entry whose range
    /// starts inside another's data, listed before or after it.
    @Test func partlyOverlappingEntriesInAnyOrder() async throws {
        let folder = TemporaryFolder()
        // A stored `._in` whose data is a whole zip member: its local header, at `inner`, lies
        // inside `._outer`'s data. The directory lists one, then the other.
        let made = try await python("""
            import json, struct, subprocess, sys, zlib
            sys.path.insert(0, sys.argv[1])
            import make_test_archive as m
            import plistlib
            value = plistlib.dumps({"identifier": "com.example.in", "name": "In"}, fmt=plistlib.FMT_BINARY)
            inner = m.appledouble(value)
            crc = zlib.crc32(inner)
            name = b"._in"
            local_in = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0x21, crc, len(inner), len(inner), len(name), 0) + name + inner
            outer_name = b"._outer"
            outer_data = local_in
            local_out = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0x21, zlib.crc32(outer_data), len(outer_data), len(outer_data), len(outer_name), 0) + outer_name
            inner_at = len(local_out)
            body = local_out + outer_data
            def central(name, data, at):
                return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 20, 0, 0, 0, 0x21, zlib.crc32(data),
                                   len(data), len(data), len(name), 0, 0, 0, 0, 0o100644 << 16, at) + name
            for out, order in (("in-first.zip", 0), ("outer-first.zip", 1)):
                records = [central(name, inner, inner_at), central(outer_name, outer_data, 0)]
                if order: records.reverse()
                directory = b"".join(records)
                with open(out, "wb") as f:
                    f.write(body + directory + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 2, 2, len(directory), len(body), 0))
            """, [packageRoot + "/scripts"], in: folder.path)
        #expect(made.status == 0, "\(made)")
        let inFirst = try await xds("show", "in-first.zip", in: folder.path)
        #expect(inFirst.status == 65, "\(inFirst)")
        #expect(inFirst.stdout.hasPrefix("in-first.zip!/in\n"))
        #expect(inFirst.errorLines == ["xds: in-first.zip: damaged archive (zip): the data of entry 2 (._outer) overlaps another entry's"])
        let outerFirst = try await xds("show", "outer-first.zip", in: folder.path)
        #expect(outerFirst.status == 65, "\(outerFirst)")
        // `._outer` is read first (not AppleDouble: one problem), then `._in` overlaps it.
        #expect(outerFirst.errorLines == [
            "xds: outer-first.zip: ._outer is a malformed AppleDouble file: not an AppleDouble file (bad magic number)",
            "xds: outer-first.zip: damaged archive (zip): the data of entry 2 (._in) overlaps another entry's",
        ])
    }

    /// `--archive-limit` bounds the bytes inflated in a zip, as in a compressed tar: 8 distinct
    /// `._` entries of 1 MiB each, with a 4 MiB limit, show 4 and stop in one line.
    @Test func archiveLimitBoundsInflatingAZip() async throws {
        let folder = TemporaryFolder()
        let entries: [[String: Any]] = (0..<8).map { ["name": "._a\($0)", "appledouble": double("com.example.\($0)", padTo: 1 << 20)] }
        try await makeHostileZip(folder.path + "/big.zip", entries)
        let limited = try await xds("show", "--archive-limit", "4M", "big.zip", in: folder.path)
        #expect(limited.status == 65, "\(limited)")
        #expect(limited.errorLines == ["xds: big.zip: stopped after decompressing 4 MiB (the archive limit; --archive-limit to raise it)"])
        #expect(limited.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.isEmpty } == (0..<4).map { "big.zip!/a\($0)" })
        // The default (1 GiB) reads them all; stored entries are not inflated, so not counted.
        let whole = try await xds("show", "big.zip", in: folder.path)
        #expect(whole.status == 0, "\(whole)")
        #expect(whole.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.isEmpty }.count == 8)
        // The library's error: the kind, the limit, and words naming no flag.
        do {
            let scanner = try #require(ArchiveScanner(path: folder.path + "/big.zip", limits: .init(maximumDecompressedSize: 3 << 20)))
            var members = 0
            _ = try scanner.scan { event in
                if case .member = event { members += 1 }
                return .proceed
            }
            Issue.record("no error")
        } catch let error as ArchiveError {
            #expect(error.kind == .limitReached && error.limit == 3 << 20)
            #expect(error.message == "stopped after decompressing 3 MiB (the archive limit)")
        }
        try await makeHostileZip(folder.path + "/stored.zip", entries.map { $0.merging(["method": "stored"]) { $1 } })
        #expect(try await xds("show", "--archive-limit", "4M", "stored.zip", in: folder.path).status == 0)
        // remove -r takes the option and goes on past the limit.
        let tagged = folder.file("t.txt")
        try await folder.setAttribute(tagged, DocumentSource(identifier: "com.example.t", name: "T").binaryPropertyList())
        let removed = try await xds("remove", "-r", "--archive-limit", "4M", folder.path)
        #expect(removed.status == 0, "\(removed)")
        #expect(try await folder.attribute(tagged) == nil)
    }
}
