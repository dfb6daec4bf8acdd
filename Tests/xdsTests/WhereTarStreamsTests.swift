import Foundation
import Testing
import XDSTestSupport

/// Issue 31 (H2 and the smaller decoding points), on archives the real writers make: a file
/// carrying Samba `streams_xattr` streams (`user.DosStream.NAME:$DATA`, one trailing NUL, U+F022
/// for a `:` in NAME), set with setfattr and archived as a share is backed up — GNU tar 1.34
/// `--xattrs --xattrs-include='*' --format=posix` (`SCHILY.xattr.NAME`) and bsdtar 3.6.2
/// `--xattrs --format=pax` (`LIBARCHIVE.xattr.NAME` URL-encoded and base64, and
/// `SCHILY.xattr.NAME`, NAME URL-encoded too: libarchive's archive_write_set_format_pax.c).
/// Archives with two spellings that disagree, or a `LIBARCHIVE.xattr` value that is not base64,
/// are bsdtar's archive with one pax value overwritten in place by bytes of the same length.
@Suite("where and strip on Samba streams and both pax spellings in real tars", .timeLimit(.minutes(3)))
struct WhereTarStreamsTests {
    static let zone = Array("[ZoneTransfer]\r\nZoneId=3\r\nHostUrl=https://alice:s3cret@dl.example.com/r.pdf?sig=XYZ\r\n".utf8)
    static let quarantine = Array("0082;5fad2a2e;Safari;".utf8)
    static let chrome = Array("0082;5fad2a2e;Chrome;".utf8)
    static let whereFromsName = "user.DosStream.com.apple.metadata\u{F022}kMDItemWhereFroms:$DATA"
    static let gnuTar = "/usr/bin/tar"
    static let bsdtar = "/usr/bin/bsdtar"
    static let bsdtarMissing: String? = FileManager.default.isExecutableFile(atPath: bsdtar)
        ? nil : "bsdtar is not installed (apt-get install libarchive-tools)"

    /// `report.pdf` with the three streams Samba keeps for a Mac or Windows download (each
    /// value with Samba's one trailing NUL) and `user.mime_type`, archived as `gnu.tar` and
    /// `bsd.tar` (and `bsd.tar.gz`).
    static func streamArchives(_ folder: TemporaryFolder) async throws -> [String] {
        let source = folder.folder("share")
        let file = folder.file("share/report.pdf", "%PDF-1.4 not really\n")
        let whereFroms = try await plistlib("['https://bob:hunter2@dl.example.com/r.pdf?sig=XYZ', 'https://example.com/page']")
        try await folder.setAttribute(file, zone + [0], name: "user.DosStream.Zone.Identifier:$DATA")
        try await folder.setAttribute(file, quarantine + [0], name: "user.DosStream.com.apple.quarantine:$DATA")
        try await folder.setAttribute(file, whereFroms + [0], name: whereFromsName)
        try await folder.setAttribute(file, Array("application/pdf".utf8), name: "user.mime_type")
        var made: [String] = []
        for (name, tool, arguments) in [("gnu.tar", gnuTar, ["--xattrs", "--xattrs-include=*", "--format=posix", "-cf"]),
                                        ("bsd.tar", bsdtar, ["--xattrs", "--format=pax", "-cf"]),
                                        ("bsd.tar.gz", bsdtar, ["--xattrs", "--format=pax", "-czf"])] {
            let made_ = try await run(tool, arguments + [folder.path + "/" + name, "-C", source, "report.pdf"])
            #expect(made_.status == 0, "\(name): \(made_)")
            made.append(name)
        }
        return made
    }

    /// The `.xattr.` pax keywords of report.pdf in `archive` (Python's tarfile), sorted.
    static func xattrKeywords(_ archive: String, in folder: String) async throws -> [String] {
        let read = try await python("""
            import sys, tarfile
            with tarfile.open(sys.argv[1]) as t:
                for k in sorted(t.getmember('report.pdf').pax_headers):
                    if '.xattr.' in k: print(k)
            """, [archive], in: folder)
        #expect(read.status == 0, "\(read)")
        return read.stdout.split(separator: "\n").map(String.init)
    }

    /// Overwrites the first `old` in the file with `new` (same length: the pax record lengths
    /// and the header checksum stay right).
    static func overwrite(_ path: String, _ old: [UInt8], with new: [UInt8]) throws {
        precondition(old.count == new.count)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let at = try #require((0...(bytes.count - old.count)).first { bytes[$0..<($0 + old.count)].elementsEqual(old) })
        bytes.replaceSubrange(at..<(at + old.count), with: new)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func marks(_ run: Run) throws -> [[String: Any]] {
        try run.jsonLines().first?["marks"] as? [[String: Any]] ?? []
    }

    @Test("GNU tar and bsdtar: Samba streams are zone-identifier, quarantine and where-froms (tar) marks, NUL dropped, name as found; strip -o drops every spelling")
    func sambaStreamsInTars() async throws {
        try #require(Self.bsdtarMissing == nil, "\(Self.bsdtarMissing ?? "")")
        let folder = TemporaryFolder()
        for archive in try await Self.streamArchives(folder) where !archive.hasSuffix(".gz") {
            let keywords = try await Self.xattrKeywords(archive, in: folder.path)
            #expect(keywords.count == (archive == "gnu.tar" ? 4 : 8), "\(archive): \(keywords)")
        }
        for archive in ["gnu.tar", "bsd.tar", "bsd.tar.gz"] {
            let json = try await xds("where", "--json", archive, in: folder.path)
            #expect(json.status == 0, "\(archive): \(json)")
            let marks = try Self.marks(json)
            #expect(marks.map { "\($0["kind"] ?? "") (\($0["store"] ?? ""))" }
                    == ["quarantine (tar)", "where-froms (tar)", "zone-identifier (tar)"], "\(archive): \(json.stdout)")
            #expect(marks.map { $0["name"] as? String ?? "" }
                    == ["user.DosStream.com.apple.quarantine:$DATA", Self.whereFromsName, "user.DosStream.Zone.Identifier:$DATA"],
                    "names as found, U+F022 kept in JSON: \(archive)")
            #expect(marks.first?["agent"] as? String == "Safari" && marks.first?["flags"] as? String == "0082", "no NUL in the agent: \(archive)")
            #expect(marks.dropFirst().first?["urls"] as? [String] == ["https://***@dl.example.com/r.pdf?sig=XYZ", "https://example.com/page"])
            #expect(marks.last?["zone"] as? Int == 3 && marks.last?["hostURL"] as? String == "https://***@dl.example.com/r.pdf?sig=XYZ")
            #expect(!json.stdout.contains("s3cret") && !json.stdout.contains("hunter2"))

            let text = try await xds("where", archive, in: folder.path)
            #expect(text.status == 0 && text.stdout.contains("zone-identifier (tar)"), "\(archive): \(text)")
            #expect(text.stdout.contains("user.DosStream.com.apple.metadata\\u{f022}kMDItemWhereFroms:$DATA\n"),
                    "U+F022 printed visibly in text: \(text.stdout)")

            let dryRun = try await xds("strip", "-n", archive, in: folder.path)
            #expect(dryRun.stdout == ["quarantine", "where-froms", "zone-identifier"].map { "\(archive)!/report.pdf: \($0) (tar)\n" }.joined(),
                    "strip -n lists what strip -o drops: \(dryRun)")

            let clean = "clean-" + archive
            let strip = try await xds("strip", archive, "-o", clean, in: folder.path)
            #expect(strip.status == 0 && strip.stderr.isEmpty, "\(archive): \(strip)")
            #expect(try await Self.xattrKeywords(clean, in: folder.path).allSatisfy { $0.hasSuffix(".user.mime_type") },
                    "only user.mime_type is left: \(archive)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/" + clean))
            #expect(bytes.range(of: Data("s3cret".utf8)) == nil || archive.hasSuffix(".gz"), "no credentials left: \(archive)")
            let again = try await xds("where", clean, in: folder.path)
            #expect(again.status == 1, "the copy is clean: \(archive): \(again)")
        }
    }

    @Test("bsdtar's two spellings with different values are two marks, each named by its pax keyword; with the same value one")
    func twoSpellings() async throws {
        try #require(Self.bsdtarMissing == nil, "\(Self.bsdtarMissing ?? "")")
        let folder = TemporaryFolder()
        let file = folder.file("report.pdf", "%PDF-1.4 not really\n")
        try await folder.setAttribute(file, Self.quarantine, name: "user.com.apple.quarantine")
        try await folder.setAttribute(file, Array("https://example.com/a".utf8), name: "user.xdg.origin.url")
        let made = try await run(Self.bsdtar, ["--xattrs", "--format=pax", "-cf", "two.tar", "report.pdf"], in: folder.path)
        #expect(made.status == 0, "\(made)")
        let same = try await Self.marks(try xds("where", "--json", "two.tar", in: folder.path))
        #expect(same.map { $0["name"] as? String ?? "" } == ["user.com.apple.quarantine", "user.xdg.origin.url"], "\(same)")

        // The LIBARCHIVE.xattr value says Chrome; the SCHILY.xattr one still says Safari.
        let base64 = Array(Data(Self.quarantine).base64EncodedString().replacingOccurrences(of: "=", with: "").utf8)
        let other = Array(Data(Self.chrome).base64EncodedString().replacingOccurrences(of: "=", with: "").utf8)
        try Self.overwrite(folder.path + "/two.tar", base64, with: other)
        let json = try await xds("where", "--json", "two.tar", in: folder.path)
        #expect(json.status == 0 && json.stderr.isEmpty, "\(json)")
        let marks = try Self.marks(json)
        #expect(marks.map { "\($0["kind"] ?? "") \($0["name"] ?? "") \($0["agent"] ?? "")" } == [
            "quarantine LIBARCHIVE.xattr.user.com.apple.quarantine Chrome",
            "quarantine SCHILY.xattr.user.com.apple.quarantine Safari",
            "xdg user.xdg.origin.url ",
        ], "\(json.stdout)")
        let text = try await xds("where", "two.tar", in: folder.path)
        #expect(text.stdout.components(separatedBy: "quarantine (tar)").count == 3, "\(text)")
        // The same through a decoder (the records are read again from the decompressed stream).
        let gzip = try await run("/bin/gzip", ["-k", "-n", "two.tar"], in: folder.path)
        #expect(gzip.status == 0, "\(gzip)")
        let gzipped = try await Self.marks(try xds("where", "--json", "two.tar.gz", in: folder.path))
        #expect(gzipped.map { $0["name"] as? String ?? "" } == marks.map { $0["name"] as? String ?? "" }, "\(gzipped)")
        let strip = try await xds("strip", "two.tar", "-o", "clean.tar", in: folder.path)
        #expect(strip.status == 0, "\(strip)")
        #expect(try await Self.xattrKeywords("clean.tar", in: folder.path).isEmpty)
    }

    @Test("a LIBARCHIVE.xattr value that is not base64 is an undecodable mark (hex as stored, not valid base64), a warning and 65; the others still shown")
    func invalidBase64() async throws {
        try #require(Self.bsdtarMissing == nil, "\(Self.bsdtarMissing ?? "")")
        let folder = TemporaryFolder()
        let file = folder.file("report.pdf", "%PDF-1.4 not really\n")
        try await folder.setAttribute(file, Self.quarantine, name: "user.com.apple.quarantine")
        try await folder.setAttribute(file, Array("https://example.com/a".utf8), name: "user.xdg.origin.url")
        let made = try await run(Self.bsdtar, ["--xattrs", "--format=pax", "-cf", "bad.tar", "report.pdf"], in: folder.path)
        #expect(made.status == 0, "\(made)")
        let base64 = Array(Data(Self.quarantine).base64EncodedString().replacingOccurrences(of: "=", with: "").utf8)
        var broken = base64
        broken.replaceSubrange(4..<8, with: Array("*!?*".utf8))  // libarchive skips these and decodes the rest
        try Self.overwrite(folder.path + "/bad.tar", base64, with: broken)

        let json = try await xds("where", "--json", "bad.tar", in: folder.path)
        #expect(json.status == 65, "\(json)")
        #expect(json.stderr.split(separator: "\n").count == 1 && json.stderr.contains("quarantine"), "one warning: \(json.stderr)")
        let marks = try Self.marks(json)
        #expect(marks.map { "\($0["kind"] ?? "") \($0["name"] ?? "")" } == [
            "quarantine LIBARCHIVE.xattr.user.com.apple.quarantine",
            "quarantine SCHILY.xattr.user.com.apple.quarantine",
            "xdg user.xdg.origin.url",
        ], "\(json.stdout)")
        #expect(marks.first?["hex"] as? String == broken.map { String(format: "%02x", $0) }.joined(), "the value as stored")
        #expect(marks.first?["error"] as? String == "not valid base64")
        #expect(marks.dropFirst().first?["agent"] as? String == "Safari")
        #expect(marks.last?["url"] as? String == "https://example.com/a")
        let xz = try await run("/usr/bin/xz", ["-k", "bad.tar"], in: folder.path)
        #expect(xz.status == 0, "\(xz)")
        let compressed = try await xds("where", "--json", "bad.tar.xz", in: folder.path)
        let compressedMarks = try Self.marks(compressed)
        #expect(compressed.status == 65 && compressedMarks.first?["error"] as? String == "not valid base64", "\(compressed)")
    }

    @Test("user.xdg.origin.email.from and .sender both present: emailFrom and emailSender, in text and JSON")
    func emailSender() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("mail.eml")
        try await folder.setAttribute(file, Array("joe@example.com".utf8), name: "user.xdg.origin.email.from")
        try await folder.setAttribute(file, Array("list@example.com".utf8), name: "user.xdg.origin.email.sender")
        let json = try await xds("where", "--json", "mail.eml", in: folder.path)
        #expect(json.status == 0, "\(json)")
        let mark = try Self.marks(json).first
        #expect(mark?["emailFrom"] as? String == "joe@example.com", "\(json.stdout)")
        #expect(mark?["emailSender"] as? String == "list@example.com", "\(json.stdout)")
        #expect(mark?["name"] as? String == "user.xdg.origin.email.from, user.xdg.origin.email.sender")
        let text = try await xds("where", "mail.eml", in: folder.path)
        #expect(text.stdout == """
            mail.eml
              xdg (xattr)
                emailFrom:   joe@example.com
                emailSender: list@example.com
                attribute:   user.xdg.origin.email.from, user.xdg.origin.email.sender

            """, "\(text)")
    }

    @Test("U+F022 in a Samba stream name is printed \\u{f022} in text; JSON keeps the character")
    func privateUseColon() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("report.pdf")
        let whereFroms = try await plistlib("['https://example.com/r.pdf']")
        try await folder.setAttribute(file, whereFroms + [0], name: Self.whereFromsName)
        let text = try await xds("where", "report.pdf", in: folder.path)
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.contains("attribute: user.DosStream.com.apple.metadata\\u{f022}kMDItemWhereFroms:$DATA\n"), "\(text.stdout)")
        let json = try await xds("where", "--json", "report.pdf", in: folder.path)
        #expect(try Self.marks(json).first?["name"] as? String == Self.whereFromsName, "\(json.stdout)")
    }
}
