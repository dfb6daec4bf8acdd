import Foundation
import Testing
import XDSTestSupport
@testable import XDocSource
@testable import XDSWalk
@testable import XDocSourceArchive

/// Builds an archive with scripts/make_test_archive.py from a spec (see the script's doc).
func makeTestArchive(_ spec: [String: Any]) async throws {
    let json = try JSONSerialization.data(withJSONObject: spec)
    let script = Repository.url("scripts/make_test_archive.py").path
    let run = try await ProcessRunner.runOnPath(["python3", script], input: json)
    guard run.status == 0 else { throw ArchiveTestFailure(description: "make_test_archive.py: \(run)") }
}

struct ArchiveTestFailure: Error, CustomStringConvertible { let description: String }

/// The members and problems of one scan.
struct ArchiveScanResult {
    var members: [ArchiveMember] = []
    var problems: [ArchiveProblem] = []
    var summary = ArchiveScanner.Summary()
    var byName: [String: ArchiveMember] {
        Dictionary(members.map { ($0.name.lossyString, $0) }, uniquingKeysWith: { a, _ in a })
    }
}

func scanArchive(_ path: String, limits: ArchiveScanner.Limits = .init()) throws(ArchiveError) -> ArchiveScanResult {
    var result = ArchiveScanResult()
    let scanner = ArchiveScanner(path: path, limits: limits)!
    result.summary = try scanner.scan { event in
        switch event {
        case .member(let member): result.members.append(member)
        case .problem(let problem): result.problems.append(problem)
        }
        return .proceed
    }
    return result
}

/// Runs a command line (tar, bsdtar) and fails the test when it fails.
func shell(_ command: String) async throws {
    let run = try await ProcessRunner.run("/bin/sh", ["-c", command])
    guard run.status == 0 else { throw ArchiveTestFailure(description: "\(command): \(run)") }
}

func sourceValue(_ id: String, _ name: String) -> [String: String] {
    ["identifier": id, "name": name]
}

@Suite("ArchiveScanner: zip and tar members, read without extracting")
struct ArchiveScannerTests {
    @Test func zipMembersThroughMACOSXAndBesideEntries() async throws {
        let tmp = TemporaryFolder()
        let zip = tmp.path + "/finder.zip"
        try await makeTestArchive(["out": zip, "entries": [
            ["name": "docs/", "data": ""],
            ["name": "docs/report.txt", "data": "hello"],
            ["name": "__MACOSX/docs/._report.txt", "appledouble": ["value": ["identifier": "com.example.app", "name": "Example", "path": "docs/report.txt", "extra": 7]]],
            ["name": "notes.md", "data": "x"],
            ["name": "._notes.md", "appledouble": ["value": sourceValue("com.example.two", "Two")]],
            ["name": "__MACOSX/._top", "appledouble": ["value": sourceValue("com.example.top", "Top")], "method": "stored"],
            ["name": "plain.txt", "data": "no value"],
        ]])
        let result = try scanArchive(zip)
        #expect(result.problems.isEmpty)
        #expect(result.members.map(\.name.lossyString) == ["docs/report.txt", "notes.md", "top"])
        let report = try #require(result.byName["docs/report.txt"])
        #expect(report.stored.store == .zip)
        #expect(report.stored.location == "__MACOSX/docs/._report.txt")
        #expect(report.entry.lossyString == "__MACOSX/docs/._report.txt")
        #expect(report.stored.source.identifier == "com.example.app")
        #expect(report.stored.source.path == "docs/report.txt")
        #expect(report.stored.source.otherKeys["extra"] == .integer(7))
        #expect(result.byName["notes.md"]?.stored.location == "._notes.md")
        #expect(result.byName["top"]?.stored.source.name == "Top")
        #expect(result.summary.tagged == 3 && result.summary.entries == 7 && !result.summary.stopped)
        #expect(result.summary.textBundleInfo == nil)
        #expect(report.path(in: DocumentSourceTreePath(zip)).string == zip + "!/docs/report.txt")
    }

    @Test func textpackExposesInfoJSONBytes() async throws {
        let tmp = TemporaryFolder()
        let info = #"{"version":2,"type":"net.daringfireball.markdown","creatorIdentifier":"com.example.ed"}"#
        let nested = tmp.path + "/Nested.TEXTPACK"
        try await makeTestArchive(["out": nested, "entries": [
            ["name": "Doc.textbundle/text.md", "data": "# hi"],
            ["name": "Doc.textbundle/info.json", "data": info],
            ["name": "__MACOSX/Doc.textbundle/._text.md", "appledouble": ["value": sourceValue("com.example.ed", "Ed")]],
            ["name": "Doc.textbundle/assets/info.json", "data": "{\"deeper\":1}"],
        ]])
        let result = try scanArchive(nested)
        #expect(result.summary.textBundleInfo == Array(info.utf8))
        #expect(result.members.map(\.name.lossyString) == ["Doc.textbundle/text.md"])

        // At the root it wins over one folder down, wherever it comes in the archive.
        let root = tmp.path + "/root.textpack"
        try await makeTestArchive(["out": root, "entries": [
            ["name": "x/info.json", "data": "{\"nested\":1}"],
            ["name": "info.json", "data": info],
        ]])
        #expect(try scanArchive(root).summary.textBundleInfo == Array(info.utf8))

        // Bounded: a larger info.json is not captured; as for a .textbundle folder, that is a
        // warning about the bundle's record (textBundleInfoProblem), not a problem of the archive.
        let big = tmp.path + "/big.textpack"
        try await makeTestArchive(["out": big, "entries": [["name": "info.json", "data": String(repeating: " ", count: 70_000)]]])
        let bigResult = try scanArchive(big)
        #expect(bigResult.summary.textBundleInfo == nil)
        #expect(bigResult.problems.isEmpty)
        #expect(bigResult.summary.textBundleInfoProblem == "info.json is larger than 64 KiB")

        // A plain .zip does not capture it.
        let plain = tmp.path + "/plain.zip"
        try await makeTestArchive(["out": plain, "entries": [["name": "info.json", "data": info]]])
        #expect(try scanArchive(plain).summary.textBundleInfo == nil)
    }

    /// Files with real `user.x-document-source` attributes, archived by GNU tar and bsdtar.
    @Test(arguments: [
        ("gnu.tar", "tar --xattrs --xattrs-include='user.*' -cf"),
        ("gnu.tar.gz", "tar --xattrs --xattrs-include='user.*' -czf"),
        ("bsd.tar", "bsdtar -cf"),
        ("bsd.tgz", "bsdtar -czf"),
        ("bsd-pax.TAR.XZ", "bsdtar --format=pax -cJf"),
    ])
    func tarMembersThroughExtendedAttributeHeaders(name: String, command: String) async throws {
        let tmp = TemporaryFolder()
        let tree = tmp.folder("tree")
        _ = tmp.folder("tree/sub")
        try DocumentSourceFile(path: tmp.file("tree/sub/a.txt")).write(
            DocumentSource(identifier: "com.example.a", name: "App A", path: "dir/a.txt"))
        try DocumentSourceFile(path: tmp.file("tree/b.txt")).write(DocumentSource(identifier: "com.example.b", name: "B"))
        try ExtendedAttributes.setValue([1, 2, 3], named: "user.other", atPath: tmp.file("tree/c.txt"), followSymlinks: true)
        try await shell("cd '\(tree)' && \(command) '\(tmp.path)/\(name)' b.txt c.txt sub")
        let result = try scanArchive(tmp.path + "/" + name)
        #expect(result.problems.isEmpty)
        #expect(result.members.map(\.name.lossyString) == ["b.txt", "sub/a.txt"])
        #expect(result.byName["sub/a.txt"]?.stored == StoredDocumentSource(
            source: DocumentSource(identifier: "com.example.a", name: "App A", path: "dir/a.txt"),
            store: .tar, location: "sub/a.txt"))
        #expect(result.byName["b.txt"]?.stored.source.name == "B")
    }

    /// macOS bsdtar writes `._NAME` AppleDouble entries before each member.
    @Test func tarAppleDoubleEntries() async throws {
        let tmp = TemporaryFolder()
        let tar = tmp.path + "/mac.tar.gz"
        try await makeTestArchive(["out": tar, "format": "tar.gz", "entries": [
            ["name": "./._a.txt", "appledouble": ["value": sourceValue("com.example.mac", "Mac")]],
            ["name": "./a.txt", "data": "a"],
        ]])
        let result = try scanArchive(tar)
        #expect(result.members.map(\.name.lossyString) == ["./a.txt"])
        #expect(result.members.first?.stored.store == .tar)
        #expect(result.members.first?.stored.location == "./._a.txt")
    }

    @Test func malformedValuesAreProblemsAndTheScanGoesOn() async throws {
        let tmp = TemporaryFolder()
        let zip = tmp.path + "/bad.zip"
        try await makeTestArchive(["out": zip, "entries": [
            ["name": "__MACOSX/._a", "appledouble": ["value_hex": "00112233"]],
            ["name": "._b", "data": "not appledouble at all"],
            ["name": "._c", "appledouble": ["value_hex": "62706c6973743030"]],
            ["name": "._d", "appledouble": ["value": sourceValue("com.example.d", "D")]],
        ]])
        let result = try scanArchive(zip)
        #expect(result.problems.map(\.kind) == [.malformedValue, .malformedAppleDouble, .malformedValue])
        #expect(result.problems[0].message.contains("a (in __MACOSX/._a)"))
        #expect(result.members.map(\.name.lossyString) == ["d"])
    }

    @Test func deflateBombStopsAtTheBound() async throws {
        let tmp = TemporaryFolder()
        let zip = tmp.path + "/bomb.zip"
        // 256 MiB of zeros deflate to about 250 KB; the header says 1000 bytes.
        try await makeTestArchive(["out": zip, "entries": [
            ["name": "__MACOSX/._bomb", "bomb": 1 << 28],
            ["name": "._after", "appledouble": ["value": sourceValue("com.example.after", "After")]],
        ]])
        let clock = ContinuousClock()
        let start = clock.now
        let result = try scanArchive(zip)
        #expect(clock.now - start < .seconds(5))
        #expect(result.problems.map(\.kind) == [.tooLarge])
        #expect(result.problems.first?.message == "__MACOSX/._bomb is more than 1048576 bytes: skipped")
        #expect(result.members.map(\.name.lossyString) == ["after"])
        // A smaller bound applies the same way.
        let small = try scanArchive(zip, limits: .init(maximumAppleDoubleSize: 100))
        #expect(small.problems.count == 2 && small.members.isEmpty)
    }

    @Test func entryCountIsBounded() async throws {
        let tmp = TemporaryFolder()
        let zip = tmp.path + "/many.zip"
        try await makeTestArchive(["out": zip, "many": ["count": 50, "prefix": "f", "tagged_every": 10]])
        let full = try scanArchive(zip)
        #expect(full.summary.entries == 55 && full.members.count == 5 && !full.summary.stopped)
        let bounded = try scanArchive(zip, limits: .init(maximumEntries: 13))
        #expect(bounded.summary.entries == 13 && bounded.summary.stopped)
        #expect(bounded.members.count == 2)
        #expect(bounded.problems.map(\.kind) == [.tooManyEntries])
        #expect(bounded.problems.first?.message == "has more than 13 entries: the scan stopped there")
    }

    @Test func oddNamesAreOnlyNames() async throws {
        let tmp = TemporaryFolder()
        let inner = tmp.folder("inner")
        let zip = inner + "/odd.zip"
        let hex = { (s: [UInt8]) in s.map { String(format: "%02x", $0) }.joined() }
        try await makeTestArchive(["out": zip, "entries": [
            ["name": "__MACOSX/../../._escape", "appledouble": ["value": sourceValue("com.example.up", "Up")]],
            ["name": "/etc/._passwd", "appledouble": ["value": sourceValue("com.example.abs", "Abs")]],
            ["name_hex": hex(Array("dir/._bad".utf8) + [0xFF, 0x0A]), "appledouble": ["value": sourceValue("com.example.bytes", "Bytes")]],
        ]])
        let before = try FileManager.default.contentsOfDirectory(atPath: tmp.path).sorted()
        let result = try scanArchive(zip)
        #expect(result.members.map(\.name.lossyString) == ["../../escape", "/etc/passwd", "dir/bad\u{FFFD}\n"])
        #expect(result.members[2].name.bytes == Array("dir/bad".utf8) + [0xFF, 0x0A])
        #expect(result.members[2].name.visible == "dir/bad\\x{ff}\\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path).sorted() == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: inner) == ["odd.zip"])
    }

    @Test func encryptedAppleDoubleEntryIsSkippedInWords() async throws {
        let tmp = TemporaryFolder()
        let zip = tmp.path + "/enc.zip"
        try await makeTestArchive(["out": zip, "entries": [
            ["name": "__MACOSX/._secret", "appledouble": ["value": sourceValue("com.example.s", "S")], "encrypted": true, "method": "stored"],
            ["name": "._open", "appledouble": ["value": sourceValue("com.example.o", "O")]],
        ]])
        let result = try scanArchive(zip)
        #expect(result.problems.map(\.kind) == [.encrypted])
        #expect(result.problems.first?.message == "__MACOSX/._secret is encrypted: skipped")
        #expect(result.members.map(\.name.lossyString) == ["open"])
    }

    @Test func brokenMissingAndNonArchives() async throws {
        let tmp = TemporaryFolder()
        #expect(throws: ArchiveError.self) { try scanArchive(tmp.path + "/missing.zip") }
        do { _ = try scanArchive(tmp.path + "/missing.zip") } catch { #expect(error.kind == .notFound) }

        let fake = tmp.write("fake.tar.gz", bytes: Array("this is not gzip".utf8))
        do {
            _ = try scanArchive(fake)
            Issue.record("no error")
        } catch {
            #expect(error.kind == .malformed)
            #expect(error.message == "not a readable archive (tar): not gzip data, as its name says, nor a plain tar")
        }

        // Truncated in the middle: members before the damage are reported, then the error.
        _ = tmp.folder("big")
        for index in 0..<40 {
            tmp.write("big/f\(index)", bytes: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) })
        }
        try DocumentSourceFile(path: tmp.path + "/big/f0").write(DocumentSource(identifier: "com.example.f", name: "F"))
        try await shell("cd '\(tmp.path)' && tar --xattrs --xattrs-include='user.*' -cf whole.tar big && head -c 100000 whole.tar > cut.tar")
        var seen: [String] = []
        do {
            try ArchiveScanner(path: tmp.path + "/cut.tar")!.scan { event in
                if case .member(let m) = event { seen.append(m.name.lossyString) }
                return .proceed
            }
            Issue.record("no error")
        } catch {
            #expect(error.kind == .malformed)
            #expect(error.message.hasPrefix("damaged archive (tar): "))
        }
        #expect(seen.count <= 1)

        // An empty file is an empty tar; a folder named like an archive is not read.
        #expect(try scanArchive(tmp.write("empty.tar", bytes: [])).summary.entries == 0)
        let folder = tmp.folder("dir.zip")
        #expect(!ArchiveScanner.isRegularFile(DocumentSourceTreePath(folder)))
        #expect(ArchiveScanner(path: tmp.path + "/x.txt") == nil)
    }

    @Test func archiveNames() {
        for name in ["a.zip", "A.ZIP", "b.textpack", "c.tar", "d.tgz", "e.tar.gz", "f.tbz", "g.tbz2", "h.tar.bz2",
                     "i.txz", "j.tar.xz", "k.tzst", "l.tar.zst", "dir/m.Tar.Gz"] {
            #expect(ArchiveKind(fileName: name) != nil, "\(name)")
        }
        for name in ["a.gz", "zip", "b.zipx", "c.tar.gz.part", "d.xz", "e.7z"] {
            #expect(ArchiveKind(fileName: name) == nil, "\(name)")
        }
        #expect(ArchiveKind(fileName: "x.textpack") == .zip && ArchiveKind(fileName: "x.tzst") == .tar)
        #expect(ArchiveReader.appleDoubleMember(Array("__MACOSX/a/b/._c".utf8)) == Array("a/b/c".utf8))
        #expect(ArchiveReader.appleDoubleMember(Array("a/._".utf8)) == nil)
        #expect(ArchiveReader.appleDoubleMember(Array("a/.b".utf8)) == nil)
    }
}
