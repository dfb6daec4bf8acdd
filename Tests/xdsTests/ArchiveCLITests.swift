import Foundation
import Testing
import XDocSource
import XDSTestSupport

/// Builds an archive with scripts/make_test_archive.py from a spec (see the script's doc).
private func makeArchive(_ spec: [String: Any]) async throws {
    let json = try JSONSerialization.data(withJSONObject: spec)
    let made = try await run("/usr/bin/env", ["python3", packageRoot + "/scripts/make_test_archive.py"], input: json)
    #expect(made.status == 0, "make_test_archive.py: \(made)")
}

private func value(_ id: String, _ name: String) -> [String: String] { ["identifier": id, "name": name] }

/// Makes a folder (and its parents) under `folder`; returns its path.
@discardableResult
private func makeFolder(_ folder: TemporaryFolder, _ name: String) throws -> String {
    let path = folder.path + "/" + name
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The SHA-256 of a file, to show it is unchanged.
private func digest(_ path: String) async throws -> String {
    try await run("/usr/bin/sha256sum", [path]).stdout
}

/// `xds show ARCHIVE`, `show -r` and `remove -r` over archives, through the built binary.
@Suite("xds show and remove with archives")
struct ArchiveCLITests {
    /// A Finder-style zip: a tagged member in __MACOSX, one beside, one untagged.
    private func finderZip(in folder: TemporaryFolder, name: String = "finder.zip") async throws -> String {
        let zip = folder.path + "/" + name
        try await makeArchive(["out": zip, "entries": [
            ["name": "docs/report.txt", "data": "hello"],
            ["name": "__MACOSX/docs/._report.txt", "appledouble": ["value": ["identifier": "com.example.app", "name": "Example", "path": "docs/report.txt", "rating": 5]]],
            ["name": "notes.md", "data": "x"],
            ["name": "._notes.md", "appledouble": ["value": value("com.example.two", "Two")]],
            ["name": "plain.txt", "data": "no value"],
        ]])
        return zip
    }

    @Test func showsZipMembersHumanAndJSON() async throws {
        let folder = TemporaryFolder()
        let zip = try await finderZip(in: folder)
        let human = try await xds("show", "finder.zip", in: folder.path)
        #expect(human.status == 0, "\(human)")
        #expect(human.stderr == "")
        #expect(human.stdout == """
            finder.zip!/docs/report.txt
              identifier: com.example.app
              name:       Example
              path:       docs/report.txt
              store:      zip (__MACOSX/docs/._report.txt)
              other keys:
                rating: 5

            finder.zip!/notes.md
              identifier: com.example.two
              name:       Two
              store:      zip (._notes.md)

            """)
        let json = try await xds("show", "--json", zip)
        #expect(json.status == 0)
        let lines = try json.jsonLines()
        #expect(lines.count == 2)
        #expect(lines[0]["file"] as? String == zip + "!/docs/report.txt")
        #expect(lines[0]["archive"] as? String == zip)
        #expect(lines[0]["member"] as? String == "docs/report.txt")
        #expect(lines[0]["store"] as? String == "zip")
        #expect(lines[0]["identifier"] as? String == "com.example.app")
        #expect((lines[0]["other"] as? [String: Any])?["rating"] as? Int == 5)
        #expect(lines[1]["member"] as? String == "notes.md")
        // Key order: file, archive, member, then the keys as for any file.
        #expect(json.stdout.hasPrefix("{\"file\":\"\(zip)!/docs/report.txt\",\"archive\":\"\(zip)\",\"member\":\"docs/report.txt\",\"identifier\":"))
    }

    @Test func ownAttributeFirstThenMembersAndStatuses() async throws {
        let folder = TemporaryFolder()
        let zip = try await finderZip(in: folder)
        #expect(try await xds("set", zip, "--id", "com.example.zipper", "--name", "Zipper").status == 0)
        let shown = try await xds("show", "--json", zip)
        let lines = try shown.jsonLines()
        #expect(lines.map { $0["file"] as? String } == [zip, zip + "!/docs/report.txt", zip + "!/notes.md"])
        #expect(lines[0]["store"] as? String == "xattr" && lines[0]["archive"] == nil)

        // Neither the archive nor a member: 1, one line naming the file.
        let empty = folder.path + "/empty.zip"
        try await makeArchive(["out": empty, "entries": [["name": "a.txt", "data": "a"]]])
        let none = try await xds("show", empty)
        #expect(none.status == 1 && none.stdout == "")
        #expect(none.stderr == "xds: \(empty): no x-document-source attribute, and no member of the archive carries one\n")

        // Missing 66, not an archive 65, damaged 65 (members before the damage still shown).
        let missing = try await xds("show", folder.path + "/missing.tgz")
        #expect(missing.status == 66 && missing.stderr.contains("no such file or folder"))
        folder.file("fake.tar.gz", "not gzip")
        let fake = try await xds("show", "fake.tar.gz", in: folder.path)
        #expect(fake.status == 65)
        #expect(fake.stderr == "xds: fake.tar.gz: not a readable archive (tar): not gzip data, as its name says, nor a plain tar\n")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: zip))
        // Cut inside the central directory: the zip is refused in words, never listed as whole.
        let mark = try #require(bytes.range(of: Data("._notes.md".utf8), options: .backwards))
        try bytes.prefix(mark.upperBound).write(to: URL(fileURLWithPath: folder.path + "/cut.zip"))
        let cut = try await xds("show", "cut.zip", in: folder.path)
        #expect(cut.status == 65, "\(cut)")
        #expect(cut.stdout == "")
        #expect(cut.stderr == "xds: cut.zip: not a readable archive (zip): no end-of-central-directory record (not a zip, or cut short)\n")

        // A folder named like an archive is a folder; with several files the worst status wins.
        try makeFolder(folder, "dir.zip")
        let several = try await xds("show", "dir.zip", "finder.zip", "fake.tar.gz", in: folder.path)
        #expect(several.status == 65)
        #expect(several.errorLines.first == "xds: dir.zip: no x-document-source attribute")
    }

    @Test func problemsAreReportedAndTheScanGoesOn() async throws {
        let folder = TemporaryFolder()
        let zip = folder.path + "/hostile.zip"
        try await makeArchive(["out": zip, "entries": [
            ["name": "__MACOSX/._bomb", "bomb": 64 << 20],
            ["name": "__MACOSX/._secret", "appledouble": ["value": value("com.example.s", "S")], "encrypted": true, "method": "stored"],
            ["name": "bad/._x", "appledouble": ["value_hex": "00112233"]],
            ["name": "__MACOSX/../._up", "appledouble": ["value": value("com.example.up", "Up")]],
            ["name": "/etc/._abs", "appledouble": ["value": value("com.example.abs", "Abs")]],
            ["name_hex": (Array("._odd".utf8) + [0xFF, 0x0A, 0x1B]).map { String(format: "%02x", $0) }.joined(),
             "appledouble": ["value": value("com.example.odd", "Odd")]],
        ]])
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let human = try await xds("show", "hostile.zip", in: folder.path)
        #expect(human.status == 65)
        #expect(human.errorLines == [
            "xds: hostile.zip: __MACOSX/._bomb is more than 1048576 bytes: skipped",
            "xds: hostile.zip: __MACOSX/._secret is encrypted: skipped",
            "xds: hostile.zip: malformed x-document-source value of bad/x (in bad/._x): not a property list: neither binary (bplist00) nor XML",
        ])
        let headings = human.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map(String.init)
        #expect(headings == ["hostile.zip!/../up", "hostile.zip!//etc/abs", "hostile.zip!/odd\\x{ff}\\n\\u{1b}"])
        let json = try await xds("show", "--json", "hostile.zip", in: folder.path)
        #expect(json.stdout.contains("\"member\":\"odd\\udcff\\n\\u001b\""))
        // Nothing was written anywhere.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
    }

    /// A tree with a zip, a GNU tar.gz (real attributes archived) and one plain tagged file.
    private func tree(in folder: TemporaryFolder) async throws -> String {
        let root = try makeFolder(folder, "tree")
        try makeFolder(folder, "tree/sub")
        try makeFolder(folder, "src")
        _ = try await finderZip(in: folder, name: "tree/finder.zip")
        try await folder.setAttribute(folder.file("src/a.txt"), DocumentSource(identifier: "com.example.a", name: "A").binaryPropertyList())
        let tar = try await run("/bin/sh", ["-c", "tar --xattrs --xattrs-include='user.*' -czf tree/sub/src.tar.gz src"], in: folder.path)
        #expect(tar.status == 0, "\(tar)")
        folder.file("tree/plain.txt")
        return root
    }

    @Test func showRecursiveListsArchiveMembers() async throws {
        let folder = TemporaryFolder()
        let root = try await tree(in: folder)
        let shown = try await xds("show", "-r", "--json", root)
        #expect(shown.status == 0, "\(shown)")
        let files = try shown.jsonLines().compactMap { $0["file"] as? String }.sorted()
        #expect(files == [root + "/finder.zip!/docs/report.txt", root + "/finder.zip!/notes.md", root + "/sub/src.tar.gz!/src/a.txt"])
        let tarLine = try #require(try shown.jsonLines().first { $0["archive"] as? String == root + "/sub/src.tar.gz" })
        #expect(tarLine["store"] as? String == "tar" && tarLine["member"] as? String == "src/a.txt")
        let human = try await xds("show", "-r", "tree", in: folder.path)
        #expect(human.status == 0)
        #expect(human.stdout.contains("tree/sub/src.tar.gz!/src/a.txt\n  identifier: com.example.a\n  name:       A\n  store:      tar (src/a.txt)\n"))
    }

    @Test func removeRecursiveLeavesArchivesAndSaysSo() async throws {
        let folder = TemporaryFolder()
        let root = try await tree(in: folder)
        let tagged = folder.file("tree/tagged.txt")
        try await folder.setAttribute(tagged, DocumentSource(identifier: "com.example.t", name: "T").binaryPropertyList())
        let zipBefore = try await digest(root + "/finder.zip"), tarBefore = try await digest(root + "/sub/src.tar.gz")
        let dry = try await xds("remove", "-r", "-n", root)
        #expect(dry.status == 0 && dry.stdout == tagged + "\n")
        let removed = try await xds("remove", "-r", root)
        #expect(removed.status == 0, "\(removed)")
        #expect(Set(removed.errorLines) == [
            "xds: \(root)/finder.zip: 2 members carry x-document-source; xds does not rewrite archives",
            "xds: \(root)/sub/src.tar.gz: 1 member carries x-document-source; xds does not rewrite archives",
        ])
        #expect(try await folder.attribute(tagged) == nil)
        let zipAfter = try await digest(root + "/finder.zip"), tarAfter = try await digest(root + "/sub/src.tar.gz")
        #expect(zipAfter == zipBefore && tarAfter == tarBefore)
        // show still lists the members.
        #expect(try await xds("show", root + "/finder.zip").status == 0)
    }

    /// 200 000 entries (20 000 tagged): listed in bounded memory and time.
    @Test func manyEntriesInBoundedMemory() async throws {
        let folder = TemporaryFolder()
        let zip = folder.path + "/many.zip"
        try await makeArchive(["out": zip, "many": ["count": 180_000, "prefix": "d/f", "tagged_every": 9]])
        let timed = try await run("/usr/bin/time", ["-f", "%M", xdsPath, "show", "--json", zip])
        #expect(timed.status == 0)
        #expect(timed.stdout.split(separator: "\n").count == 20_000)
        let peakKiB = Int(timed.errorLines.last ?? "") ?? .max
        #expect(peakKiB < 64 * 1024, "peak RSS \(peakKiB) KiB")
    }
}

@Suite("xds show --no-follow with a link to an archive")
struct ArchiveNoFollowTests {
    @Test func linkToAnArchiveIsNotScannedWithNoFollow() async throws {
        let folder = TemporaryFolder()
        let zip = folder.path + "/a.zip"
        try await makeArchive(["out": zip, "entries": [["name": "._x", "appledouble": ["value": value("com.example.x", "X")]]]])
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link.zip", withDestinationPath: zip)
        let followed = try await xds("show", "link.zip", in: folder.path)
        #expect(followed.status == 0 && followed.stdout.hasPrefix("link.zip!/x\n"))
        let notFollowed = try await xds("show", "--no-follow", "link.zip", in: folder.path)
        #expect(notFollowed.status == 1 && notFollowed.stdout == "")
    }
}
