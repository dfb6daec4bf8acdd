import Foundation
import Testing
import XDSTestSupport

/// `xds where` and `xds strip` (SPEC §6) against the marks the real writers leave on this
/// system: curl and wget downloading from a loopback server, smbclient writing streams through
/// a real smbd, ntfs-3g's streams on a real NTFS image, GNU tar and bsdtar archiving attributes.
/// Each writer first gets a test of exactly what it writes (read back with getfattr, tarfile,
/// smbclient: independent of xds), so a change in a writer shows up as that, not as a bug in
/// `where`. Where no writer runs here, the bytes are built from their documented layouts:
/// Netatalk's `user.com.apple.…` attributes, AppleDouble `._NAME` sidecars, the
/// `NAME:Zone.Identifier` files Explorer leaves on WSL folders. `osx.` names are not tested:
/// only an HFS+ disk takes them, and this kernel has no `hfsplus` driver (nor Debian 12 an
/// HFS+ FUSE driver), so nothing here can set one.
///
/// What the writers write, checked with getfattr on Debian 12:
/// * curl 7.88.1 `--xattr`: `user.xdg.origin.url` (credentials removed, query and fragment
///   kept), `user.mime_type` (the Content-Type), `user.xdg.referrer.url` only with `--referer`
///   (as given, query kept); no `user.creator`.
/// * wget 1.21.3 `--xattr`: only `user.xdg.origin.url` (credentials removed, query kept), no
///   referrer even with `--referer`.
/// * smbd 4.17, `vfs objects = catia fruit streams_xattr`: `put f doc.txt:Zone.Identifier` is
///   `user.DosStream.Zone.Identifier:$DATA`, the value and one NUL; a name sent with U+F022 for
///   `:` is stored with U+F022 (`…metadata\xEF\x80\xA2kMDItemWhereFroms:$DATA`), and a literal
///   `:` inside the stream name is refused by smbclient.
/// * ntfs-3g 2022.10.3 (`streams_interface=xattr`, the default): the `Zone.Identifier` stream
///   is `user.Zone.Identifier`, raw, no NUL; remounted with `streams_interface=windows` it is
///   the file `doc.txt:Zone.Identifier` with the same bytes.
/// * GNU tar 1.34 `--xattrs`: `SCHILY.xattr.user.com.apple.…` pax records; bsdtar 3.6.2: both
///   `LIBARCHIVE.xattr.user.com.apple.…` (base64 value) and `SCHILY.xattr.user.com.apple.…`.
@Suite("where and strip: the marks real writers leave", .serialized, .timeLimit(.minutes(3)))
struct WhereRealWritersTests {
    // MARK: - The values

    /// A Zone.Identifier as Windows writes it for a browser download: INI, CRLF line ends,
    /// zone 3 (internet); the host URL carries credentials and a signed query.
    static let zoneIdentifier = "[ZoneTransfer]\r\nZoneId=3\r\nReferrerUrl=https://example.com/downloads/\r\n"
        + "HostUrl=https://alice:s3cret@example.com/dl/report.pdf?sig=abc123\r\n"
    /// Safari's quarantine value (exiftool's fixture): flags 0x82, 2020-11-12 12:27:26 UTC.
    static let quarantine = "0082;5fad2a2e;Safari;"
    /// The URLs of the WhereFroms value: the file's, then the page's.
    static let whereFromsURLs = ["https://example.com/dl/report.pdf?sig=abc123", "https://example.com/downloads/"]
    /// The WhereFroms value: a binary plist array of strings, as Safari and Chrome write it.
    static func whereFroms() async throws -> [UInt8] {
        try await plistlib("[" + whereFromsURLs.map { "'\($0)'" }.joined(separator: ", ") + "]")
    }

    /// Samba's name for the WhereFroms stream a Mac sends (U+F022 for `:`).
    static let sambaWhereFroms = "user.DosStream.com.apple.metadata\u{F022}kMDItemWhereFroms:$DATA"

    static func tool(_ path: String, package: String) -> String? {
        FileManager.default.isExecutableFile(atPath: path) ? nil : "\(path) is not installed (apt-get install \(package); make setup-test does)"
    }

    static let curlMissing = tool("/usr/bin/curl", package: "curl")
    static let wgetMissing = tool("/usr/bin/wget", package: "wget")
    static let bsdtarMissing = tool("/usr/bin/bsdtar", package: "libarchive-tools")

    // MARK: - Helpers

    /// The names of every attribute of `file`, sorted, as getfattr lists them.
    static func attributeNames(_ file: String) async throws -> [String] {
        let listing = try await run("/usr/bin/getfattr", ["--absolute-names", "-m", "-", file])
        #expect(listing.status == 0 || listing.stdout.isEmpty, "\(listing)")
        return listing.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init).sorted()
    }

    /// `xds where --json` with `arguments`: the run and its records.
    static func whereJSON(_ arguments: [String], in folder: String) async throws -> (run: Run, records: [[String: Any]]) {
        let result = try await xds(["where", "--json"] + arguments, in: folder)
        return (result, try result.jsonLines())
    }

    /// The marks of a record.
    static func marks(_ record: [String: Any]?) -> [[String: Any]] {
        record?["marks"] as? [[String: Any]] ?? []
    }

    /// The one mark of `kind` in `store` among `marks` (nil if none or more than one).
    static func mark(_ marks: [[String: Any]], _ kind: String, _ store: String) -> [String: Any]? {
        let found = marks.filter { $0["kind"] as? String == kind && $0["store"] as? String == store }
        return found.count == 1 ? found[0] : nil
    }

    /// Checks the three marks a Mac or Windows download leaves, decoded as SPEC §6 says, in `store`.
    static func expectDownloadMarks(_ marks: [[String: Any]], store: String, names: [String: String],
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        let quarantine = mark(marks, "quarantine", store)
        #expect(quarantine?["flags"] as? String == "0082", "\(marks)", sourceLocation: sourceLocation)
        #expect(quarantine?["flagNames"] as? [String] == ["sandbox"], "0x80 has no name, 0x2 is the sandbox bit", sourceLocation: sourceLocation)
        #expect(quarantine?["time"] as? String == "2020-11-12T12:27:26Z", sourceLocation: sourceLocation)
        #expect(quarantine?["agent"] as? String == "Safari", sourceLocation: sourceLocation)
        let froms = mark(marks, "where-froms", store)
        #expect(froms?["urls"] as? [String] == whereFromsURLs, "\(marks)", sourceLocation: sourceLocation)
        if let zoneName = names["zone-identifier"] {
            let zone = mark(marks, "zone-identifier", store)
            #expect(zone?["zone"] as? Int == 3, "\(marks)", sourceLocation: sourceLocation)
            #expect(zone?["zoneName"] as? String == "internet", sourceLocation: sourceLocation)
            #expect(zone?["hostURL"] as? String == "https://***@example.com/dl/report.pdf?sig=abc123",
                    "credentials are never printed", sourceLocation: sourceLocation)
            #expect(zone?["referrerURL"] as? String == "https://example.com/downloads/", sourceLocation: sourceLocation)
            #expect(zone?["name"] as? String == zoneName, sourceLocation: sourceLocation)
        }
        #expect(quarantine?["name"] as? String == names["quarantine"], sourceLocation: sourceLocation)
        #expect(froms?["name"] as? String == names["where-froms"], sourceLocation: sourceLocation)
        #expect(marks.count == names.count, "one mark per kind and store, nothing else: \(marks)", sourceLocation: sourceLocation)
    }

    /// A file downloaded from a loopback server by curl or wget, in a folder of its own.
    struct Download {
        let folder: TemporaryFolder
        let server: TestHTTPServer
        let name: String
        /// The URL as given to the downloader: with credentials, a signed query (and for curl a fragment).
        let url: String
        /// The URL without credentials (what the writers store).
        let stored: String
        /// The same without query and fragment (what `--redact` prints).
        let redacted: String
        /// The referrer given with `--referer`.
        let referrer: String
        var file: String { folder.path + "/" + name }

        /// Serves report.pdf as application/pdf and downloads it with `tool` (curl or wget) `--xattr`.
        init(with tool: String, referrer withReferrer: Bool = true, name: String = "report.pdf", in folder: TemporaryFolder = TemporaryFolder()) async throws {
            self.folder = folder
            server = try await TestHTTPServer.start(sharing: "WhereRealWritersTests")
            try server.write("dl/report.pdf", "%PDF-1.4 not really\n")
            try server.setRoutes(["headers": ["/dl/report.pdf": ["Content-Type": "application/pdf"]]])
            self.name = name
            let base = server.url("/dl/report.pdf")
            let query = "?token=abc123" + (tool == "curl" ? "#part2" : "")
            url = base.replacingOccurrences(of: "http://", with: "http://alice:s3cret@") + query
            stored = base + query
            redacted = base
            referrer = withReferrer ? server.url("/page.html?from=mail") : ""
            let referer = withReferrer ? ["--referer", referrer] : []
            let download = await tool == "curl"
                ? try run("/usr/bin/curl", ["-sS", "-f", "--xattr"] + referer + ["-o", name, url], in: folder.path)
                // --auth-no-challenge: send the credentials without waiting for a 401 (the
                // server asks for none), so the request log shows they were in the URL.
                : try run("/usr/bin/wget", ["-q", "--xattr", "--auth-no-challenge"] + referer + ["-O", name, url], in: folder.path)
            #expect(download.status == 0, "\(tool): \(download)")
            // The credentials really were sent: the writer removed them from what it stored.
            let requests = try await server.requests(to: "/dl/report.pdf")
            #expect(requests.contains { $0.headers["authorization"]?.hasPrefix("Basic ") == true }, "\(requests)")
        }
    }

    // MARK: - curl and wget

    @Test("curl --xattr writes user.xdg.origin.url without credentials, user.mime_type, and the referrer with --referer",
          .enabled(if: curlMissing == nil, "\(curlMissing ?? "")"))
    func curlWrites() async throws {
        let download = try await Download(with: "curl")
        defer { download.server.stop() }
        let file = download.file
        #expect(try await Self.attributeNames(file) == ["user.mime_type", "user.xdg.origin.url", "user.xdg.referrer.url"])
        #expect(try await download.folder.attribute(file, name: "user.xdg.origin.url") == Data(download.stored.utf8),
                "credentials removed, query and fragment kept")
        #expect(try await download.folder.attribute(file, name: "user.xdg.referrer.url") == Data(download.referrer.utf8))
        #expect(try await download.folder.attribute(file, name: "user.mime_type") == Data("application/pdf".utf8))
        let plain = try await Download(with: "curl", referrer: false, name: "plain.pdf")
        defer { plain.server.stop() }
        #expect(try await Self.attributeNames(plain.file) == ["user.mime_type", "user.xdg.origin.url"], "no referrer without --referer")
    }

    @Test("wget --xattr writes only user.xdg.origin.url, without credentials, query kept; no referrer even with --referer",
          .enabled(if: wgetMissing == nil, "\(wgetMissing ?? "")"))
    func wgetWrites() async throws {
        let download = try await Download(with: "wget")
        defer { download.server.stop() }
        #expect(try await Self.attributeNames(download.file) == ["user.xdg.origin.url"])
        #expect(try await download.folder.attribute(download.file, name: "user.xdg.origin.url") == Data(download.stored.utf8))
    }

    @Test("where: curl's download is one xdg (xattr) mark with url and referrer, user.mime_type not shown; --redact drops the query; strip keeps user.mime_type", 
          .enabled(if: curlMissing == nil, "\(curlMissing ?? "")"))
    func whereCurl() async throws {
        let download = try await Download(with: "curl")
        defer { download.server.stop() }
        let folder = download.folder.path, name = download.name

        let human = try await xds("where", name, in: folder)
        #expect(human.status == 0, "\(human)")
        #expect(human.stdout.components(separatedBy: "xdg (xattr)").count == 2, "one xdg mark: \(human.stdout)")
        #expect(human.stdout.contains(download.stored) && human.stdout.contains(download.referrer), "\(human.stdout)")
        #expect(!human.stdout.contains("mime") && !human.stdout.contains("application/pdf"), "user.mime_type is not a mark")
        #expect(!human.stdout.contains("s3cret"))

        let (json, records) = try await Self.whereJSON([name], in: folder)
        #expect(json.status == 0 && records.count == 1, "\(json)")
        #expect(records.first?["file"] as? String == name)
        let marks = Self.marks(records.first)
        #expect(marks.count == 1, "\(marks)")
        let xdg = Self.mark(marks, "xdg", "xattr")
        #expect(xdg?["url"] as? String == download.stored, "\(marks)")
        #expect(xdg?["referrer"] as? String == download.referrer)

        let (redacted, redactedRecords) = try await Self.whereJSON(["--redact", name], in: folder)
        #expect(redacted.status == 0, "\(redacted)")
        let hidden = Self.mark(Self.marks(redactedRecords.first), "xdg", "xattr")
        #expect(hidden?["url"] as? String == download.redacted, "--redact drops ?token=… and #part2: \(redacted.stdout)")
        #expect(hidden?["referrer"] as? String == download.server.url("/page.html"))
        #expect(!redacted.stdout.contains("abc123") && !redacted.stdout.contains("from=mail"))

        let dryRun = try await xds("strip", "-n", name, in: folder)
        #expect(dryRun.status == 0 && dryRun.stdout == "\(name): xdg (xattr)\n", "\(dryRun)")
        #expect(try await Self.attributeNames(download.file).count == 3, "-n changes nothing")

        let strip = try await xds("strip", name, in: folder)
        #expect(strip.status == 0, "\(strip)")
        #expect(try await Self.attributeNames(download.file) == ["user.mime_type"], "the xdg attributes go, user.mime_type stays")
        #expect(try await download.folder.attribute(download.file, name: "user.mime_type") == Data("application/pdf".utf8))
        let after = try await xds("where", name, in: folder)
        #expect(after.status == 1 && after.stdout.isEmpty, "\(after)")
        #expect(try await xds("strip", name, in: folder).status == 1, "nothing left to strip")
    }

    @Test("where: wget's download is one xdg (xattr) mark with url only; strip leaves no attribute", 
          .enabled(if: wgetMissing == nil, "\(wgetMissing ?? "")"))
    func whereWget() async throws {
        let download = try await Download(with: "wget")
        defer { download.server.stop() }
        let folder = download.folder.path, name = download.name
        let (json, records) = try await Self.whereJSON([name], in: folder)
        #expect(json.status == 0, "\(json)")
        let marks = Self.marks(records.first)
        #expect(marks.count == 1, "\(marks)")
        let xdg = Self.mark(marks, "xdg", "xattr")
        #expect(xdg?["url"] as? String == download.stored)
        #expect(xdg?["referrer"] == nil, "wget writes no referrer")
        #expect(xdg?["name"] as? String == "user.xdg.origin.url")
        let redacted = try await Self.whereJSON(["--redact", name], in: folder)
        #expect(Self.mark(Self.marks(redacted.records.first), "xdg", "xattr")?["url"] as? String == download.redacted)

        #expect(try await xds("strip", name, in: folder).status == 0)
        #expect(try await Self.attributeNames(download.file).isEmpty)
        #expect(try await xds("where", name, in: folder).status == 1)
    }

    // MARK: - smbclient through a real smbd

    /// A file on the share with the three streams a download leaves, written by smbclient as
    /// Windows (Zone.Identifier) and a Mac (quarantine, WhereFroms with U+F022 for `:`) send them.
    static func sambaDownload(_ server: TestSambaServer) async throws {
        let local = server.folder.path
        try Data("%PDF-1.4 not really\n".utf8).write(to: URL(fileURLWithPath: local + "/report.pdf"))
        try Data(zoneIdentifier.utf8).write(to: URL(fileURLWithPath: local + "/zone.ini"))
        try Data(quarantine.utf8).write(to: URL(fileURLWithPath: local + "/quarantine.bin"))
        try await Data(try whereFroms()).write(to: URL(fileURLWithPath: local + "/wherefroms.bin"))
        let put = try await server.client("""
            put report.pdf report.pdf; put zone.ini report.pdf:Zone.Identifier; \
            put quarantine.bin report.pdf:com.apple.quarantine; \
            put wherefroms.bin "report.pdf:com.apple.metadata\u{F022}kMDItemWhereFroms"
            """)
        #expect(put.status == 0, "\(put)")
    }

    @Test("smbclient through smbd (catia fruit streams_xattr): streams land as user.DosStream.NAME:$DATA plus one NUL, U+F022 kept for ':'",
          .enabled(if: TestSambaServer.unavailable == nil, "\(TestSambaServer.unavailable ?? "")"))
    func smbclientWrites() async throws {
        let server = try await TestSambaServer()
        defer { server.stop() }
        try await Self.sambaDownload(server)
        let file = server.share + "/report.pdf"
        let streams = try await Self.attributeNames(file).filter { $0.hasPrefix("user.DosStream.") }
        #expect(streams == ["user.DosStream.Zone.Identifier:$DATA", Self.sambaWhereFroms,
                            "user.DosStream.com.apple.quarantine:$DATA"].sorted(), "\(streams)")
        #expect(try await server.folder.attribute(file, name: "user.DosStream.Zone.Identifier:$DATA") == Data(Self.zoneIdentifier.utf8) + [0])
        #expect(try await server.folder.attribute(file, name: "user.DosStream.com.apple.quarantine:$DATA") == Data(Self.quarantine.utf8) + [0])
        #expect(try await server.folder.attribute(file, name: Self.sambaWhereFroms) == Data(try Self.whereFroms()) + [0])
        // A literal ':' inside the stream name never reaches the server.
        let colon = try await server.client(#"put wherefroms.bin "report.pdf:com.apple.metadata:kMDItemWhereFroms""#)
        #expect(colon.stdout.contains("NT_STATUS_") || colon.stderr.contains("NT_STATUS_") || colon.status != 0, "\(colon)")
        #expect(try await Self.attributeNames(file).filter { $0.contains("metadata:") }.isEmpty)
    }

    @Test("where on the smbd's disk: zone-identifier, quarantine and where-froms marks in samba-stream, decoded; strip removes the streams the client sees", 
          .enabled(if: TestSambaServer.unavailable == nil, "\(TestSambaServer.unavailable ?? "")"))
    func whereSamba() async throws {
        let server = try await TestSambaServer()
        defer { server.stop() }
        try await Self.sambaDownload(server)
        let path = "share/report.pdf"
        let (json, records) = try await Self.whereJSON([path], in: server.folder.path)
        #expect(json.status == 0 && records.count == 1, "\(json)")
        #expect(records.first?["file"] as? String == path)
        let marks = Self.marks(records.first)
        Self.expectDownloadMarks(marks, store: "samba-stream", names: [
            "quarantine": "user.DosStream.com.apple.quarantine:$DATA",
            "where-froms": Self.sambaWhereFroms,
            "zone-identifier": "user.DosStream.Zone.Identifier:$DATA",
        ])
        #expect(marks.map { $0["kind"] as? String ?? "" } == ["quarantine", "where-froms", "zone-identifier"],
                "in the table's order")
        #expect(!json.stdout.contains("s3cret"))

        let human = try await xds("where", path, in: server.folder.path)
        #expect(human.status == 0, "\(human)")
        for line in ["quarantine (samba-stream)", "where-froms (samba-stream)", "zone-identifier (samba-stream)"] {
            #expect(human.stdout.contains(line), "\(human.stdout)")
        }
        let redacted = try await Self.whereJSON(["--redact", path], in: server.folder.path)
        let zone = Self.mark(Self.marks(redacted.records.first), "zone-identifier", "samba-stream")
        #expect(zone?["hostURL"] as? String == "https://***@example.com/dl/report.pdf", "\(redacted.run)")
        #expect(!redacted.run.stdout.contains("sig=abc123"))

        let strip = try await xds("strip", path, in: server.folder.path)
        #expect(strip.status == 0, "\(strip)")
        let left = try await Self.attributeNames(server.share + "/report.pdf")
        #expect(left.filter { $0.hasPrefix("user.DosStream.") }.isEmpty, "\(left)")
        #expect(left.contains("user.DOSATTRIB"), "Samba's own attribute stays")
        // The client sees the file with its data stream only, its content unchanged.
        let info = try await server.client("allinfo report.pdf")
        #expect(info.status == 0 && !info.stdout.contains("Zone.Identifier") && !info.stdout.contains("com.apple"), "\(info)")
        #expect(info.stdout.contains("stream: [::$DATA], 20 bytes"), "\(info)")
        #expect(try await xds("where", path, in: server.folder.path).status == 1)
    }

    // MARK: - ntfs-3g

    @Test("ntfs-3g: setfattr user.Zone.Identifier makes the Zone.Identifier stream, raw, as Windows reads it",
          .enabled("needs an NTFS image mounted through FUSE (NTFSMount.unavailable says why not)") { await NTFSMount.unavailable == nil })
    func ntfsWrites() async throws {
        let ntfs = try await NTFSMount()
        defer { ntfs.unmount() }
        let file = ntfs.mountPoint + "/report.pdf"
        try Data("%PDF-1.4 not really\n".utf8).write(to: URL(fileURLWithPath: file))
        try await ntfs.folder.setAttribute(file, Array(Self.zoneIdentifier.utf8), name: "user.Zone.Identifier")
        #expect(try await Self.attributeNames(file) == ["user.Zone.Identifier"])
        #expect(try await ntfs.folder.attribute(file, name: "user.Zone.Identifier") == Data(Self.zoneIdentifier.utf8), "raw, no NUL")
        try await ntfs.remount(options: "ro,streams_interface=windows")
        let stream = try Data(contentsOf: URL(fileURLWithPath: file + ":Zone.Identifier"))
        #expect(stream == Data(Self.zoneIdentifier.utf8), "a real alternate data stream")
        #expect(try FileManager.default.contentsOfDirectory(atPath: ntfs.mountPoint) == ["report.pdf"])
    }

    @Test("where on an ntfs-3g mount: user.Zone.Identifier is a zone-identifier (xattr) mark; strip deletes the stream", 
          .enabled("needs an NTFS image mounted through FUSE (NTFSMount.unavailable says why not)") { await NTFSMount.unavailable == nil })
    func whereNTFS() async throws {
        let ntfs = try await NTFSMount()
        defer { ntfs.unmount() }
        let file = ntfs.mountPoint + "/report.pdf"
        try Data("%PDF-1.4 not really\n".utf8).write(to: URL(fileURLWithPath: file))
        try await ntfs.folder.setAttribute(file, Array(Self.zoneIdentifier.utf8), name: "user.Zone.Identifier")
        let (json, records) = try await Self.whereJSON(["report.pdf"], in: ntfs.mountPoint)
        #expect(json.status == 0, "\(json)")
        let marks = Self.marks(records.first)
        #expect(marks.count == 1, "\(marks)")
        let zone = Self.mark(marks, "zone-identifier", "xattr")
        #expect(zone?["name"] as? String == "user.Zone.Identifier")
        #expect(zone?["zone"] as? Int == 3 && zone?["zoneName"] as? String == "internet")
        #expect(zone?["hostURL"] as? String == "https://***@example.com/dl/report.pdf?sig=abc123")
        #expect(zone?["referrerURL"] as? String == "https://example.com/downloads/")
        let human = try await xds("where", "report.pdf", in: ntfs.mountPoint)
        #expect(human.stdout.contains("zone-identifier (xattr)"), "\(human)")

        let strip = try await xds("strip", "report.pdf", in: ntfs.mountPoint)
        #expect(strip.status == 0, "\(strip)")
        #expect(try await Self.attributeNames(file).isEmpty)
        try await ntfs.remount(options: "ro,streams_interface=windows")
        #expect(!FileManager.default.fileExists(atPath: file + ":Zone.Identifier"), "the stream is gone")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("%PDF-1.4 not really\n".utf8))
    }

    // MARK: - GNU tar and bsdtar

    /// report.pdf with Netatalk-style `user.com.apple.…` attributes (what Linux can carry), a
    /// freedesktop origin and a MIME type, archived by GNU tar `--xattrs` and by bsdtar, plain
    /// and gzip-compressed. Returns the archives' names.
    static func archives(in folder: TemporaryFolder) async throws -> [String] {
        let source = folder.folder("source")
        let file = folder.file("source/report.pdf", "%PDF-1.4 not really\n")
        try await folder.setAttribute(file, Array(quarantine.utf8), name: "user.com.apple.quarantine")
        try await folder.setAttribute(file, try whereFroms(), name: "user.com.apple.metadata:kMDItemWhereFroms")
        try await folder.setAttribute(file, Array("https://example.com/dl/report.pdf".utf8), name: "user.xdg.origin.url")
        try await folder.setAttribute(file, Array("application/pdf".utf8), name: "user.mime_type")
        var made: [String] = []
        for (name, tool, arguments) in [("gnu.tar", "/usr/bin/tar", ["--xattrs", "-cf"]), ("gnu.tar.gz", "/usr/bin/tar", ["--xattrs", "-czf"]),
                                        ("bsd.tar", "/usr/bin/bsdtar", ["-cf"]), ("bsd.tar.gz", "/usr/bin/bsdtar", ["-czf"])] {
            let archive = try await run(tool, arguments + [folder.path + "/" + name, "-C", source, "report.pdf"])
            #expect(archive.status == 0, "\(name): \(archive)")
            made.append(name)
        }
        return made
    }

    /// The pax keywords of the member report.pdf, read with Python's tarfile.
    static func paxKeywords(_ archive: String, in folder: String) async throws -> [String] {
        let read = try await python("""
            import sys, tarfile
            with tarfile.open(sys.argv[1]) as t:
                for k in sorted(t.getmember('report.pdf').pax_headers): print(k)
            """, [archive], in: folder)
        #expect(read.status == 0, "\(read)")
        return read.stdout.split(separator: "\n").map(String.init)
    }

    @Test("GNU tar --xattrs writes SCHILY.xattr.user.com.apple.… records; bsdtar writes them in both spellings",
          .enabled(if: bsdtarMissing == nil, "\(bsdtarMissing ?? "")"))
    func tarWrites() async throws {
        let folder = TemporaryFolder()
        let names = ["user.com.apple.metadata:kMDItemWhereFroms", "user.com.apple.quarantine", "user.mime_type", "user.xdg.origin.url"]
        for archive in try await Self.archives(in: folder) {
            let keywords = try await Self.paxKeywords(archive, in: folder.path).filter { $0.contains(".xattr.") }
            let expected = archive.hasPrefix("gnu")
                ? names.map { "SCHILY.xattr." + $0 }
                : names.map { "LIBARCHIVE.xattr." + $0 } + names.map { "SCHILY.xattr." + $0 }
            #expect(keywords == expected.sorted(), "\(archive): \(keywords)")
        }
    }

    @Test("where ARCHIVE: GNU tar's and bsdtar's members show quarantine, where-froms and xdg marks in store tar, one per kind", 
          .enabled(if: bsdtarMissing == nil, "\(bsdtarMissing ?? "")"))
    func whereTar() async throws {
        let folder = TemporaryFolder()
        for archive in try await Self.archives(in: folder) {
            let (json, records) = try await Self.whereJSON([archive], in: folder.path)
            #expect(json.status == 0 && records.count == 1, "\(archive): \(json)")
            let record = records.first
            #expect(record?["file"] as? String == archive + "!/report.pdf", "\(archive): \(json.stdout)")
            #expect(record?["archive"] as? String == archive && record?["member"] as? String == "report.pdf")
            let marks = Self.marks(record)
            #expect(marks.map { $0["kind"] as? String ?? "" } == ["quarantine", "where-froms", "xdg"],
                    "one per kind (bsdtar's two spellings are one mark), user.mime_type not shown: \(archive): \(marks)")
            #expect(Self.mark(marks, "quarantine", "tar")?["agent"] as? String == "Safari", "\(archive)")
            #expect(Self.mark(marks, "quarantine", "tar")?["time"] as? String == "2020-11-12T12:27:26Z")
            #expect(Self.mark(marks, "where-froms", "tar")?["urls"] as? [String] == Self.whereFromsURLs, "\(archive)")
            #expect(Self.mark(marks, "xdg", "tar")?["url"] as? String == "https://example.com/dl/report.pdf", "\(archive)")
            let human = try await xds("where", archive, in: folder.path)
            #expect(human.status == 0 && human.stdout.contains("quarantine (tar)"), "\(archive): \(human)")
        }
    }

    // MARK: - Where no writer runs here: Netatalk, AppleDouble, WSL's zone files

    @Test("where: Netatalk-style user.com.apple.* attributes are quarantine and where-froms (xattr) marks; strip keeps Finder tags")
    func whereNetatalk() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("report.pdf", "%PDF-1.4 not really\n")
        try await folder.setAttribute(file, Array(Self.quarantine.utf8), name: "user.com.apple.quarantine")
        try await folder.setAttribute(file, try Self.whereFroms(), name: "user.com.apple.metadata:kMDItemWhereFroms")
        let tags = try await plistlib("['Red\\n6']")
        try await folder.setAttribute(file, tags, name: "user.com.apple.metadata:_kMDItemUserTags")
        let (json, records) = try await Self.whereJSON(["report.pdf"], in: folder.path)
        #expect(json.status == 0, "\(json)")
        Self.expectDownloadMarks(Self.marks(records.first), store: "xattr", names: [
            "quarantine": "user.com.apple.quarantine",
            "where-froms": "user.com.apple.metadata:kMDItemWhereFroms",
        ])
        #expect(try await xds("strip", "report.pdf", in: folder.path).status == 0)
        #expect(try await Self.attributeNames(file) == ["user.com.apple.metadata:_kMDItemUserTags"])
        #expect(try await folder.attribute(file, name: "user.com.apple.metadata:_kMDItemUserTags") == Data(tags))
    }

    @Test("where: an AppleDouble ._NAME with quarantine and WhereFroms gives appledouble marks; strip deletes a sidecar left empty and keeps one with tags")
    func whereAppleDouble() async throws {
        let folder = TemporaryFolder()
        let marks: [(String, [UInt8])] = await [("com.apple.quarantine", Array(Self.quarantine.utf8)),
                                          ("com.apple.metadata:kMDItemWhereFroms", try Self.whereFroms())]
        folder.file("report.pdf", "%PDF-1.4 not really\n")
        folder.write("._report.pdf", bytes: appleDoubleBytes(attributes: marks))
        let tags = try await plistlib("['Red\\n6']")
        folder.file("tagged.pdf", "%PDF-1.4 not really\n")
        folder.write("._tagged.pdf", bytes: appleDoubleBytes(attributes: marks + [("com.apple.metadata:_kMDItemUserTags", tags)]))

        let (json, records) = try await Self.whereJSON(["report.pdf"], in: folder.path)
        #expect(json.status == 0, "\(json)")
        Self.expectDownloadMarks(Self.marks(records.first), store: "appledouble", names: [
            "quarantine": "com.apple.quarantine",
            "where-froms": "com.apple.metadata:kMDItemWhereFroms",
        ])
        let human = try await xds("where", "report.pdf", in: folder.path)
        #expect(human.stdout.contains("quarantine (appledouble)") && human.stdout.contains("where-froms (appledouble)"), "\(human)")

        let dryRun = try await xds("strip", "-n", "report.pdf", "tagged.pdf", in: folder.path)
        #expect(dryRun.status == 0, "\(dryRun)")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/._report.pdf"), "-n changes nothing")
        let strip = try await xds("strip", "report.pdf", "tagged.pdf", in: folder.path)
        #expect(strip.status == 0, "\(strip)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/._report.pdf"), "nothing else was in it")
        let kept = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/._tagged.pdf"))
        #expect(kept.range(of: Data("_kMDItemUserTags".utf8)) != nil && kept.range(of: Data(tags)) != nil, "the tags stay")
        #expect(kept.range(of: Data("com.apple.quarantine".utf8)) == nil && kept.range(of: Data("kMDItemWhereFroms".utf8)) == nil)
        let after = try await xds("where", "report.pdf", "tagged.pdf", in: folder.path)
        #expect(after.status == 1 && after.stdout.isEmpty, "\(after)")
        #expect(try await folder.attribute(folder.path + "/report.pdf", name: "user.com.apple.quarantine") == nil, "no attribute appears")
    }

    @Test("where: a NAME:Zone.Identifier file beside NAME (as WSL leaves) is a zone-identifier (zone-file) mark; strip deletes that file only")
    func whereZoneFile() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("report.pdf", "%PDF-1.4 not really\n")
        let zoneFile = folder.file("report.pdf:Zone.Identifier", Self.zoneIdentifier)
        let (json, records) = try await Self.whereJSON(["report.pdf"], in: folder.path)
        #expect(json.status == 0, "\(json)")
        #expect(records.first?["file"] as? String == "report.pdf")
        let marks = Self.marks(records.first)
        #expect(marks.count == 1, "\(marks)")
        let zone = Self.mark(marks, "zone-identifier", "zone-file")
        #expect(zone?["name"] as? String == "report.pdf:Zone.Identifier", "\(marks)")
        #expect(zone?["zone"] as? Int == 3 && zone?["hostURL"] as? String == "https://***@example.com/dl/report.pdf?sig=abc123")
        let human = try await xds("where", "report.pdf", in: folder.path)
        #expect(human.stdout.contains("zone-identifier (zone-file)") && !human.stdout.contains("s3cret"), "\(human)")

        #expect(try await xds("strip", "report.pdf", in: folder.path).status == 0)
        #expect(!FileManager.default.fileExists(atPath: zoneFile))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("%PDF-1.4 not really\n".utf8))
        #expect(try await xds("where", "report.pdf", in: folder.path).status == 1)
    }

    // MARK: - All of them in one tree

    @Test("where -r over a tree of every writer's marks lists each file once (an orphan zone file under its own path); strip -r -n changes nothing; strip -r leaves where -r with nothing, other attributes kept", 
          .enabled(if: curlMissing == nil && wgetMissing == nil, "\(curlMissing ?? wgetMissing ?? "")"))
    func whereAndStripTree() async throws {
        let folder = TemporaryFolder()
        let tree = folder.folder("tree")
        let curl = try await Download(with: "curl", name: "tree/curl.pdf", in: folder)
        defer { curl.server.stop() }
        let wget = try await Download(with: "wget", name: "tree/wget.pdf", in: folder)
        defer { wget.server.stop() }
        folder.folder("tree/sub")
        let netatalk = folder.file("tree/sub/netatalk.pdf", "%PDF-1.4 not really\n")
        try await folder.setAttribute(netatalk, Array(Self.quarantine.utf8), name: "user.com.apple.quarantine")
        try await folder.setAttribute(netatalk, try Self.whereFroms(), name: "user.com.apple.metadata:kMDItemWhereFroms")
        try await folder.setAttribute(netatalk, Array("Red".utf8), name: "user.xdg.tags")
        folder.file("tree/sub/sidecar.pdf", "%PDF-1.4 not really\n")
        folder.write("tree/sub/._sidecar.pdf", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", Array(Self.quarantine.utf8))]))
        folder.file("tree/sub/wsl.pdf", "%PDF-1.4 not really\n")
        folder.file("tree/sub/wsl.pdf:Zone.Identifier", Self.zoneIdentifier)
        folder.file("tree/sub/gone.pdf:Zone.Identifier", Self.zoneIdentifier)
        folder.file("tree/sub/plain.pdf", "%PDF-1.4 not really\n")
        try await folder.setAttribute(tree + "/sub/plain.pdf", Array("application/pdf".utf8), name: "user.mime_type")

        let (json, records) = try await Self.whereJSON(["-r", "tree"], in: folder.path)
        #expect(json.status == 0, "\(json)")
        let files = records.compactMap { $0["file"] as? String }.sorted()
        #expect(files == ["tree/curl.pdf", "tree/sub/gone.pdf:Zone.Identifier", "tree/sub/netatalk.pdf", "tree/sub/sidecar.pdf",
                          "tree/sub/wsl.pdf", "tree/wget.pdf"], "\(json.stdout)")
        let kinds = records.flatMap { Self.marks($0).map { "\($0["kind"] as? String ?? "")(\($0["store"] as? String ?? ""))" } }.sorted()
        #expect(kinds == ["quarantine(appledouble)", "quarantine(xattr)", "where-froms(xattr)", "xdg(xattr)", "xdg(xattr)",
                          "zone-identifier(zone-file)", "zone-identifier(zone-file)"], "\(kinds)")

        var before: [[String]] = []
        for name in ["curl.pdf", "wget.pdf", "sub/netatalk.pdf", "sub/plain.pdf"] { before.append(try await Self.attributeNames(tree + "/" + name)) }
        let dryRun = try await xds("strip", "-r", "-n", "tree", in: folder.path)
        #expect(dryRun.status == 0 && dryRun.stdout.split(separator: "\n").count == 7, "one line per mark: \(dryRun)")
        var afterDryRun: [[String]] = []
        for name in ["curl.pdf", "wget.pdf", "sub/netatalk.pdf", "sub/plain.pdf"] { afterDryRun.append(try await Self.attributeNames(tree + "/" + name)) }
        #expect(afterDryRun == before)
        #expect(FileManager.default.fileExists(atPath: tree + "/sub/._sidecar.pdf") && FileManager.default.fileExists(atPath: tree + "/sub/gone.pdf:Zone.Identifier"))

        let strip = try await xds("strip", "-r", "tree", in: folder.path)
        #expect(strip.status == 0, "\(strip)")
        let after = try await xds("where", "-r", "tree", in: folder.path)
        #expect(after.status == 1 && after.stdout.isEmpty, "nothing left: \(after)")
        #expect(try await Self.attributeNames(tree + "/curl.pdf") == ["user.mime_type"])
        #expect(try await Self.attributeNames(tree + "/wget.pdf").isEmpty)
        #expect(try await Self.attributeNames(tree + "/sub/netatalk.pdf") == ["user.xdg.tags"], "not a mark: kept")
        #expect(try await Self.attributeNames(tree + "/sub/plain.pdf") == ["user.mime_type"])
        let left = try FileManager.default.contentsOfDirectory(atPath: tree + "/sub").sorted()
        #expect(left == ["netatalk.pdf", "plain.pdf", "sidecar.pdf", "wsl.pdf"], "sidecar and zone files gone, no temporary file: \(left)")
    }
}
