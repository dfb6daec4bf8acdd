import Foundation
import Testing
import XDSTestSupport

/// `xds strip --mac-metadata ARCHIVE -o CLEAN` and `xds check` on archives (SPEC §6 "Before
/// publishing"), against the real tools: GNU tar 1.34 is the oracle for tars (`tar -tvf`, `tar
/// -x --xattrs --xattrs-include='*'` quiet on standard error), with bsdtar (libarchive) and
/// getfattr; Info-ZIP's `unzip -t` and Python's zipfile for zips. The tar is written as macOS
/// bsdtar writes it by Tests/Support/mac_pax_tar.py.
@Suite("strip --mac-metadata ARCHIVE -o and check on archives, against GNU tar, bsdtar, unzip", .timeLimit(.minutes(3)))
struct StripMacArchiveTests {
    static let builder = packageRoot + "/Tests/Support/mac_pax_tar.py"

    /// The compressors GNU tar reads (not lz4), by suffix: the command that compresses to
    /// standard output, the one that decompresses. (GNU tar 1.34 does not tell a `.tar.lzma`
    /// by itself: even one it wrote, `tar -tvf` lists and then says "This does not look like a
    /// tar archive", status 2; it is given `--lzma`.)
    static let compressions: [(suffix: String, compress: String, decompress: String)] = [
        ("tar", "cat", "cat"), ("tar.gz", "gzip -c", "gzip -dc"), ("tar.bz2", "bzip2 -c", "bzip2 -dc"),
        ("tar.xz", "xz -c", "xz -dc"), ("tar.zst", "zstd -q -c", "zstd -q -dc"), ("tar.lz", "lzip -c", "lzip -dc"),
        ("tar.lzma", "lzma -c", "lzma -dc"), ("tar.Z", "compress -c", "uncompress -c"),
    ]

    /// The lines `check` prints for the builder's tar named `name`.
    static func findings(_ name: String) -> [String] {
        [
            "rel/: pax-record LIBARCHIVE.creationtime", "rel/: pax-record SCHILY.dev", "rel/: pax-record SCHILY.ino",
            "rel/: pax-record SCHILY.nlink", "rel/._a.txt: sidecar", "rel/a.txt: quarantine (tar)",
            "rel/a.txt: macos-provenance (tar)", "rel/a.txt: apple-attribute com.apple.FinderInfo",
            "rel/a.txt: pax-record LIBARCHIVE.creationtime", "rel/a.txt: pax-record SCHILY.dev",
            "rel/a.txt: pax-record SCHILY.ino", "rel/a.txt: pax-record SCHILY.nlink", "rel/a.txt: pax-record SCHILY.fflags",
            "rel/a.txt: pax-record LIBARCHIVE.xattr.user.keep", "rel/.DS_Store: ds-store",
        ].map { name + "!/" + $0 }
    }

    /// Each member's ustar header block and data (hex), by the builder's `members`.
    static func members(_ tar: String, in folder: String) async throws -> [String] {
        let listed = try await run("/usr/bin/env", ["python3", builder, "members", tar], in: folder)
        #expect(listed.status == 0, "\(listed)")
        return listed.stdout.split(separator: "\n").map(String.init)
    }

    @Test("a tar as macOS bsdtar writes it: GNU tar warns before, is quiet after; user.keep survives; the rest byte-identical",
          arguments: compressions.map(\.suffix))
    func bsdtarPaxAgainstGNUTar(suffix: String) async throws {
        let (_, compress, decompress) = try #require(Self.compressions.first { $0.suffix == suffix })
        let folder = TemporaryFolder()
        let made = try await run("/usr/bin/env", ["python3", Self.builder, "build", "m.tar"], in: folder.path)
        #expect(made.status == 0, "\(made)")
        let archive = "m." + suffix
        if suffix != "tar" { #expect(try await sh("\(compress) m.tar > \(archive)", in: folder.path).status == 0) }

        // Before: GNU tar warns (and exits 0: its standard error is what tells).
        let gnu = suffix == "tar.lzma" ? ["--lzma"] : []
        let before = try await run("/usr/bin/tar", gnu + ["-tvf", archive], in: folder.path)
        #expect(before.stderr.contains("Ignoring unknown extended header keyword 'LIBARCHIVE.xattr.user.keep'"), "\(before)")
        #expect(before.stderr.contains("'SCHILY.fflags'") && before.stderr.contains("'LIBARCHIVE.creationtime'"))

        // check and strip -n list what the copy drops, the same lines.
        let check = try await xds("check", archive, in: folder.path)
        #expect(check.status == 1, "\(check)")
        var lines = check.stdout.split(separator: "\n").map(String.init)
        let last = lines.popLast() ?? ""
        #expect(lines == Self.findings(archive), "\(check)")
        #expect(last.hasSuffix("to remove them: xds strip --mac-metadata -o \(archive).clean -- \(archive) && mv -- \(archive).clean \(archive)"))
        let dry = try await xds("strip", "--mac-metadata", "-n", "-o", "c." + suffix, archive, in: folder.path)
        #expect(dry.status == 0 && dry.stdout == lines.map { $0 + "\n" }.joined(), "\(dry)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/c." + suffix))

        let clean = "c." + suffix
        let strip = try await xds("strip", "--mac-metadata", "-o", clean, archive, in: folder.path)
        #expect(strip.status == 0 && strip.stderr.isEmpty && strip.stdout.isEmpty, "\(strip)")
        // The same compression filter.
        let original = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/" + archive))
        let copy = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/" + clean))
        if suffix != "tar" { #expect(copy.prefix(2) == original.prefix(2)) }

        // After: GNU tar lists and extracts with attributes, quiet; bsdtar extracts.
        let list = try await run("/usr/bin/tar", gnu + ["-tvf", clean], in: folder.path)
        #expect(list.status == 0 && list.stderr.isEmpty, "\(list)")
        #expect(list.stdout.split(separator: "\n").map { String($0.split(separator: " ").last ?? "") }
                == ["rel/", "rel/a.txt", "rel/b.txt", "rel/c.txt"], "\(list)")
        folder.folder("gnu")
        let extract = try await run("/usr/bin/tar", gnu + ["-x", "--xattrs", "--xattrs-include=*", "-f", "../" + clean], in: folder.path + "/gnu")
        #expect(extract.status == 0 && extract.stderr.isEmpty, "\(extract)")
        let keep = try await run("/usr/bin/getfattr", ["--only-values", "-n", "user.keep", "gnu/rel/a.txt"], in: folder.path)
        #expect(keep.stdout == "kept value", "\(keep)")
        let other = try await run("/usr/bin/getfattr", ["--only-values", "-n", "user.other", "gnu/rel/c.txt"], in: folder.path)
        #expect(other.stdout == "other value", "\(other)")
        let all = try await run("/usr/bin/getfattr", ["-R", "-d", "-m", "-", "gnu"], in: folder.path)
        #expect(!all.stdout.contains("apple"), "\(all)")
        folder.folder("bsd")
        let bsdtar = try await run("/usr/bin/bsdtar", ["-xf", "../" + clean], in: folder.path + "/bsd")
        #expect(bsdtar.status == 0, "\(bsdtar)")
        #expect(FileManager.default.contents(atPath: folder.path + "/bsd/rel/a.txt") == Data("hello from a Mac\n".utf8))

        // check on the copy: nothing.
        let again = try await xds("check", clean, in: folder.path)
        #expect(again.status == 0 && again.stdout.isEmpty && again.stderr.isEmpty, "\(again)")

        // Every other member byte-identical: the copy's tar stream against the tar's.
        #expect(try await sh("\(decompress) \(clean) > plain.tar", in: folder.path).status == 0)
        let kept = try await Self.members("m.tar", in: folder.path).filter { !$0.contains("\"rel/._a.txt\"") && !$0.contains("\"rel/.DS_Store\"") }
        #expect(try await Self.members("plain.tar", in: folder.path) == kept)
        let stream = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/plain.tar"))
        #expect(stream.range(of: Data("SCHILY.xattr.user.keep=kept value\n".utf8)) != nil)
        #expect(stream.range(of: Data("LIBARCHIVE".utf8)) == nil && stream.range(of: Data("com.apple".utf8)) == nil)
    }

    @Test("LIBARCHIVE.xattr. records: rewritten URL- and base64-decoded, dropped beside their SCHILY twin or when they do not decode")
    func libarchiveSpellingEdges() async throws {
        let folder = TemporaryFolder()
        #expect(try await run("/usr/bin/env", ["python3", Self.builder, "edges", "e.tar"], in: folder.path).status == 0)
        let check = try await xds("check", "e.tar", in: folder.path)
        #expect(check.stdout.hasPrefix("""
            e.tar!/e.txt: pax-record LIBARCHIVE.xattr.user.twin
            e.tar!/e.txt: pax-record LIBARCHIVE.xattr.user.bad
            e.tar!/e.txt: pax-record LIBARCHIVE.xattr.user.a%3Db
            e.tar!/e.txt: pax-record LIBARCHIVE.xattr.user.sp%20ace
            4 found (4 pax-record); 
            """), "\(check)")
        #expect(try await xds("strip", "--mac-metadata", "-o", "c.tar", "e.tar", in: folder.path).status == 0)
        let records = try await python("import tarfile; print(sorted(tarfile.open('c.tar').getmember('e.txt').pax_headers.items()))",
                                 in: folder.path)
        #expect(records.stdout == "[('SCHILY.xattr.user.sp ace', 'spaced'), ('SCHILY.xattr.user.twin', 'same')]\n", "\(records)")
        let list = try await run("/usr/bin/tar", ["-tvf", "c.tar"], in: folder.path)
        #expect(list.status == 0 && list.stderr.isEmpty, "\(list)")
        // --keep pax-record: the keywords stay (GNU tar warns, as asked).
        #expect(try await xds("strip", "--mac-metadata", "--keep", "pax-record", "-o", "k.tar", "e.tar", in: folder.path).status == 0)
        #expect(try await xds("check", "--allow", "pax-record", "k.tar", in: folder.path).status == 0)
        #expect(try await run("/usr/bin/tar", ["-tvf", "k.tar"], in: folder.path).stderr.contains("LIBARCHIVE.xattr.user.bad"))
    }

    @Test("--keep sidecar: the ._ entry stays, its pax records and the Apple attributes elsewhere still go")
    func keepSidecar() async throws {
        let folder = TemporaryFolder()
        #expect(try await run("/usr/bin/env", ["python3", Self.builder, "build", "m.tar"], in: folder.path).status == 0)
        let check = try await xds("check", "--allow", "sidecar", "m.tar", in: folder.path)
        #expect(check.status == 1 && !check.stdout.contains("sidecar\n"), "\(check)")
        #expect(check.stdout.contains("m.tar!/rel/._a.txt: pax-record LIBARCHIVE.creationtime\n"), "\(check)")
        #expect(check.stdout.contains("--keep sidecar -o m.tar.clean -- m.tar && mv -- m.tar.clean m.tar"), "\(check)")
        let fix = String(check.stdout.split(separator: "\n").last![check.stdout.split(separator: "\n").last!.range(of: "to remove them: ")!.upperBound...])
        let ran = try await run("/bin/sh", ["-c", fix], in: folder.path,
                          environment: ["PATH": (xdsPath as NSString).deletingLastPathComponent + ":/usr/bin:/bin"])
        #expect(ran.status == 0, "\(ran)")
        let list = try await run("/usr/bin/tar", ["-tvf", "m.tar"], in: folder.path)
        #expect(list.stderr.isEmpty && list.stdout.contains("rel/._a.txt"), "\(list)")
        #expect(try await xds("check", "--allow", "sidecar", "m.tar", in: folder.path).status == 0)
    }

    /// A zip as Archive Utility makes it: `__MACOSX/._a.txt` (Finder info only, or with marks),
    /// plus `._b.txt`, `.DS_Store`, `sub/.AppleDouble/x`, `a.txt:Zone.Identifier` and the
    /// members kept.
    static func macZip(in folder: TemporaryFolder, sequestered: [UInt8]) async throws {
        folder.folder("z/__MACOSX/sub")
        folder.folder("z/sub/.AppleDouble")
        folder.file("z/a.txt", "a")
        folder.file("z/sub/k.txt", "kept")
        folder.write("z/__MACOSX/._a.txt", bytes: sequestered)
        folder.write("z/__MACOSX/sub/._k.txt", bytes: appleDoubleBytes(attributes: []))
        folder.write("z/._b.txt", bytes: appleDoubleBytes(attributes: []))
        folder.file("z/.DS_Store", "finder")
        folder.file("z/sub/.AppleDouble/k.txt", "netatalk")
        folder.file("z/a.txt:Zone.Identifier", "[ZoneTransfer]\r\nZoneId=3\r\n")
        let zipped = try await run("/usr/bin/zip", ["-q", "-r", "../r.zip", "a.txt", "sub", "__MACOSX", "._b.txt", ".DS_Store",
                                              "a.txt:Zone.Identifier"],
                             in: folder.path + "/z")
        #expect(zipped.status == 0, "\(zipped)")
    }

    /// Runs the commands of `check`'s last line.
    static func runFix(_ check: Run, in folder: String) async throws -> Run {
        let last = check.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let fix = String(last[last.range(of: "to remove them: ")!.upperBound...])
        return try await run("/bin/sh", ["-c", fix], in: folder,
                       environment: ["PATH": (xdsPath as NSString).deletingLastPathComponent + ":/usr/bin:/bin"])
    }

    @Test("a zip with __MACOSX/ of Finder info only: check fails, its fix line cleans; unzip -t and zipfile read the copy")
    func zipFinderInfoOnly() async throws {
        let folder = TemporaryFolder()
        try await Self.macZip(in: folder, sequestered: appleDoubleBytes(attributes: []))
        let check = try await xds("check", "r.zip", in: folder.path)
        #expect(check.status == 1, "\(check)")
        #expect(check.stdout.split(separator: "\n").dropLast() == [
            "r.zip!/sub/.AppleDouble: appledouble-folder", "r.zip!/__MACOSX: macosx-folder", "r.zip!/._b.txt: sidecar",
            "r.zip!/.DS_Store: ds-store", "r.zip!/a.txt:Zone.Identifier: zone-file",
        ], "\(check)")
        let ran = try await Self.runFix(check, in: folder.path)
        #expect(ran.status == 0 && ran.stderr.isEmpty, "\(ran)")
        let again = try await xds("check", "r.zip", in: folder.path)
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again)")
        let unzip = try await run("/usr/bin/unzip", ["-t", "r.zip"], in: folder.path)
        #expect(unzip.status == 0 && unzip.stdout.contains("No errors detected"), "\(unzip)")
        let names = try await python("""
            import zipfile
            z = zipfile.ZipFile('r.zip')
            assert z.testzip() is None
            print(' '.join(z.namelist()), z.read('sub/k.txt').decode())
            """, in: folder.path)
        #expect(names.stdout == "a.txt sub/ sub/k.txt kept\n", "\(names)")
    }

    @Test("a ._ entry holding a kept mark stays, rebuilt to hold only it, and so does the __MACOSX/ it is in")
    func keptMarkInMacOSX() async throws {
        let folder = TemporaryFolder()
        let quarantine = Array("0083;5fad2a2e;Safari;5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F".utf8)
        try await Self.macZip(in: folder, sequestered: appleDoubleBytes(attributes: [
            ("com.apple.quarantine", quarantine), ("com.apple.provenance", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
            ("com.apple.FinderInfo", [UInt8](repeating: 1, count: 32)),
        ]))
        let check = try await xds("check", "--allow", "macos-provenance", "r.zip", in: folder.path)
        #expect(check.status == 1, "\(check)")
        #expect(check.stdout.contains("r.zip!/a.txt: quarantine (zip)\n"), "\(check)")
        let ran = try await Self.runFix(check, in: folder.path)
        #expect(ran.status == 0, "\(ran)")
        let again = try await xds("check", "--allow", "macos-provenance", "r.zip", in: folder.path)
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again)")
        let names = try await python("import zipfile; print(' '.join(zipfile.ZipFile('r.zip').namelist()))", in: folder.path)
        #expect(names.stdout == "a.txt sub/ sub/k.txt __MACOSX/ __MACOSX/._a.txt\n", "\(names)")
        let kept = try await xds("where", "--json", "r.zip", in: folder.path)
        #expect(kept.stdout.contains("\"kind\":\"macos-provenance\""), "\(kept)")
        #expect(!kept.stdout.contains("quarantine"), "\(kept)")
        // Without the allowance the kept mark is found again.
        #expect(try await xds("check", "r.zip", in: folder.path).status == 1)
    }

    @Test("a tar's ._ entry holding a kept mark is rebuilt to hold only it; its size in the header follows")
    func keptMarkInTar() async throws {
        let folder = TemporaryFolder()
        folder.folder("t")
        folder.file("t/a.txt", "a")
        let quarantine = Array("0083;5fad2a2e;Safari;5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F".utf8)
        folder.write("t/._a.txt", bytes: appleDoubleBytes(attributes: [
            ("com.apple.quarantine", quarantine), ("com.apple.provenance", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
            ("com.apple.lastuseddate#PS", [UInt8](repeating: 7, count: 16)), ("com.apple.metadata:_kMDItemUserTags", [0x62]),
        ], resourceFork: [UInt8](repeating: 5, count: 300)))
        #expect(try await run("/usr/bin/tar", ["--format=pax", "-cf", "t.tar", "t"], in: folder.path).status == 0)
        let whole = try await xds("check", "t.tar", in: folder.path)
        #expect(whole.stdout.hasPrefix("t.tar!/t/._a.txt: sidecar\n1 found (1 sidecar); "), "\(whole)")
        let check = try await xds("check", "--allow", "macos-provenance", "t.tar", in: folder.path)
        #expect(check.stdout.split(separator: "\n").dropLast() == [
            "t.tar!/t/a.txt: quarantine (tar)", "t.tar!/t/a.txt: last-used-date (tar)",
            "t.tar!/t/a.txt: apple-attribute com.apple.metadata:_kMDItemUserTags",
        ], "\(check)")
        #expect(try await Self.runFix(check, in: folder.path).status == 0)
        let again = try await xds("check", "--allow", "macos-provenance", "t.tar", in: folder.path)
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again)")
        let list = try await run("/usr/bin/tar", ["-tvf", "t.tar"], in: folder.path)
        #expect(list.status == 0 && list.stderr.isEmpty && list.stdout.contains("t/._a.txt"), "\(list)")
        let kept = try await xds("where", "--json", "t.tar", in: folder.path)
        #expect(kept.stdout.contains("\"kind\":\"macos-provenance\""), "\(kept)")
        #expect(!kept.stdout.contains("quarantine") && !kept.stdout.contains("last-used-date"), "\(kept)")
        // Rebuilt once: cleaning the clean copy again changes nothing.
        #expect(try await xds("strip", "--mac-metadata", "--keep", "macos-provenance", "-o", "u.tar", "t.tar", in: folder.path).status == 0)
        #expect(FileManager.default.contents(atPath: folder.path + "/u.tar") == FileManager.default.contents(atPath: folder.path + "/t.tar"))
    }
}
