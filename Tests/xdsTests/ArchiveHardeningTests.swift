import Foundation
import Testing
import XDocSource
import XDocSourceArchive
import XDSTestSupport

/// Builds an archive with scripts/make_test_archive.py from a spec (see the script's doc).
private func make(_ spec: [String: Any]) async throws {
    let json = try JSONSerialization.data(withJSONObject: spec)
    let made = try await run("/usr/bin/env", ["python3", packageRoot + "/scripts/make_test_archive.py"], input: json)
    #expect(made.status == 0, "make_test_archive.py: \(made)")
}

private func value(_ id: String, _ name: String) -> [String: String] { ["identifier": id, "name": name] }

/// Whether `text` holds `bytes` (names compared as bytes: Swift strings compare canonically).
private func containsBytes(_ text: String, _ bytes: [UInt8]) -> Bool {
    Data(text.utf8).range(of: Data(bytes)) != nil
}

/// Issue 16: archives cannot stall a scan, and members are exactly what the archive stores.
@Suite("Archives: bounded work, exact members", .timeLimit(.minutes(3)))
struct ArchiveHardeningTests {
    // MARK: - Decompression bounds

    /// A 780 KB .tar.bz2 whose member is 64 GiB of zeros (before: 208 s of `show -r`).
    @Test func bzip2BombStopsAtTheLimitAndTheWalkGoesOn() async throws {
        let folder = TemporaryFolder()
        let root = folder.path + "/share"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try await make(["out": root + "/bomb.tar.bz2", "format": "tar.bz2", "zeros": 64 << 30, "entries": [
            ["name": "._a", "appledouble": ["value": value("com.example.a", "A")]], ["name": "a", "data": "a"],
        ]])
        try await make(["out": root + "/zz.zip", "entries": [["name": "._b", "appledouble": ["value": value("com.example.b", "B")]]]])
        // The bound is the message (decompression stopped at the limit); how long it takes is
        // Benchmarks/archive_bench.sh's, the time limit only catches a stall.
        let result = try await xds("show", "-r", "--archive-limit", "64M", "share", in: folder.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.errorLines == ["xds: share/bomb.tar.bz2: stopped after decompressing 64 MiB (the archive limit; --archive-limit to raise it)"])
        // Members before the limit are shown, and the walk goes on to the next archive.
        let headings = result.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }
        #expect(headings == ["share/bomb.tar.bz2!/a", "share/zz.zip!/b"])
    }

    /// The default limit is 1 GiB and is named in the line; `remove -r` takes the option too.
    @Test func gzipBombAndTheDefaultLimit() async throws {
        let folder = TemporaryFolder()
        try await make(["out": folder.path + "/big.tgz", "format": "tar.gz", "zeros": 80 << 20])
        let lowered = try await xds("show", "--archive-limit", "16m", "big.tgz", in: folder.path)
        #expect(lowered.status == 65)
        #expect(lowered.stderr == "xds: big.tgz: stopped after decompressing 16 MiB (the archive limit; --archive-limit to raise it)\n")
        // Under the default (1 GiB) the whole archive is read: nothing tagged, status 1.
        let whole = try await xds("show", "big.tgz", in: folder.path)
        #expect(whole.status == 1, "\(whole)")
        // remove -r takes the option (nothing carries a value here: 1, not a usage error).
        #expect(try await xds("remove", "-r", "--archive-limit", "1M", folder.path).status == 1)
        let scanner = try #require(ArchiveScanner(path: folder.path + "/big.tgz"))
        #expect(scanner.limits.maximumDecompressedSize == 1 << 30)
        do {
            _ = try ArchiveScanner(path: folder.path + "/big.tgz", limits: .init(maximumDecompressedSize: 1 << 20))!.scan { _ in .proceed }
            Issue.record("no error")
        } catch {
            #expect(error.kind == .limitReached && error.limit == 1 << 20)
            // The library's words name no command-line flag.
            #expect(error.message == "stopped after decompressing 1 MiB (the archive limit)")
        }
    }

    /// A gzip member whose payload is gzip, recursively (as libarchive's
    /// test_read_filter_gzip_recursive.gz, which loops in 3.6.2 when filters are bid for):
    /// one gzip decoder, chosen by the name, and the result is not a tar.
    @Test func nestedGzipIsDecodedOnce() async throws {
        let folder = TemporaryFolder()
        let made = try await python("""
            import gzip, io, tarfile
            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode="w") as t:
                i = tarfile.TarInfo("x"); i.size = 1; t.addfile(i, io.BytesIO(b"x"))
            data = buf.getvalue()
            for _ in range(40):
                data = gzip.compress(data, mtime=0)
            open("nested.tgz", "wb").write(data)
            open("nested.tar", "wb").write(data)
            """, in: folder.path)
        #expect(made.status == 0, "\(made)")
        let shown: Run? = try await xds("show", "nested.tgz", "nested.tar", in: folder.path)
        #expect(shown?.status == 65)
        #expect(shown?.errorLines == [
            "xds: nested.tgz: not a readable archive (tar): unrecognized archive format",
            "xds: nested.tar: not a readable archive (tar): unrecognized archive format",
        ])
    }

    @Test func archiveLimitValues() async throws {
        let folder = TemporaryFolder()
        try await make(["out": folder.path + "/a.zip", "entries": [["name": "._a", "appledouble": ["value": value("com.example.a", "A")]]]])
        for good in ["512M", "2G", "1g", "4096", "64KiB", "1T"] {
            #expect(try await xds("show", "--archive-limit", good, "a.zip", in: folder.path).status == 0, "\(good)")
        }
        for bad in ["0", "abc", "-1", "1.5G", "G", "99999999999T"] {
            let refused = try await xds("show", "--archive-limit", bad, "a.zip", in: folder.path)
            #expect(refused.status == 64, "\(bad): \(refused)")
        }
        #expect(ArchiveScanner.Limits.parseSize("512M") == 512 << 20)
        #expect(ArchiveScanner.Limits.sizeText(1 << 30) == "1 GiB")
        #expect(ArchiveScanner.Limits.sizeText(1500) == "1500 bytes")
        let help = try await xds("show", "--help")
        #expect(help.stdout.contains("--archive-limit <SIZE>"))
        #expect(try await xds("remove", "--help").stdout.contains("--archive-limit <SIZE>"))
    }

    // MARK: - Zips through the central directory

    /// A big member (deflated, 256 MiB) is skipped by offset, never inflated; a zip with bytes
    /// in front (self-extracting) lists like any other.
    @Test func zipMembersAreSkippedAndSelfExtractingZipsList() async throws {
        let folder = TemporaryFolder()
        let stub = String(repeating: "7f454c46", count: 1000)  // a program in front
        try await make(["out": folder.path + "/sfx.zip", "front_hex": stub, "entries": [
            ["name": "big.bin", "bomb": 256 << 20],
            ["name": "doc.txt", "data": "d"],
            ["name": "__MACOSX/._doc.txt", "appledouble": ["value": value("com.example.sfx", "SFX")]],
        ]])
        let result = try await xds("show", "--json", "sfx.zip", in: folder.path)
        #expect(result.status == 0, "\(result)")
        let lines = try result.jsonLines()
        #expect(lines.map { $0["member"] as? String } == ["doc.txt"])
        #expect(lines.first?["identifier"] as? String == "com.example.sfx")
        let unzip = try await sh("command -v unzip >/dev/null && unzip -Z1 sfx.zip || echo skip", in: folder.path)
        if unzip.stdout != "skip\n" { #expect(unzip.stdout.contains("__MACOSX/._doc.txt")) }
    }

    /// A zip cut inside its central directory, or just before its end record, is refused in words.
    @Test func cutZipsAreRefused() async throws {
        let folder = TemporaryFolder()
        let entries: [[String: Any]] = [["name": "._a", "appledouble": ["value": value("com.example.a", "A")]], ["name": "a", "data": "a"]]
        try await make(["out": folder.path + "/cut.zip", "cut": -25, "entries": entries])
        let cut = try await xds("show", "cut.zip", in: folder.path)
        #expect(cut.status == 65)
        #expect(cut.stdout == "")
        #expect(cut.stderr == "xds: cut.zip: not a readable archive (zip): no end-of-central-directory record (not a zip, or cut short)\n")
    }

    // MARK: - AppleDouble, names, textpacks

    /// Apple's bsdtar writes an empty attribute as offset 0, length 0 (libarchive's
    /// test_compat_mac-2.tar.Z): valid in zips, tars and `._NAME` files on disk alike.
    @Test func emptyAttributeAtOffsetZeroIsValid() async throws {
        let folder = TemporaryFolder()
        let double: [String: Any] = ["value": value("com.example.empty", "Empty"), "empty_attribute": true]
        try await make(["out": folder.path + "/e.zip", "entries": [["name": "__MACOSX/._doc", "appledouble": double]]])
        try await make(["out": folder.path + "/e.tar", "format": "tar", "entries": [["name": "._doc", "appledouble": double]]])
        let shown = try await xds("show", "--json", "e.zip", "e.tar", in: folder.path)
        #expect(shown.status == 0, "\(shown)")
        #expect(try shown.jsonLines().map { $0["identifier"] as? String } == ["com.example.empty", "com.example.empty"])

        // The same bytes as a sidecar on disk.
        let made = try await python("""
            import plistlib, sys
            sys.path.insert(0, sys.argv[1])
            import make_test_archive as m
            value = plistlib.dumps({"identifier": "com.example.empty", "name": "Empty"}, fmt=plistlib.FMT_BINARY)
            open("._doc", "wb").write(m.appledouble(value, True))
            open("doc", "w").write("d")
            """, [packageRoot + "/scripts"], in: folder.path)
        #expect(made.status == 0, "\(made)")
        let disk = try await xds("show", "--json", "doc", in: folder.path)
        #expect(disk.status == 0, "\(disk)")
        #expect(try disk.jsonLines().first?["store"] as? String == "appledouble")
    }

    /// Names in decomposed form (NFD, as macOS writes them) stay as stored: zip with and
    /// without the UTF-8 flag, pax and GNU tar.
    @Test func decomposedNamesStayAsStored() async throws {
        let folder = TemporaryFolder()
        let nfd = "Cafe\u{301}.txt"  // "e" + COMBINING ACUTE ACCENT
        let nfdBytes = Array("Cafe".utf8) + [0xCC, 0x81] + Array(".txt".utf8)
        let composed = Array("Caf".utf8) + [0xC3, 0xA9]
        let double: [String: Any] = ["value": value("com.example.nfd", "NFD")]
        try await make(["out": folder.path + "/flag.zip", "entries": [["name": "._" + nfd, "appledouble": double]]])
        try await make(["out": folder.path + "/noflag.zip", "entries": [["name": "._" + nfd, "appledouble": double, "utf8_flag": false]]])
        try await make(["out": folder.path + "/pax.tar", "format": "tar", "entries": [["name": "._" + nfd, "appledouble": double]]])
        try await make(["out": folder.path + "/gnu.tar", "format": "tar", "tar_format": "gnu", "entries": [["name": "._" + nfd, "appledouble": double]]])
        for archive in ["flag.zip", "noflag.zip", "pax.tar", "gnu.tar"] {
            let shown = try await xds("show", "--json", archive, in: folder.path)
            #expect(shown.status == 0, "\(archive): \(shown)")
            #expect(containsBytes(shown.stdout, Array("\"member\":\"".utf8) + nfdBytes + [UInt8(ascii: "\"")]), "\(archive): \(shown.stdout)")
            #expect(!containsBytes(shown.stdout, composed), "\(archive) was normalised")
            let human = try await xds("show", archive, in: folder.path)
            #expect(containsBytes(human.stdout, Array("store:      \(archive.hasSuffix("zip") ? "zip" : "tar") (._".utf8) + nfdBytes))
        }
    }

    /// A `._NAME` entry that is not AppleDouble: one line naming the archive and the entry,
    /// 65, and the rest is listed.
    @Test func aBadAppleDoubleEntryIsReportedAndTheListingGoesOn() async throws {
        let folder = TemporaryFolder()
        let entries: [[String: Any]] = [
            ["name": "._x", "data": "not AppleDouble at all"],
            ["name": "._y", "appledouble": ["value": value("com.example.y", "Y")]],
        ]
        try await make(["out": folder.path + "/bad.zip", "entries": entries])
        try await make(["out": folder.path + "/bad.tar", "format": "tar", "entries": entries])
        let shown = try await xds("show", "bad.zip", "bad.tar", in: folder.path)
        #expect(shown.status == 65)
        #expect(shown.errorLines == [
            "xds: bad.zip: ._x is a malformed AppleDouble file: truncated: the header needs 26 bytes, the file has 22",
            "xds: bad.tar: ._x is a malformed AppleDouble file: truncated: the header needs 26 bytes, the file has 22",
        ])
        #expect(shown.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") } == ["bad.zip!/y", "bad.tar!/y"])
    }

    /// A `.textpack` whose info.json is over 64 KiB: the warning a `.textbundle` folder gets.
    @Test func bigInfoJSONInATextpackIsAWarning() async throws {
        let folder = TemporaryFolder()
        let big = "{\"type\":\"x\"" + String(repeating: " ", count: 70_000) + "}"
        try await make(["out": folder.path + "/t.textpack", "entries": [
            ["name": "info.json", "data": big],
            ["name": "._text.md", "appledouble": ["value": value("com.example.t", "T")]],
        ]])
        let pack = try await xds("show", "t.textpack", in: folder.path)
        #expect(pack.status == 0, "\(pack)")
        #expect(pack.stderr == "xds: warning: t.textpack: info.json is larger than 64 KiB (ignored)\n")
        #expect(pack.stdout.contains("t.textpack!/text.md"))

        let bundle = folder.path + "/t.textbundle"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try big.write(toFile: bundle + "/info.json", atomically: false, encoding: .utf8)
        #expect(try await xds("set", bundle, "--id", "com.example.t", "--name", "T").status == 0)
        let folderShown = try await xds("show", "t.textbundle", in: folder.path)
        #expect(folderShown.status == 0)
        #expect(folderShown.stderr == "xds: warning: t.textbundle: info.json is larger than 64 KiB (ignored)\n")
    }

    /// The store line of a member whose name is not UTF-8 shows the same escaped bytes as its heading.
    @Test func storeLineShowsTheEntryEscaped() async throws {
        let folder = TemporaryFolder()
        try await make(["out": folder.path + "/odd.zip", "entries": [
            ["name_hex": (Array("._odd".utf8) + [0xFF]).map { String(format: "%02x", $0) }.joined(),
             "appledouble": ["value": value("com.example.odd", "Odd")]],
        ]])
        let shown = try await xds("show", "odd.zip", in: folder.path)
        #expect(shown.status == 0)
        #expect(shown.stdout.contains("odd.zip!/odd\\x{ff}\n"))
        #expect(shown.stdout.contains("  store:      zip (._odd\\x{ff})\n"), "\(shown.stdout)")
    }
}
