import Foundation
import Testing
import XDSProvenance
import XDSTestSupport

/// The one name table against the names the real writers produce on this system (not names
/// typed from documentation): curl `--xattr` from a loopback server, smbclient through a real
/// smbd with `catia fruit streams_xattr`, ntfs-3g on an NTFS image, GNU tar and bsdtar pax
/// records. The values, as each writer stores them, come back from ``ProvenanceNames/storedValue(_:kind:isSambaStream:)``
/// byte for byte; ``ProvenanceFile`` reads them decoded and strips them (what the writer's
/// reader would then see checked with getfattr, smbclient, ntfs-3g's Windows view).
/// (`xds where` on the same writers: Tests/xdsTests/WhereRealWritersTests.swift.)
@Suite("the name table and ProvenanceFile against the real writers", .serialized, .timeLimit(.minutes(3)))
struct RealWriterTests {
    static let zoneIdentifier = Array("[ZoneTransfer]\r\nZoneId=3\r\nHostUrl=https://example.com/dl/report.pdf\r\n".utf8)
    static let quarantine = Array("0082;5fad2a2e;Safari;".utf8)
    /// The zone identifier above, decoded.
    static let zone = ZoneIdentifier(zone: 3, hostURL: "https://example.com/dl/report.pdf", referrerURL: nil)
    /// The quarantine above, decoded: set by Safari at 2020-11-12 12:27:26 UTC.
    static let safari = Quarantine(flags: "0082", flagBits: 0x82, time: ProvenanceTime(seconds: 0x5fad2a2e), agent: "Safari", eventID: nil)
    static let every = Set(ProvenanceKind.allCases)

    /// The names of `file`'s attributes, as text.
    static func names(_ file: String) async throws -> [String] {
        try await attributes(file).map { String(decoding: $0.name, as: UTF8.self) }
    }

    /// Every attribute of `file` with its value, as getfattr reads them (hex values).
    static func attributes(_ file: String) async throws -> [(name: [UInt8], value: [UInt8])] {
        let dump = try await ProcessRunner.run("/usr/bin/getfattr", ["--absolute-names", "-d", "-m", "-", "-e", "hex", file])
        #expect(dump.status == 0, "\(dump)")
        var found: [(name: [UInt8], value: [UInt8])] = []
        for line in dump.stdoutBytes.split(separator: UInt8(ascii: "\n")) where line.first != UInt8(ascii: "#") {
            guard let equals = line.lastIndex(of: UInt8(ascii: "=")) else { continue }
            let hex = Array(line[(equals + 3)...])  // after "=0x"
            let value = stride(from: 0, to: hex.count - 1, by: 2).map { UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)! }
            found.append((Array(line[..<equals]), value))
        }
        return found
    }

    /// The marks among `file`'s attributes: name, match and the value without the store's NUL.
    static func marks(_ file: String) async throws -> [(name: String, match: ProvenanceNames.Match, value: [UInt8])] {
        try await attributes(file).compactMap { attribute in
            ProvenanceNames.match(attributeName: attribute.name).map { match in
                (String(decoding: attribute.name, as: UTF8.self), match,
                 Array(ProvenanceNames.storedValue(attribute.value, kind: match.kind, isSambaStream: match.isSambaStream)))
            }
        }
    }

    @Test("curl --xattr: origin and referrer make one xdg mark, read and stripped; user.mime_type is no mark and stays",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl is not installed (make setup-test installs it)"))
    func curl() async throws {
        let server = try await TestHTTPServer.start(sharing: "RealWriterTests")
        defer { server.stop() }
        try server.write("report.pdf", "%PDF-1.4\n")
        try server.setRoutes(["headers": ["/report.pdf": ["Content-Type": "application/pdf"]]])  // curl's user.mime_type
        let folder = TemporaryFolder()
        let download = try await ProcessRunner.run("/usr/bin/curl", ["-sS", "-f", "--xattr", "--referer", server.url("/page"),
                                                               "-o", "report.pdf", server.url("/report.pdf?t=1")], in: folder.path)
        #expect(download.status == 0, "\(download)")
        let all = try await Self.attributes(folder.path + "/report.pdf")
        #expect(all.count == 3, "url, referrer, mime type: \(all.map { String(decoding: $0.name, as: UTF8.self) })")
        let marks = try await Self.marks(folder.path + "/report.pdf")
        #expect(marks.map(\.name) == ["user.xdg.origin.url", "user.xdg.referrer.url"], "user.mime_type is not a mark")
        #expect(marks.map(\.match) == [.init(kind: .xdg, field: .url, isSambaStream: false),
                                       .init(kind: .xdg, field: .referrer, isSambaStream: false)])
        #expect(marks.map(\.value) == [Array(server.url("/report.pdf?t=1").utf8), Array(server.url("/page").utf8)])

        let file = ProvenanceFile(path: folder.path + "/report.pdf")
        var origin = XDGOrigin()
        origin.url = server.url("/report.pdf?t=1")
        origin.referrer = server.url("/page")
        #expect(try file.read() == [ProvenanceMark(kind: .xdg, store: .xattr, names: ["user.xdg.origin.url", "user.xdg.referrer.url"],
                                                   content: .xdg(origin))])
        #expect(try file.strip(Self.every, dryRun: false) == [.init(kind: .xdg, store: .xattr, names: ["user.xdg.origin.url", "user.xdg.referrer.url"])])
        #expect(try await Self.names(folder.path + "/report.pdf") == ["user.mime_type"])
    }

    @Test("smbd streams_xattr: Zone.Identifier and a Mac's U+F022 WhereFroms and quarantine are samba-stream marks, NUL dropped, decoded; stripped, the client sees no stream",
          .enabled(if: TestSambaServer.unavailable == nil, "\(TestSambaServer.unavailable ?? "")"))
    func samba() async throws {
        let server = try await TestSambaServer()
        defer { server.stop() }
        let whereFroms = try await ProcessRunner.runOnPath(["python3", "-c", """
            import plistlib, sys
            sys.stdout.buffer.write(plistlib.dumps(['https://example.com/dl/report.pdf'], fmt=plistlib.FMT_BINARY))
            """]).output
        for (name, bytes) in [("report.pdf", Array("%PDF-1.4\n".utf8)), ("zone.ini", Self.zoneIdentifier),
                              ("q.bin", Self.quarantine), ("wf.bin", whereFroms)] {
            try Data(bytes).write(to: URL(fileURLWithPath: server.folder.path + "/" + name))
        }
        let put = try await server.client("put report.pdf report.pdf; put zone.ini report.pdf:Zone.Identifier; "
            + "put q.bin report.pdf:com.apple.quarantine; put wf.bin \"report.pdf:com.apple.metadata\u{F022}kMDItemWhereFroms\"")
        #expect(put.status == 0, "\(put)")
        let marks = try await Self.marks(server.share + "/report.pdf").sorted { $0.match.kind.rawValue < $1.match.kind.rawValue }
        #expect(marks.map(\.match.kind) == [.quarantine, .whereFroms, .zoneIdentifier], "\(marks.map(\.name))")
        #expect(marks.allSatisfy { $0.match.isSambaStream })
        #expect(marks.map(\.value) == [Self.quarantine, whereFroms, Self.zoneIdentifier], "the stored values less Samba's NUL")

        let file = ProvenanceFile(path: server.share + "/report.pdf")
        #expect(try file.read() == [
            ProvenanceMark(kind: .quarantine, store: .sambaStream, names: ["user.DosStream.com.apple.quarantine:$DATA"], content: .quarantine(Self.safari)),
            ProvenanceMark(kind: .whereFroms, store: .sambaStream, names: ["user.DosStream.com.apple.metadata\u{F022}kMDItemWhereFroms:$DATA"],
                           content: .whereFroms(["https://example.com/dl/report.pdf"])),
            ProvenanceMark(kind: .zoneIdentifier, store: .sambaStream, names: ["user.DosStream.Zone.Identifier:$DATA"], content: .zoneIdentifier(Self.zone)),
        ])
        #expect(try file.strip(Self.every, dryRun: false).map(\.kind) == [.quarantine, .whereFroms, .zoneIdentifier])
        #expect(try await Self.names(server.share + "/report.pdf").filter { $0.hasPrefix("user.DosStream.") }.isEmpty)
        let info = try await server.client("allinfo report.pdf")
        #expect(info.status == 0 && info.stdout.contains("stream: [::$DATA], 9 bytes"), "\(info)")
        #expect(!info.stdout.contains("Zone.Identifier") && !info.stdout.contains("com.apple"), "the client sees no stream left: \(info)")
    }

    @Test("ntfs-3g: a Zone.Identifier stream is user.Zone.Identifier, an xattr mark with the raw value, decoded; stripped, the stream is gone",
          .enabled("needs an NTFS image mounted through FUSE (NTFSMount.unavailable says why not)") { await NTFSMount.unavailable == nil })
    func ntfs() async throws {
        let ntfs = try await NTFSMount()
        defer { ntfs.unmount() }
        let file = ntfs.mountPoint + "/report.pdf"
        try Data("%PDF-1.4\n".utf8).write(to: URL(fileURLWithPath: file))
        try await ntfs.folder.setAttribute(file, Self.zoneIdentifier, name: "user.Zone.Identifier")
        let marks = try await Self.marks(file)
        #expect(marks.map(\.match) == [.init(kind: .zoneIdentifier, field: nil, isSambaStream: false)])
        #expect(marks.first?.value == Self.zoneIdentifier)

        let provenance = ProvenanceFile(path: file)
        #expect(try provenance.read() == [ProvenanceMark(kind: .zoneIdentifier, store: .xattr, names: ["user.Zone.Identifier"],
                                                         content: .zoneIdentifier(Self.zone))])
        #expect(try provenance.strip(Self.every, dryRun: true).count == 1)
        #expect(try provenance.strip(Self.every, dryRun: false) == [.init(kind: .zoneIdentifier, store: .xattr, names: ["user.Zone.Identifier"])])
        #expect(try await Self.names(file).isEmpty)
        try await ntfs.remount(options: "ro,streams_interface=windows")
        #expect(!FileManager.default.fileExists(atPath: file + ":Zone.Identifier"), "the stream itself is gone")
        #expect(FileManager.default.contents(atPath: file) == Data("%PDF-1.4\n".utf8))
    }

    @Test("GNU tar and bsdtar pax keywords of user.com.apple.* and xdg attributes match in both spellings; user.mime_type does not",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/bsdtar"), "bsdtar is not installed (apt-get install libarchive-tools)"))
    func tar() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("report.pdf", "%PDF-1.4\n")
        try await folder.setAttribute(file, Self.quarantine, name: "user.com.apple.quarantine")
        try await folder.setAttribute(file, Array("https://example.com/dl/report.pdf".utf8), name: "user.xdg.origin.url")
        try await folder.setAttribute(file, Array("application/pdf".utf8), name: "user.mime_type")
        for (tool, arguments) in [("/usr/bin/tar", ["--xattrs", "-cf", "gnu.tar", "report.pdf"]),
                                  ("/usr/bin/bsdtar", ["-cf", "bsd.tar", "report.pdf"])] {
            let made = try await ProcessRunner.run(tool, arguments, in: folder.path)
            #expect(made.status == 0, "\(made)")
            let archive = arguments[arguments.count - 2]
            let listed = try await ProcessRunner.runOnPath(["python3", "-c", """
                import sys, tarfile
                with tarfile.open(sys.argv[1]) as t:
                    for k in sorted(t.getmember('report.pdf').pax_headers):
                        if '.xattr.' in k: print(k)
                """, archive], in: folder.path)
            let keywords = listed.stdout.split(separator: "\n").map(String.init)
            #expect(keywords.count == (archive == "gnu.tar" ? 3 : 6), "\(archive): \(keywords)")
            for keyword in keywords {
                let match = ProvenanceNames.match(paxKeyword: Array(keyword.utf8))
                switch keyword.components(separatedBy: ".xattr.").last ?? "" {
                case "user.com.apple.quarantine": #expect(match?.kind == .quarantine, "\(keyword)")
                case "user.xdg.origin.url": #expect(match == .init(kind: .xdg, field: .url, isSambaStream: false), "\(keyword)")
                default: #expect(match == nil, "\(keyword)")
                }
            }
        }
    }

    @Test("GNU tar --xattrs-include='*' --format=posix and bsdtar --xattrs --format=pax of Samba streams: every pax keyword is the stream's mark, both spellings one name",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/bsdtar"), "bsdtar is not installed (apt-get install libarchive-tools)"))
    func tarOfSambaStreams() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("report.pdf", "%PDF-1.4\n")
        let streams: [(name: String, kind: ProvenanceKind)] = [
            ("user.DosStream.Zone.Identifier:$DATA", .zoneIdentifier), ("user.DosStream.com.apple.quarantine:$DATA", .quarantine),
            ("user.DosStream.com.apple.metadata\u{F022}kMDItemWhereFroms:$DATA", .whereFroms),
        ]
        for stream in streams { try await folder.setAttribute(file, Self.quarantine + [0], name: stream.name) }
        for (tool, arguments) in [("/usr/bin/tar", ["--xattrs", "--xattrs-include=*", "--format=posix", "-cf", "gnu.tar", "report.pdf"]),
                                  ("/usr/bin/bsdtar", ["--xattrs", "--format=pax", "-cf", "bsd.tar", "report.pdf"])] {
            let made = try await ProcessRunner.run(tool, arguments, in: folder.path)
            #expect(made.status == 0, "\(made)")
            let archive = arguments[arguments.count - 2]
            let listed = try await ProcessRunner.runOnPath(["python3", "-c", """
                import sys, tarfile
                with tarfile.open(sys.argv[1], encoding='utf-8', errors='surrogateescape') as t:
                    for k in sorted(t.getmember('report.pdf').pax_headers):
                        if '.xattr.' in k: sys.stdout.buffer.write(k.encode('utf-8', 'surrogateescape') + b'\\n')
                """, archive], in: folder.path)
            let keywords = listed.stdoutBytes.split(separator: UInt8(ascii: "\n")).map { Array($0) }
            #expect(keywords.count == (archive == "gnu.tar" ? 3 : 6), "\(archive): \(listed)")
            for keyword in keywords {
                let found = ProvenanceNames.paxAttribute(keyword)
                let stream = streams.first { Array($0.name.utf8) == found?.name }
                #expect(found?.match == .init(kind: stream?.kind ?? .xDocumentSource, field: nil, isSambaStream: true),
                        "\(archive): \(String(decoding: keyword, as: UTF8.self))")
            }
        }
    }
}
