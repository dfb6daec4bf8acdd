import Foundation
import Testing
import XDSTestSupport

/// `xds where` and `xds strip` (SPEC §6) run as a user runs them: the built binary on real
/// extended attributes and files in temporary folders, set with setfattr and read back with
/// getfattr (tools independent of ours).
@Suite("where and strip on real attributes", .timeLimit(.minutes(3)))
struct WhereStripCLITests {
    static let quarantine = Array("0083;5fad2a2e;Safari;5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F".utf8)
    static let originURL = Array("https://joe:secret@example.com/f.zip?token=abc#part".utf8)
    static let zoneFile = Array("[ZoneTransfer]\r\nZoneId=3\r\nReferrerUrl=https://example.com/page?q=1\r\nHostUrl=https://dl.example.org/f.zip\r\n".utf8)

    /// A folder with `dl/f.zip`-like download `dl/file.bin`: a quarantine, an xdg origin URL, a
    /// zone file beside it, and `user.mime_type` (not a mark); `dl/plain` has nothing.
    func downloads() async throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        folder.folder("dl")
        let file = folder.file("dl/file.bin")
        folder.file("dl/plain")
        try await folder.setAttribute(file, Self.quarantine, name: "user.com.apple.quarantine")
        try await folder.setAttribute(file, Self.originURL, name: "user.xdg.origin.url")
        try await folder.setAttribute(file, Array("application/octet-stream".utf8), name: "user.mime_type")
        folder.write("dl/file.bin:Zone.Identifier", bytes: Self.zoneFile)
        return folder
    }

    /// Every attribute of every file under the folder, and the names in it: what must not change.
    func state(_ folder: TemporaryFolder) async throws -> String {
        let attributes = try await run("/usr/bin/getfattr", ["-R", "-d", "-m", "-", "-e", "hex", "."], in: folder.path)
        let names = try await sh("find . | sort", in: folder.path)
        return attributes.stdout + names.stdout
    }

    @Test("where FILE: every mark decoded, KIND (STORE) and fields; credentials hidden; status 0")
    func whereText() async throws {
        let folder = try await downloads()
        let result = try await xds("where", "dl/file.bin", in: folder.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout == """
            dl/file.bin
              quarantine (xattr)
                flags:       0083 (download, sandbox)
                time:        2020-11-12T12:27:26Z
                agent:       Safari
                eventID:     5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F
                attribute:   user.com.apple.quarantine
              xdg (xattr)
                url:         https://***@example.com/f.zip?token=abc#part
                attribute:   user.xdg.origin.url
              zone-identifier (zone-file)
                zone:        3 (internet)
                hostURL:     https://dl.example.org/f.zip
                referrerURL: https://example.com/page?q=1
                file:        file.bin:Zone.Identifier

            """)
        #expect(!result.stdout.contains("secret") && !result.stdout.contains("mime"))
    }

    @Test("where --json: JSON Lines with the SPEC's keys; --redact drops query and fragment")
    func whereJSON() async throws {
        let folder = try await downloads()
        for redact in [false, true] {
            let result = try await xds(["where", "--json", "dl/file.bin"] + (redact ? ["--redact"] : []), in: folder.path)
            #expect(result.status == 0, "\(result)")
            let lines = result.stdout.split(separator: "\n")
            try #require(lines.count == 1)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
            #expect(object["file"] as? String == "dl/file.bin")
            let marks = try #require(object["marks"] as? [[String: Any]])
            #expect(marks.map { $0["kind"] as? String } == ["quarantine", "xdg", "zone-identifier"])
            #expect(marks.map { $0["store"] as? String } == ["xattr", "xattr", "zone-file"])
            #expect(Set(marks[0].keys) == ["kind", "store", "name", "flags", "flagNames", "time", "agent", "eventID"])
            #expect(marks[0]["flagNames"] as? [String] == ["download", "sandbox"])
            #expect(marks[0]["time"] as? String == "2020-11-12T12:27:26Z")
            #expect(Set(marks[1].keys) == ["kind", "store", "name", "url"])
            #expect(Set(marks[2].keys) == ["kind", "store", "name", "zone", "zoneName", "hostURL", "referrerURL"])
            #expect(marks[2]["zone"] as? Int == 3)
            #expect(marks[1]["url"] as? String == (redact ? "https://***@example.com/f.zip" : "https://***@example.com/f.zip?token=abc#part"))
            #expect(marks[2]["referrerURL"] as? String == (redact ? "https://example.com/page" : "https://example.com/page?q=1"))
            #expect(!result.stdout.contains("secret"))
        }
        let text = try await xds("where", "--redact", "dl/file.bin", in: folder.path)
        #expect(text.stdout.contains("url:         https://***@example.com/f.zip\n"))
        #expect(!text.stdout.contains("token"))
    }

    @Test("where: a file without a mark is 1 with one line; a missing one 66; the others still shown")
    func whereStatuses() async throws {
        let folder = try await downloads()
        let none = try await xds("where", "dl/plain", in: folder.path)
        #expect(none.status == 1)
        #expect(none.stdout.isEmpty)
        #expect(none.stderr == "xds: dl/plain: no mark of where it came from\n")
        let mixed = try await xds("where", "--json", "dl/plain", "dl/file.bin", "dl/missing", in: folder.path)
        #expect(mixed.status == 66, "\(mixed)")
        #expect(mixed.stdout.hasPrefix(#"{"file":"dl/file.bin","marks":["#))
        #expect(mixed.stderr.contains("xds: dl/missing: "))
    }

    @Test("where: a value that does not decode is hex and error, one warning, status 65 at the end")
    func undecodable() async throws {
        let folder = try await downloads()
        try await folder.setAttribute(folder.path + "/dl/file.bin", [1, 2, 0xff], name: "user.com.apple.lastuseddate#PS")
        let result = try await xds("where", "--json", "dl/file.bin", "dl/plain", in: folder.path)
        #expect(result.status == 65, "\(result)")
        let marks = try #require((try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?["marks"] as? [[String: Any]])
        #expect(marks.count == 4)  // the others are still there
        let bad = try #require(marks.first { $0["kind"] as? String == "last-used-date" })
        #expect(bad["hex"] as? String == "0102ff")
        #expect((bad["error"] as? String)?.isEmpty == false)
        let warnings = result.stderr.split(separator: "\n")
        #expect(warnings.count == 2)
        #expect(warnings.first?.hasPrefix("xds: dl/file.bin: last-used-date (xattr) does not decode: ") == true)
        #expect(warnings.last == "xds: dl/plain: no mark of where it came from")
    }

    @Test("where: control characters in a value or name never reach the terminal raw")
    func escapes() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("odd\u{1b}[2Jname")
        try await folder.setAttribute(file, Array("0001;5fad2a2e;Evil\\x1b[31mAgent\u{7};".utf8), name: "user.com.apple.quarantine")
        for arguments in [["where"], ["where", "--json"]] {
            let result = try await xds(arguments + ["odd\u{1b}[2Jname"], in: folder.path)
            #expect(result.status == 0, "\(result)")
            #expect(!result.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(arguments)")
        }
        let text = try await xds("where", "odd\u{1b}[2Jname", in: folder.path)
        #expect(text.stdout.contains("agent:     Evil\\u{1b}[31mAgent\\u{7}\n"))
    }

    @Test("usage: --summary without -r, an unknown kind, a kind both kept and only: 64")
    func usage() async throws {
        let folder = try await downloads()
        let before = try await state(folder)
        for arguments in [["where", "--summary", "dl"], ["strip", "--only", "nosuch", "dl/file.bin"],
                          ["strip", "--keep", "xdg,", "dl/file.bin"], ["strip", "--only", "xdg", "--keep", "quarantine,xdg", "dl/file.bin"],
                          ["strip", "-o", "clean.zip", "a.zip", "b.zip"], ["strip", "-r", "-o", "clean.zip", "dl"]] {
            let result = try await xds(arguments, in: folder.path)
            #expect(result.status == 64, "\(arguments): \(result)")
        }
        #expect(try await state(folder) == before)
    }

    @Test("strip -n lists FILE: KIND (STORE) per mark and changes nothing")
    func stripDryRun() async throws {
        let folder = try await downloads()
        let before = try await state(folder)
        let result = try await xds("strip", "-n", "dl/file.bin", "dl/plain", in: folder.path)
        #expect(result.status == 1, "\(result)")  // dl/plain has none
        #expect(result.stdout == """
            dl/file.bin: quarantine (xattr)
            dl/file.bin: xdg (xattr)
            dl/file.bin: zone-identifier (zone-file)

            """)
        #expect(result.stderr == "xds: dl/plain: no mark of where it came from\n")
        #expect(try await state(folder) == before)
        let only = try await xds("strip", "-n", "--only", "xdg", "--only", "zone-identifier,macos-provenance", "--keep", "quarantine", "dl/file.bin", in: folder.path)
        #expect(only.status == 0)
        #expect(only.stdout == "dl/file.bin: xdg (xattr)\ndl/file.bin: zone-identifier (zone-file)\n")
        #expect(try await state(folder) == before)
    }

    @Test("strip removes the marks from every store; other attributes stay; --keep keeps a kind")
    func strip() async throws {
        let folder = try await downloads()
        let kept = try await xds("strip", "--keep", "xdg", "dl/file.bin", in: folder.path)
        #expect(kept.status == 0, "\(kept)")
        #expect(kept.stdout.isEmpty && kept.stderr.isEmpty)
        let file = folder.path + "/dl/file.bin"
        #expect(try await folder.attribute(file, name: "user.com.apple.quarantine") == nil)
        #expect(try await folder.attribute(file, name: "user.xdg.origin.url") == Data(Self.originURL))
        #expect(try await folder.attribute(file, name: "user.mime_type") == Data("application/octet-stream".utf8))
        #expect(!FileManager.default.fileExists(atPath: file + ":Zone.Identifier"))
        #expect(try await xds("where", "--json", "dl/file.bin", in: folder.path).stdout.contains(#""kind":"xdg""#))
        let all = try await xds("strip", "dl/file.bin", in: folder.path)
        #expect(all.status == 0, "\(all)")
        #expect(try await xds("where", "dl/file.bin", in: folder.path).status == 1)
        #expect(try await folder.attribute(file, name: "user.mime_type") == Data("application/octet-stream".utf8))
        let again = try await xds("strip", "dl/file.bin", in: folder.path)
        #expect(again.status == 1)
        #expect(again.stderr == "xds: dl/file.bin: no mark of where it came from\n")
    }

    /// A tree: `dl/` as ``downloads()`` makes it, a folder with its own mark, an orphan zone
    /// file (its NAME gone), a Samba stream form and an AppleDouble sidecar whose other entry
    /// (a Finder tag list) must survive.
    func tree() async throws -> TemporaryFolder {
        let folder = try await downloads()
        let sub = folder.folder("dl/sub")
        try await folder.setAttribute(sub, Array("https://example.com/folder".utf8), name: "user.xdg.origin.url")
        folder.write("dl/sub/gone:Zone.Identifier", bytes: Self.zoneFile)
        let samba = folder.file("dl/sub/samba.pdf")
        // Samba writes a ':' inside a stream name as U+F022, and ends the value with a NUL.
        let froms = try await plistlib(#"["https://cdn.example.net/s.pdf", "https://example.com/"]"#)
        try await folder.setAttribute(samba, froms + [0], name: "user.DosStream.com.apple.metadata\u{F022}kMDItemWhereFroms:$DATA")
        let sidecar = folder.file("dl/sub/side.txt")
        try await folder.setAttribute(sidecar, Array("app".utf8), name: "user.x-keep-me")
        let double = appleDoubleBytes(attributes: [("com.apple.quarantine", Self.quarantine),
                                                          ("com.apple.metadata:_kMDItemUserTags", Array("bplist-tags".utf8))])
        folder.write("dl/sub/._side.txt", bytes: double)
        return folder
    }

    @Test("where -r lists every entry with marks, orphans under their own path; --summary counts", arguments: ["1", "3"])
    func whereTree(jobs: String) async throws {
        let folder = try await tree()
        let result = try await xds("where", "-r", "-j", jobs, "--json", "dl", in: folder.path)
        #expect(result.status == 0, "\(result)")
        var files: [String: [String]] = [:]
        for line in result.stdout.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let marks = try #require(object["marks"] as? [[String: Any]])
            files[try #require(object["file"] as? String)] = marks.map { "\($0["kind"]!) (\($0["store"]!))" }
        }
        #expect(files == [
            "dl/file.bin": ["quarantine (xattr)", "xdg (xattr)", "zone-identifier (zone-file)"],
            "dl/sub": ["xdg (xattr)"],
            "dl/sub/gone:Zone.Identifier": ["zone-identifier (zone-file)"],
            "dl/sub/samba.pdf": ["where-froms (samba-stream)"],
            "dl/sub/side.txt": ["quarantine (appledouble)"],
        ])
        let summary = try await xds("where", "-r", "-j", jobs, "--summary", "dl", in: folder.path)
        #expect(summary.status == 0, "\(summary)")
        #expect(summary.stdout == """
            5  files
            2  kind   quarantine
            2  kind   xdg
            2  kind   zone-identifier
            1  kind   where-froms
            3  store  xattr
            2  store  zone-file
            1  store  appledouble
            1  store  samba-stream
            5  host   example.com
            2  host   dl.example.org
            1  host   cdn.example.net
            2  agent  Safari

            """)
        let json = try await xds("where", "-r", "-j", jobs, "--summary", "--json", "dl", in: folder.path)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["files"] as? Int == 5)
        #expect((object["kinds"] as? [String: Int])?["where-froms"] == 1)
        #expect(json.stdout.split(separator: "\n").count == 1)
    }

    @Test("strip -r -n changes nothing; strip -r leaves where -r with nothing; other attributes and entries stay",
          arguments: ["1", "3"])
    func stripTree(jobs: String) async throws {
        let folder = try await tree()
        let before = try await state(folder)
        let dry = try await xds("strip", "-r", "-n", "-j", jobs, "dl", in: folder.path)
        #expect(dry.status == 0, "\(dry)")
        #expect(Set(dry.stdout.split(separator: "\n")) == [
            "dl/file.bin: quarantine (xattr)", "dl/file.bin: xdg (xattr)", "dl/file.bin: zone-identifier (zone-file)",
            "dl/sub: xdg (xattr)", "dl/sub/gone:Zone.Identifier: zone-identifier (zone-file)",
            "dl/sub/samba.pdf: where-froms (samba-stream)", "dl/sub/side.txt: quarantine (appledouble)",
        ])
        #expect(try await state(folder) == before)
        let stripped = try await xds("strip", "-r", "-j", jobs, "dl", in: folder.path)
        #expect(stripped.status == 0, "\(stripped)")
        #expect(stripped.stdout.isEmpty && stripped.stderr.isEmpty)
        let after = try await xds("where", "-r", "dl", in: folder.path)
        #expect(after.status == 1, "\(after)")
        #expect(after.stdout.isEmpty)
        #expect(after.stderr == "xds: dl: no file or folder in it has a mark of where it came from\n")
        // Not marks: kept, byte for byte.
        #expect(try await folder.attribute(folder.path + "/dl/file.bin", name: "user.mime_type") == Data("application/octet-stream".utf8))
        #expect(try await folder.attribute(folder.path + "/dl/sub/side.txt", name: "user.x-keep-me") == Data("app".utf8))
        let names = try await sh("find . | sort", in: folder.path).stdout
        #expect(!names.contains("Zone.Identifier"))
        #expect(names.contains("./dl/sub/._side.txt"))  // the tag entry keeps the sidecar
        let tags = try await python("""
            import sys
            data = open(sys.argv[1], 'rb').read()
            print(b'bplist-tags' in data, b'0083;5fad2a2e' in data)
            """, [folder.path + "/dl/sub/._side.txt"])
        #expect(tags.stdout == "True False\n")
        let again = try await xds("strip", "-r", "dl", in: folder.path)
        #expect(again.status == 1)
    }

    @Test("where ARCHIVE lists members' marks as show names them; strip -r names the archive and leaves it")
    func archives() async throws {
        let folder = try await downloads()
        // GNU tar keeps the attributes as pax SCHILY.xattr records (with Linux's user. prefix).
        let tar = try await run("/bin/tar", ["--xattrs", "--xattrs-include=user.*", "-cf", "dl.tar", "-C", "dl", "file.bin", "plain"],
                          in: folder.path)
        try #require(tar.status == 0, "\(tar)")
        let text = try await xds("where", "dl.tar", in: folder.path)
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout == """
            dl.tar!/file.bin
              quarantine (tar)
                flags:     0083 (download, sandbox)
                time:      2020-11-12T12:27:26Z
                agent:     Safari
                eventID:   5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F
                attribute: user.com.apple.quarantine
              xdg (tar)
                url:       https://***@example.com/f.zip?token=abc#part
                attribute: user.xdg.origin.url

            """)
        let json = try await xds("where", "--json", "--redact", "dl.tar", in: folder.path)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["file"] as? String == "dl.tar!/file.bin")
        #expect(object["archive"] as? String == "dl.tar")
        #expect(object["member"] as? String == "file.bin")
        #expect(json.stdout.contains(#""url":"https://***@example.com/f.zip""#))
        // An archive whose members carry nothing: 1, in words.
        let bare = try await run("/bin/tar", ["-cf", "bare.tar", "-C", "dl", "plain"], in: folder.path)
        try #require(bare.status == 0)
        let none = try await xds("where", "bare.tar", in: folder.path)
        #expect(none.status == 1)
        #expect(none.stderr == "xds: bare.tar: no mark of where it came from, on the archive or any member\n")
        // strip -r: the tree is stripped, the archive named and left as it was.
        try FileManager.default.moveItem(atPath: folder.path + "/dl.tar", toPath: folder.path + "/dl/dl.tar")
        let before = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/dl/dl.tar"))
        let stripped = try await xds("strip", "-r", "dl", in: folder.path)
        #expect(stripped.status == 0, "\(stripped)")
        #expect(stripped.stderr.hasPrefix("xds: dl/dl.tar: 1 member carries marks of where it came from; archives are not rewritten in place"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/dl/dl.tar")) == before)
        let after = try await xds("where", "-r", "--json", "dl", in: folder.path)
        #expect(after.status == 0, "\(after)")
        #expect(after.stdout.split(separator: "\n").count == 1)
        #expect(after.stdout.hasPrefix(#"{"file":"dl/dl.tar!/file.bin","archive":"dl/dl.tar","member":"file.bin","marks":["#))
    }

    @Test("strip ARCHIVE -o CLEAN: a copy without the marks (where CLEAN exits 1), other attributes kept; -o -; never over ARCHIVE")
    func cleanCopy() async throws {
        let folder = try await downloads()
        let tar = try await run("/bin/tar", ["--xattrs", "--xattrs-include=user.*", "-cf", "dl.tar", "-C", "dl", "file.bin", "plain"],
                          in: folder.path)
        try #require(tar.status == 0, "\(tar)")
        let original = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/dl.tar"))
        let clean = try await xds("strip", "dl.tar", "-o", "clean.tar", in: folder.path)
        #expect(clean.status == 0, "\(clean)")
        #expect(clean.stdout.isEmpty && clean.stderr.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/dl.tar")) == original)
        let after = try await xds("where", "clean.tar", in: folder.path)
        #expect(after.status == 1, "\(after)")
        // GNU tar lists what is left: user.mime_type (not a mark), the same members.
        let listed = try await run("/bin/tar", ["--xattrs", "--xattrs-include=*", "-tvvf", "clean.tar"], in: folder.path)
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("user.mime_type") && !listed.stdout.contains("quarantine") && !listed.stdout.contains("xdg"))
        // --only: the kinds asked go, the others stay.
        #expect(try await xds("strip", "--only", "quarantine", "dl.tar", "-o", "some.tar", in: folder.path).status == 0)
        let some = try await xds("where", "--json", "some.tar", in: folder.path)
        #expect(some.stdout.contains(#""kind":"xdg""#) && !some.stdout.contains("quarantine"))
        // To standard output, piped; never over the archive itself (64, nothing changed).
        let piped = try await sh("\"$0\" strip dl.tar -o - | tar -tf -", arguments: [xdsPath], in: folder.path)
        #expect(piped.status == 0 && piped.stdout == "file.bin\nplain\n", "\(piped)")
        let same = try await xds("strip", "dl.tar", "-o", "dl.tar", in: folder.path)
        #expect(same.status == 64, "\(same)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/dl.tar")) == original)
    }

    @Test("output that cannot be written is 74", arguments: [["where", "dl/file.bin"], ["where", "--json", "dl/file.bin"],
                                                             ["strip", "-n", "dl/file.bin"]])
    func fullOutput(arguments: [String]) async throws {
        let folder = try await downloads()
        let before = try await state(folder)
        let result = try await sh("\"$0\" \"$@\" > /dev/full", arguments: [xdsPath] + arguments, in: folder.path)
        #expect(result.status == 74, "\(result)")
        #expect(result.stderr.contains("xds: standard output: "))
        #expect(try await state(folder) == before)
    }
}

/// A name that is not UTF-8 (byte 0xFF) is stripped by its exact bytes: before, `strip -r`
/// found it through a text path that named no file ("vanished during the walk", status 1)
/// and left its marks. Set with Python's `os.setxattr` on a bytes path.
@Suite("strip -r on a name that is not UTF-8")
struct StripNonUTF8NameTests {
    @Test func stripRemovesTheMarksOfANameThatIsNotUTF8() async throws {
        let folder = TemporaryFolder()
        folder.folder("t")
        let made = try await python("""
            import os
            p = b"t/bad\\xffname.txt"
            open(p, "wb").write(b"x")
            os.setxattr(p, b"user.com.apple.quarantine", b"0082;5fad2a2e;Safari;")
            os.setxattr(p, b"user.mime_type", b"text/plain")
            open(p + b":Zone.Identifier", "wb").write(b"[ZoneTransfer]\\r\\nZoneId=3\\r\\n")
            """, in: folder.path)
        #expect(made.status == 0, "\(made)")
        let found = try await xds("where", "-r", "t", in: folder.path)
        #expect(found.status == 0, "\(found)")
        #expect(found.stdout.hasPrefix("t/bad\\x{ff}name.txt\n  quarantine (xattr)\n"), "\(found)")
        #expect(found.stdout.contains("zone-identifier (zone-file)"))
        let listed = try await xds("strip", "-r", "-n", "t", in: folder.path)
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.stdout == "t/bad\\x{ff}name.txt: quarantine (xattr)\nt/bad\\x{ff}name.txt: zone-identifier (zone-file)\n")
        let stripped = try await xds("strip", "-r", "t", in: folder.path)
        #expect(stripped.status == 0, "\(stripped)")
        #expect(stripped.stderr == "")
        let after = try await xds("where", "-r", "t", in: folder.path)
        #expect(after.status == 1, "\(after)")
        // The other attribute stays; the zone file is gone.
        let left = try await python("""
            import os
            print(sorted(os.listxattr(b"t/bad\\xffname.txt")), sorted(os.listdir(b"t")))
            """, in: folder.path)
        #expect(left.stdout == "['user.mime_type'] [b'bad\\xffname.txt']\n", "\(left)")
    }
}

/// `where NAME` and `where -r` agree on zone files: `NAME:Zone.Identifier` exactly, as Explorer
/// writes it. Before, the walk also took `NAME:zone.identifier` (any case), which `where NAME`
/// did not see: `where -r` listed a mark that `where NAME` said was not there.
@Suite("zone files: one spelling for where NAME and where -r")
struct ZoneFileSpellingTests {
    @Test func whereAndWhereRAgree() async throws {
        let folder = TemporaryFolder()
        folder.folder("t")
        folder.file("t/a.txt")
        folder.file("t/b.txt")
        let zone = Array("[ZoneTransfer]\r\nZoneId=3\r\n".utf8)
        folder.write("t/a.txt:zone.identifier", bytes: zone)
        folder.write("t/b.txt:Zone.Identifier", bytes: zone)
        folder.write("t/gone.txt:ZONE.IDENTIFIER", bytes: zone)
        let one = try await xds("where", "t/a.txt", "t/b.txt", in: folder.path)
        #expect(one.status == 1, "\(one)")
        #expect(one.stdout.hasPrefix("t/b.txt\n  zone-identifier (zone-file)\n"), "\(one)")
        #expect(!one.stdout.contains("t/a.txt\n"))
        let walked = try await xds("where", "-r", "--json", "t", in: folder.path)
        #expect(walked.status == 0, "\(walked)")
        let paths = try walked.jsonLines().compactMap { $0["file"] as? String }
        #expect(paths == ["t/b.txt"], "\(walked)")
        // strip -r removes the one it lists and leaves the others, which are no zone files.
        #expect(try await xds("strip", "-r", "t", in: folder.path).status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/t").sorted()
        #expect(names == ["a.txt", "a.txt:zone.identifier", "b.txt", "gone.txt:ZONE.IDENTIFIER"])
    }
}

/// Runs `/bin/sh -c command` with positional arguments (`$0`, `$1`, …).
private func sh(_ command: String, arguments: [String], in folder: String) async throws -> Run {
    try await run("/bin/sh", ["-c", command] + arguments, in: folder)
}
