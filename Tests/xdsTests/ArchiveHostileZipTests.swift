import Foundation
import Testing
import XDocSource
import XDSTestSupport

/// Builds a zip whose central directory lies, with scripts/make_hostile_zip.py (see its doc).
private func makeHostileZip(_ path: String, _ entries: [[String: Any]], front: String? = nil) throws {
    var spec: [String: Any] = ["out": path, "entries": entries]
    if let front { spec["front_hex"] = front }
    let json = try JSONSerialization.data(withJSONObject: spec)
    let made = try run("/usr/bin/env", ["python3", packageRoot + "/scripts/make_hostile_zip.py"], input: json)
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
/// lie is one line naming the archive (65), and the walk goes on.
@Suite("Archives: hostile zip sizes and offsets")
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
            // The zip: a compressed size of 2^63 - 1 (dataStart + compressed overflowed).
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

    @Test(.timeLimit(.minutes(2)), arguments: cases)
    func hostileZip64ValuesAreOneLineNotACrash(_ testCase: Case) throws {
        let folder = TemporaryFolder()
        let entries = try #require(try JSONSerialization.jsonObject(with: testCase.entries) as? [[String: Any]])
        try makeHostileZip(folder.path + "/x.zip", entries, front: testCase.front)
        let shown = try xds("show", "x.zip", in: folder.path)
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
    @Test(.timeLimit(.minutes(2)), arguments: ["1", "2"])
    func theWalkGoesOnPastAHostileZip(_ jobs: String) throws {
        let folder = TemporaryFolder()
        let share = folder.path + "/share"
        try FileManager.default.createDirectory(atPath: share + "/later", withIntermediateDirectories: true)
        let bad: [String: Any] = ["name": "__MACOSX/._doc.txt", "appledouble": double("com.example.bad"), "zip64": ["compressed": int64Max]]
        try makeHostileZip(share + "/a.zip", [["name": "doc.txt", "data": "d", "method": "stored"], bad.merging(["method": "stored"]) { $1 }])
        try makeHostileZip(share + "/later/b.zip", [bad])
        try makeHostileZip(share + "/good.zip", [["name": "._g", "appledouble": double("com.example.good")]])
        let value = try DocumentSource(identifier: "com.example.t", name: "T").binaryPropertyList()
        let files = ["0.txt", "b.txt", "later/c.txt", "z.txt"].map { share + "/" + $0 }
        for file in files {
            try "x".write(toFile: file, atomically: false, encoding: .utf8)
            try folder.setAttribute(file, value)
        }

        let shown = try xds("show", "-r", "-j", jobs, "--json", "share", in: folder.path)
        #expect(shown.status == 65, "\(shown)")
        #expect(Set(shown.errorLines) == [
            "xds: share/a.zip: damaged archive (zip): the data of entry 2 (__MACOSX/._doc.txt) runs into its central directory",
            "xds: share/later/b.zip: damaged archive (zip): the data of entry 1 (__MACOSX/._doc.txt) runs into its central directory",
        ])
        let listed = try Set(shown.jsonLines().compactMap { $0["file"] as? String })
        #expect(listed == ["share/0.txt", "share/b.txt", "share/later/c.txt", "share/z.txt", "share/good.zip!/g"])

        // The archives themselves: one line each, 65.
        let archive = try xds("show", "share/a.zip", in: folder.path)
        #expect(archive.status == 65 && archive.stdout == "" && archive.errorLines.count == 1, "\(archive)")

        let removed = try xds("remove", "-r", "-j", jobs, "share", in: folder.path)
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.errorLines == ["xds: share/good.zip: 1 member carries x-document-source; xds does not rewrite archives"])
        for file in files { #expect(try folder.attribute(file) == nil, "\(file) keeps its value") }
    }
}
