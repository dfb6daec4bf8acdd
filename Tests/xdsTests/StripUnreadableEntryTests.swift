import Foundation
import Testing
import XDocSource
import XDSTestSupport

/// Issue 31, "clean means clean" (SPEC §6): a `._` entry that `xds strip ARCHIVE -o CLEAN`
/// cannot read — bzip2 (`zip -Z bzip2`), LZMA and Deflate64 (`7z a -tzip -mm=…`), encrypted
/// (`zip -P`), a bad CRC, damaged deflate data (both made with Python's zipfile and a byte
/// changed), over the 64 MiB read (zip and tar) — is not copied: one line on standard error,
/// status 0, and the marks it held are nowhere in the copy. The archive limit is 65 and a
/// missing zlib 74, with no copy written.
@Suite("strip -o: ._ entries that cannot be read are dropped, and said", .timeLimit(.minutes(3)))
struct StripUnreadableEntryTests {
    static let quarantine = "0083;5f000000;Safari;"

    /// `z/doc.txt` and `z/._doc.txt` (a quarantine and an x-document-source value, as macOS
    /// writes a sidecar; `fork` bytes of resource fork after them).
    static func folder(fork: Int = 0) throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/z", withIntermediateDirectories: true)
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: folder.path + "/z/doc.txt"))
        let source = try DocumentSource(identifier: "com.example.editor", name: "Editor", path: "Documents/alice/doc.txt")
            .binaryPropertyList()
        let sidecar = appleDoubleBytes(attributes: [("com.apple.quarantine", Array(quarantine.utf8)),
                                                    ("x-document-source", source)],
                                       resourceFork: [UInt8](repeating: 0, count: fork))
        try Data(sidecar).write(to: URL(fileURLWithPath: folder.path + "/z/._doc.txt"))
        return folder
    }

    @discardableResult
    static func shell(_ command: String, in folder: String) async throws -> Run {
        let result = try await sh(command, in: folder)
        try #require(result.status == 0, "\(command): \(result)")
        return result
    }

    /// Changes bytes of the `._doc.txt` entry of a deflated zip with Python's zipfile offsets:
    /// `crc` flips its CRC in both headers, `data` breaks its deflate stream.
    static let breakScript = #"""
import sys, struct, zipfile
path, out, what = sys.argv[1:4]
data = bytearray(open(path, "rb").read())
info = zipfile.ZipFile(path).getinfo("._doc.txt")
assert info.compress_type == zipfile.ZIP_DEFLATED
at = info.header_offset
if what == "crc":
    bad = struct.pack("<I", info.CRC ^ 0xDEADBEEF)
    data[at + 14:at + 18] = bad
    p = data.find(b"PK\x01\x02")
    while p >= 0:
        n = struct.unpack_from("<H", data, p + 28)[0]
        if data[p + 46:p + 46 + n] == b"._doc.txt":
            data[p + 16:p + 20] = bad
        p = data.find(b"PK\x01\x02", p + 4)
else:
    n, m = struct.unpack_from("<HH", data, at + 26)
    start = at + 30 + n + m
    data[start:start + 4] = b"\xff\xff\xff\xff"
open(out, "wb").write(data)
"""#

    @Test("each entry it cannot read: dropped with one line, status 0, no mark left in the copy",
          arguments: [
              ("bzip2", "compression method 12"), ("lzma", "compression method 14"), ("deflate64", "compression method 9"),
              ("encrypted", "encrypted"), ("crc", "damaged"), ("deflate-damaged", "damaged"),
          ])
    func dropped(made: String, reason: String) async throws {
        let folder = try Self.folder()
        switch made {
        case "bzip2": try await Self.shell("cd z && zip -q -Z bzip2 ../a.zip doc.txt ._doc.txt", in: folder.path)
        case "lzma": try await Self.shell("cd z && 7z a -tzip -mm=LZMA ../a.zip doc.txt ._doc.txt >/dev/null", in: folder.path)
        case "deflate64": try await Self.shell("cd z && 7z a -tzip -mm=Deflate64 ../a.zip doc.txt ._doc.txt >/dev/null", in: folder.path)
        case "encrypted": try await Self.shell("cd z && zip -q -P PASSWORD ../a.zip doc.txt ._doc.txt", in: folder.path)
        default:
            try await Self.shell("cd z && zip -q -Z deflate ../good.zip doc.txt ._doc.txt", in: folder.path)
            let broken = try await run("/usr/bin/env", ["python3", "-c", Self.breakScript, "good.zip", "a.zip",
                                                   made == "crc" ? "crc" : "data"], in: folder.path)
            try #require(broken.status == 0, "\(broken)")
        }
        let result = try await xds("strip", "a.zip", "-o", "clean.zip", in: folder.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "xds: a.zip: ._doc.txt cannot be read (\(reason)): dropped, and anything else it held with it\n")
        #expect(try await Self.shell("unzip -Z1 clean.zip", in: folder.path).stdout == "doc.txt\n")
        let copy = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/clean.zip"))
        #expect(copy.range(of: Data(Self.quarantine.utf8)) == nil && copy.range(of: Data("Documents/alice".utf8)) == nil)
        // The dry run reads it as the copy does, and says so.
        let dry = try await xds("strip", "-n", "a.zip", "-o", "clean.zip", in: folder.path)
        #expect(dry.status == 0, "\(dry)")
        #expect(dry.stdout == "a.zip!/._doc.txt: cannot be read (\(reason)): would be dropped\n")
    }

    @Test("over the 64 MiB read of one ._ entry, in a zip and in a tar.gz: dropped with one line")
    func overTheRead() async throws {
        let folder = try Self.folder(fork: 65 << 20)
        try await Self.shell("cd z && zip -q ../a.zip doc.txt ._doc.txt && tar -czf ../a.tar.gz doc.txt ._doc.txt", in: folder.path)
        for (archive, list) in [("a.zip", "unzip -Z1"), ("a.tar.gz", "tar -tzf")] {
            let result = try await xds("strip", archive, "-o", "clean-" + archive, in: folder.path)
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr == "xds: \(archive): ._doc.txt cannot be read (over 64 MiB): dropped, and anything else it held with it\n")
            #expect(try await Self.shell("\(list) clean-\(archive)", in: folder.path).stdout == "doc.txt\n")
        }
    }

    @Test("the archive limit reached while reading a ._ entry: 65, no copy")
    func archiveLimit() async throws {
        let folder = try Self.folder(fork: 3 << 20)
        try await Self.shell("cd z && zip -q ../a.zip doc.txt ._doc.txt", in: folder.path)
        let result = try await xds("strip", "a.zip", "--archive-limit", "1M", "-o", "clean.zip", in: folder.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.errorLines.count == 1 && result.stderr.contains("--archive-limit to raise it"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/clean.zip"))
    }

    @Test("zlib missing: strip -o, strip -n, where and show of a zip with a ._ entry are 74 with one line; no copy",
          .enabled("needs root, unshare --mount and overlay mounts") { await HiddenLibraries.isSupported })
    func zlibMissing() async throws {
        let folder = try Self.folder()
        try await Self.shell("cd z && zip -q ../a.zip doc.txt ._doc.txt", in: folder.path)
        for arguments in [["strip", "a.zip", "-o", "clean.zip"], ["strip", "-n", "a.zip"], ["where", "a.zip"], ["show", "a.zip"]] {
            let result = try await HiddenLibraries.run(hiding: ["libz.so"], HiddenLibraries.quoted([xdsPath] + arguments), in: folder.path)
            #expect(result.status == 74, "\(arguments): \(result)")
            #expect(result.stderr == "xds: a.zip: zlib is not installed (tried libz.so.1, libz.so)\n", "\(arguments): \(result)")
            #expect(result.stdout.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/clean.zip"))
    }

    @Test("libarchive missing: strip -o and strip -n of a tar.gz are 74 with one line; no copy",
          .enabled("needs root, unshare --mount and overlay mounts") { await HiddenLibraries.isSupported })
    func libarchiveMissing() async throws {
        let folder = try Self.folder()
        try await Self.shell("cd z && tar -czf ../a.tar.gz doc.txt ._doc.txt", in: folder.path)
        for arguments in [["strip", "a.tar.gz", "-o", "clean.tar.gz"], ["strip", "-n", "a.tar.gz"]] {
            let result = try await HiddenLibraries.run(hiding: ["libarchive.so"], HiddenLibraries.quoted([xdsPath] + arguments),
                                                 in: folder.path)
            #expect(result.status == 74, "\(arguments): \(result)")
            #expect(result.stderr == "xds: a.tar.gz: libarchive is not installed (tried libarchive.so.13, libarchive.so)\n",
                    "\(arguments): \(result)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/clean.tar.gz"))
    }

    @Test("-o LINK: the link is replaced by the copy, its target left as it was; a dangling one too")
    func outputLink() async throws {
        let folder = try Self.folder()
        try await Self.shell("cd z && zip -q ../a.zip doc.txt ._doc.txt && cd .. && echo precious > target.zip "
                       + "&& ln -s target.zip link.zip && ln -s nowhere/x.zip dangling.zip", in: folder.path)
        for link in ["link.zip", "dangling.zip"] {
            let result = try await xds("strip", "a.zip", "-o", link, in: folder.path)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(link): \(result)")
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.path + "/" + link)
            #expect(attributes[.type] as? FileAttributeType == .typeRegular, "\(link) is still a link")
            #expect(try await Self.shell("unzip -Z1 \(link)", in: folder.path).stdout == "doc.txt\n")
        }
        #expect(try String(contentsOfFile: folder.path + "/target.zip", encoding: .utf8) == "precious\n")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/nowhere"))
    }
}
