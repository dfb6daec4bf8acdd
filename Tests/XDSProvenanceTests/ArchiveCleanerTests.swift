import Foundation
import Testing
import XDSTestSupport
import XDocSource
import XDocSourceArchive
@testable import XDSProvenance

/// Clean copies (`xds strip ARCHIVE -o CLEAN`, SPEC §6): archives made by zip, Python's
/// zipfile and tarfile, GNU tar and bsdtar from a folder whose files carry real extended
/// attributes and AppleDouble `._` files; each copy is checked with `unzip -t`, `bsdtar -t`,
/// Python's zipfile/tarfile, the bytes of every other member before and after, and the bytes
/// of the copy for any mark left.
@Suite("ArchiveCleaner: clean copies of zips and tars", .timeLimit(.minutes(3)))
struct ArchiveCleanerTests {
    static let quarantine = Array("0081;5f000000;Safari;".utf8)
    /// A Finder tag list (not a mark: kept).
    static let tags: [UInt8] = Array("bplist00\u{a1}\u{01}_\u{10}\u{0f}Important\n6".utf8)

    /// A folder `t` with two files, their `._` files (`._report.txt`: quarantine only;
    /// `._notes.md`: quarantine, WhereFroms and Finder tags), and, when `xattrs`, extended
    /// attributes: quarantine and xdg on the files, a MIME type (not a mark) on notes.md.
    static func makeTree(in folder: String, appleDouble: Bool = true, xattrs: Bool = false) async throws {
        try FileManager.default.createDirectory(atPath: folder + "/t/docs", withIntermediateDirectories: true)
        try Data("hello report\n".utf8).write(to: URL(fileURLWithPath: folder + "/t/docs/report.txt"))
        try Data(String(repeating: "notes, compressible notes\n", count: 200).utf8).write(to: URL(fileURLWithPath: folder + "/t/notes.md"))
        if appleDouble {
            let onlyMarks = appleDoubleBytes(attributes: [("com.apple.quarantine", quarantine)])
            let mixed = appleDoubleBytes(attributes: [
                ("com.apple.quarantine", quarantine),
                ("com.apple.metadata:_kMDItemUserTags", tags),
                ("com.apple.metadata:kMDItemWhereFroms", Array("bplist00https://example.com/".utf8)),
            ])
            try Data(onlyMarks).write(to: URL(fileURLWithPath: folder + "/t/docs/._report.txt"))
            try Data(mixed).write(to: URL(fileURLWithPath: folder + "/t/._notes.md"))
        }
        if xattrs {
            try await shell("setfattr -n user.com.apple.quarantine -v '0081;5f000000;Safari;' t/docs/report.txt", in: folder)
            try await shell("setfattr -n user.xdg.origin.url -v 'https://example.com/notes' t/notes.md", in: folder)
            try await shell("setfattr -n user.mime_type -v text/plain t/notes.md", in: folder)
            try await shell("setfattr -n user.xdg.origin.url -v 'https://example.com/t' t", in: folder)
        }
    }

    /// Moves `t/**/._X` to `__MACOSX/t/**/._X`, as Finder's zips hold them.
    static func sequester(in folder: String) async throws {
        try await shell("mkdir -p __MACOSX/t/docs && mv t/docs/._report.txt __MACOSX/t/docs/ && mv t/._notes.md __MACOSX/t/", in: folder)
    }

    @discardableResult
    static func shell(_ command: String, in folder: String) async throws -> Run {
        let run = try await ProcessRunner.run("/bin/sh", ["-c", command], in: folder)
        guard run.status == 0 else { throw CleanTestFailure(description: "\(command): \(run)") }
        return run
    }

    /// What Python's zipfile or tarfile sees of an archive (a tar decompressed first).
    static func describe(_ path: String, tar: Bool) async throws -> [String: Any] {
        let run = try await ProcessRunner.runOnPath(["python3", "-c", describeScript, path, tar ? "tar" : "zip"])
        guard run.status == 0, let object = try JSONSerialization.jsonObject(with: run.stdoutBytes) as? [String: Any] else {
            throw CleanTestFailure(description: "describe \(path): \(run)")
        }
        return object
    }

    /// Prints JSON: per member its CRC, method, flags, the SHA-256 of its raw bytes (zip:
    /// local header and data; tar: its own header block and data), of its contents, its pax
    /// records, and which mark names its contents hold; for the whole file, which mark names
    /// its bytes hold (a tar's: decompressed) and what is in front of the first member.
    static let describeScript = #"""
import sys, json, hashlib, io, struct, tarfile, zipfile
path, kind = sys.argv[1], sys.argv[2]
MARKS = [b"com.apple.quarantine", b"kMDItemWhereFroms", b"xdg.origin", b"com.apple.provenance"]
def sha(b): return hashlib.sha256(b).hexdigest()
data = open(path, "rb").read()
out = {"marks": [m.decode() for m in MARKS if m in data]}
members = {}
if kind == "zip":
    z = zipfile.ZipFile(path)
    out["test"] = z.testzip()
    out["comment"] = z.comment.hex()
    infos = z.infolist()
    out["front"] = sha(data[:min([i.header_offset for i in infos] or [0])])
    for i in infos:
        n, m = struct.unpack("<HH", data[i.header_offset + 26:i.header_offset + 30])
        end = i.header_offset + 30 + n + m + i.compress_size
        content = z.read(i)
        members[i.filename] = {"crc": i.CRC, "method": i.compress_type, "flags": i.flag_bits,
            "raw": sha(data[i.header_offset:end]), "data": sha(content),
            "marks": [m.decode() for m in MARKS if m in content]}
    out["names"] = z.namelist()
else:
    t = tarfile.open(fileobj=io.BytesIO(data))
    for i in t.getmembers():
        content = t.extractfile(i).read() if i.isfile() else b""
        # A sparse member's size is its real size, not what is stored: its header only.
        raw = data[i.offset_data - 512:i.offset_data] if i.issparse() else data[i.offset_data - 512:i.offset_data + i.size]
        members[i.name] = {"raw": sha(raw), "data": sha(content),
            "pax": i.pax_headers, "marks": [m.decode() for m in MARKS if m in content]}
    out["names"] = t.getnames()
out["members"] = members
print(json.dumps(out))
"""#

    static func members(_ description: [String: Any]) -> [String: [String: Any]] {
        description["members"] as? [String: [String: Any]] ?? [:]
    }

    static func names(_ description: [String: Any]) -> [String] { description["names"] as? [String] ?? [] }

    /// Asserts that `clean` has `original`'s members but `dropped`, each byte-exact but
    /// `rewritten` (whose contents are AppleDouble without marks, `kept` attributes kept), and
    /// that no mark name is left anywhere in its bytes.
    static func expectClean(original: [String: Any], clean: [String: Any], dropped: Set<String>,
                            rewritten: [String: [String]] = [:], paxMarksRemoved: Bool = false,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        let before = members(original), after = members(clean)
        #expect(names(clean) == names(original).filter { !dropped.contains($0) }, sourceLocation: sourceLocation)
        for (name, member) in before where !dropped.contains(name) {
            guard let copied = after[name] else {
                Issue.record("\(name) is missing from the copy", sourceLocation: sourceLocation)
                continue
            }
            if rewritten[name] != nil {
                #expect(copied["marks"] as? [String] == [], "\(name) still holds marks", sourceLocation: sourceLocation)
                #expect(copied["method"] as? Int == member["method"] as? Int, sourceLocation: sourceLocation)
            } else if paxMarksRemoved, let pax = member["pax"] as? [String: String], !pax.isEmpty {
                // The member's own header and data are the same; its pax records less the marks.
                #expect(copied["raw"] as? String == member["raw"] as? String, "\(name)", sourceLocation: sourceLocation)
                let expected = pax.filter { ProvenanceNames.match(paxKeyword: Array($0.key.utf8)) == nil }
                #expect(copied["pax"] as? [String: String] == expected, "\(name)", sourceLocation: sourceLocation)
            } else {
                for key in ["raw", "data", "crc", "method", "flags"] where member[key] != nil {
                    #expect("\(copied[key]!)" == "\(member[key]!)", "\(name): \(key)", sourceLocation: sourceLocation)
                }
                #expect(copied["pax"] as? [String: String] == member["pax"] as? [String: String], "\(name): pax",
                        sourceLocation: sourceLocation)
            }
        }
        #expect(clean["marks"] as? [String] == [], "marks left in the copy", sourceLocation: sourceLocation)
    }

    /// The attribute names of the AppleDouble member `name` of the zip at `path`.
    static func zipAppleDoubleNames(_ path: String, _ name: String) async throws -> [String] {
        let run = try await ProcessRunner.runOnPath(["unzip", "-p", path, name])
        return try AppleDouble(bytes: run.output).attributes.map(\.name)
    }

    // MARK: - Zips

    @Test("zip, deflated and stored, with a comment: __MACOSX entries of marks only dropped, mixed ones rewritten",
          arguments: ["-r", "-0 -r"])
    func zipFromInfoZIP(options: String) async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path)
        try await Self.sequester(in: tmp.path)
        try await Self.shell("echo 'release 1.0' | zip -q -z \(options) a.zip t __MACOSX", in: tmp.path)
        let report = try ArchiveCleaner(archive: tmp.path + "/a.zip")!.write(to: tmp.path + "/clean.zip")
        #expect(report.droppedEntries == 2)  // __MACOSX/t/docs/._report.txt and the folder __MACOSX/t/docs/
        #expect(report.rewrittenEntries == 1)
        #expect(report.droppedAttributes == 3)
        try await Self.shell("unzip -tq clean.zip && bsdtar -tf clean.zip >/dev/null", in: tmp.path)
        let original = try await Self.describe(tmp.path + "/a.zip", tar: false)
        let clean = try await Self.describe(tmp.path + "/clean.zip", tar: false)
        Self.expectClean(original: original, clean: clean,
                         dropped: ["__MACOSX/t/docs/._report.txt", "__MACOSX/t/docs/"],
                         rewritten: ["__MACOSX/t/._notes.md": ["com.apple.metadata:_kMDItemUserTags"]])
        #expect(clean["comment"] as? String == original["comment"] as? String)
        #expect((clean["comment"] as? String)?.isEmpty == false)
        #expect(try await Self.zipAppleDoubleNames(tmp.path + "/clean.zip", "__MACOSX/t/._notes.md") == ["com.apple.metadata:_kMDItemUserTags"])
        // The folder __MACOSX/ stays: something is left in it.
        #expect(Self.names(clean).contains("__MACOSX/"))
    }

    @Test("zip64: zip -fz (zip64 end records); the same behind a stub, offsets of the zip alone; Python's zipfile appended to a stub, zip64 extras forced",
          arguments: ["fz", "fz-stub", "python-stub"])
    func zip64WithStub(variant: String) async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path)
        try await Self.sequester(in: tmp.path)
        let stub = "printf '#!/bin/sh\\necho self-extracting stub\\nexit 0\\n' > sfx.zip"
        let command = switch variant {
        case "fz": "zip -q -fz -r sfx.zip t __MACOSX"
        case "fz-stub": "zip -q -fz -r a.zip t __MACOSX && \(stub) && cat a.zip >> sfx.zip"
        default: """
            \(stub) && python3 -c 'import zipfile, os
            with zipfile.ZipFile("sfx.zip", "a", zipfile.ZIP_DEFLATED) as z:
                for root, dirs, files in sorted(os.walk("t")) + sorted(os.walk("__MACOSX")):
                    for f in sorted(files):
                        p = os.path.join(root, f)
                        with open(p, "rb") as src, z.open(p, "w", force_zip64=True) as dst: dst.write(src.read())
            '
            """
        }
        try await Self.shell(command, in: tmp.path)
        try ArchiveCleaner(archive: tmp.path + "/sfx.zip")!.write(to: tmp.path + "/clean.zip")
        // unzip warns about a zip64 zip behind a stub whose offsets are the zip's alone (it
        // finds its way): the copy as the original.
        // (bsdtar refuses it.)
        for tool in ["unzip -tq", "bsdtar -tf"] {
            let status = { (name: String) async throws -> Int32 in
                try await ProcessRunner.run("/bin/sh", ["-c", "\(tool) \(name) >/dev/null"], in: tmp.path).status
            }
            let clean = try await status("clean.zip"), sfx = try await status("sfx.zip")
            #expect(clean == sfx, "\(tool)")
            #expect(clean == 0 || variant == "fz-stub", "\(tool)")
        }
        let original = try await Self.describe(tmp.path + "/sfx.zip", tar: false)
        let clean = try await Self.describe(tmp.path + "/clean.zip", tar: false)
        let folder = Self.names(original).contains("__MACOSX/t/docs/") ? ["__MACOSX/t/docs/"] : []
        Self.expectClean(original: original, clean: clean,
                         dropped: Set(["__MACOSX/t/docs/._report.txt"] + folder),
                         rewritten: ["__MACOSX/t/._notes.md": []])
        #expect(clean["front"] as? String == original["front"] as? String)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: tmp.path + "/clean.zip")))
        if variant != "fz" { #expect(bytes.starts(with: Array("#!/bin/sh\necho self-extracting stub".utf8))) }
        // zip -fz's zip64 end record is kept.
        let hasZip64End = bytes.indices.dropLast(4).contains { bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 6 && bytes[$0 + 3] == 6 }
        #expect(hasZip64End == (variant != "python-stub"))
    }

    @Test("zips with data descriptors (zip from a pipe; Python's zipfile to a pipe with zip64 forced)",
          arguments: ["zip -q -r - t __MACOSX | cat > a.zip",
                      """
                      python3 -c 'import zipfile, sys, os
                      with zipfile.ZipFile(sys.stdout.buffer, "w", zipfile.ZIP_DEFLATED) as z:
                          for root, dirs, files in os.walk("."):
                              for f in sorted(files):
                                  p = os.path.join(root, f)[2:]
                                  if p.startswith(("t/", "__MACOSX/")):
                                      with open(p, "rb") as src, z.open(p, "w", force_zip64=True) as dst: dst.write(src.read())
                      ' | cat > a.zip
                      """])
    func zipDataDescriptors(command: String) async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path)
        try await Self.sequester(in: tmp.path)
        try await Self.shell(command, in: tmp.path)
        let original = try await Self.describe(tmp.path + "/a.zip", tar: false)
        // Every file's data is followed by a descriptor (folders have none).
        #expect(Self.members(original).filter { !$0.key.hasSuffix("/") }.values.allSatisfy { ($0["flags"] as? Int ?? 0) & 8 != 0 })
        try ArchiveCleaner(archive: tmp.path + "/a.zip")!.write(to: tmp.path + "/clean.zip")
        try await Self.shell("unzip -tq clean.zip && bsdtar -tf clean.zip >/dev/null", in: tmp.path)
        let clean = try await Self.describe(tmp.path + "/clean.zip", tar: false)
        let folder = Self.names(original).contains("__MACOSX/t/docs/") ? ["__MACOSX/t/docs/"] : []
        Self.expectClean(original: original, clean: clean,
                         dropped: Set(["__MACOSX/t/docs/._report.txt"] + folder),
                         rewritten: ["__MACOSX/t/._notes.md": []])
    }

    @Test("a zip without marks is copied byte for byte")
    func zipWithoutMarks() async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path, appleDouble: false)
        try await Self.shell("echo comment | zip -q -z -r a.zip t", in: tmp.path)
        let report = try ArchiveCleaner(archive: tmp.path + "/a.zip")!.write(to: tmp.path + "/clean.zip")
        #expect(!report.changed)
        #expect(try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/a.zip")) == Data(contentsOf: URL(fileURLWithPath: tmp.path + "/clean.zip")))
    }

    @Test("--keep: the kinds kept stay in a rewritten entry")
    func zipKeepingKinds() async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path)
        try await Self.shell("zip -q -r a.zip t", in: tmp.path)
        let kinds = Set(ProvenanceKind.allCases).subtracting([.quarantine])
        let report = try ArchiveCleaner(archive: tmp.path + "/a.zip", kinds: kinds)!.write(to: tmp.path + "/clean.zip")
        #expect(report.droppedEntries == 0)
        #expect(report.rewrittenEntries == 1)
        #expect(try await Self.zipAppleDoubleNames(tmp.path + "/clean.zip", "t/._notes.md")
            == ["com.apple.quarantine", "com.apple.metadata:_kMDItemUserTags"])
        #expect(try await Self.zipAppleDoubleNames(tmp.path + "/clean.zip", "t/docs/._report.txt") == ["com.apple.quarantine"])
    }

    /// `._` entries as Finder makes them (the 286-byte blank resource map) that hold only marks
    /// are left out, in a zip's `__MACOSX/` and beside a tar's members alike; one whose resource
    /// fork holds a resource is rewritten, its fork kept byte-exact. The rule is XDocSource's
    /// `AppleDouble.isEmptyResourceFork`, the one `xds strip` uses on sidecars.
    @Test("Finder's blank resource fork counts as empty, a fork with a resource does not", arguments: ["zip", "tar"])
    func appleDoubleEntryWithFinderBlankFork(kind: String) async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path, appleDouble: false)
        let blank = appleDoubleBytes(attributes: [("com.apple.quarantine", Self.quarantine)], resourceFork: finderBlankResourceFork)
        let resource = appleDoubleBytes(attributes: [("com.apple.quarantine", Self.quarantine)], resourceFork: oneResourceFork)
        let folder = kind == "zip" ? "/__MACOSX/t" : "/t"
        try FileManager.default.createDirectory(atPath: tmp.path + folder + "/docs", withIntermediateDirectories: true)
        try Data(blank).write(to: URL(fileURLWithPath: tmp.path + folder + "/docs/._report.txt"))
        try Data(resource).write(to: URL(fileURLWithPath: tmp.path + folder + "/._notes.md"))
        let name = kind == "zip" ? "a.zip" : "a.tar"
        try await Self.shell(kind == "zip" ? "zip -q -r a.zip t __MACOSX" : "tar -cf a.tar t", in: tmp.path)
        let report = try ArchiveCleaner(archive: tmp.path + "/" + name)!.write(to: tmp.path + "/clean." + kind)
        #expect(report.rewrittenEntries == 1)
        #expect(report.droppedAttributes == 2)
        let original = try await Self.describe(tmp.path + "/" + name, tar: kind == "tar")
        let clean = try await Self.describe(tmp.path + "/clean." + kind, tar: kind == "tar")
        let prefix = kind == "zip" ? "__MACOSX/t" : "t"
        // The zip's folder entry __MACOSX/t/docs/ goes with the only entry in it.
        let dropped: Set<String> = Self.names(original).contains("__MACOSX/t/docs/")
            ? ["__MACOSX/t/docs/._report.txt", "__MACOSX/t/docs/"] : [prefix + "/docs/._report.txt"]
        Self.expectClean(original: original, clean: clean, dropped: dropped, rewritten: [prefix + "/._notes.md": []])
        let copied = try await ProcessRunner.runOnPath(kind == "zip" ? ["unzip", "-p", tmp.path + "/clean.zip", prefix + "/._notes.md"]
                                                                  : ["tar", "-xOf", tmp.path + "/clean.tar", prefix + "/._notes.md"])
        #expect(Array(copied.output.suffix(oneResourceFork.count)) == oneResourceFork)
        #expect(try AppleDouble(bytes: copied.output).attributes.isEmpty)
    }

    // MARK: - Tars

    /// The command that decompresses a tar of `compression` to standard output.
    static let decompressors: [String: String] = [
        "gzip": "gzip -dc", "bzip2": "bzip2 -dc", "xz": "xz -dc", "zstd": "zstd -qdc", "lz4": "lz4 -qdc",
        "lzip": "lzip -dc", "compress": "gzip -dc", "lzma": "xz --format=lzma -dc",
    ]
    /// bsdtar's option for each compression.
    static let bsdtarOptions: [String: String] = [
        "": "", "gzip": "-z", "bzip2": "-j", "xz": "-J", "zstd": "--zstd", "lz4": "--lz4", "lzip": "--lzip",
        "compress": "-Z", "lzma": "--lzma",
    ]

    /// Cleans `archive` (in `folder`), checks the copy with bsdtar and GNU tar, and returns
    /// both descriptions (decompressed) and the report.
    static func cleanTar(_ folder: String, _ archive: String, compression: String,
                         kinds: Set<ProvenanceKind> = Set(ProvenanceKind.allCases)) async throws
        -> (original: [String: Any], clean: [String: Any], report: ArchiveCopy.Report)
    {
        let report = try ArchiveCleaner(archive: folder + "/" + archive, kinds: kinds)!.write(to: folder + "/clean.tar")
        #expect(report.compression == (compression.isEmpty ? nil : compression))
        // Same compression out as in.
        let null = open("/dev/null", O_WRONLY)
        defer { close(null) }
        let again = try ArchiveCopy(path: DocumentSourceTreePath(folder + "/clean.tar"), kind: .tar)
            .write(to: null, filter: .init(dropsAttribute: { _ in false }, dropsPaxKeyword: { _ in false }))
        #expect(again.compression == report.compression)
        #expect(!again.changed)
        try await shell("bsdtar -tf clean.tar >/dev/null", in: folder)
        // GNU tar reads neither lz4 nor lzma (alone): where it reads the original, the copy too.
        if try await ProcessRunner.run("/bin/sh", ["-c", "tar -tf \(archive) >/dev/null 2>&1"], in: folder).status == 0 {
            try await shell("tar -tf clean.tar >/dev/null", in: folder)
        }
        let unpack = compression.isEmpty ? "cat" : decompressors[compression]!
        try await shell("\(unpack) < \(archive) > original.plain && \(unpack) < clean.tar > clean.plain", in: folder)
        return await (try describe(folder + "/original.plain", tar: true), try describe(folder + "/clean.plain", tar: true), report)
    }

    @Test("pax tars from bsdtar --xattrs (LIBARCHIVE.xattr and SCHILY.xattr records), in every compression",
          arguments: ["", "gzip", "bzip2", "xz", "zstd", "lz4", "lzip", "compress", "lzma"])
    func bsdtarPax(compression: String) async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path, xattrs: true)
        // Named .tar whatever the compression: it is found by its magic bytes.
        try await Self.shell("bsdtar --format pax --xattrs \(Self.bsdtarOptions[compression]!) -cf a.tar t", in: tmp.path)
        let (original, clean, report) = try await Self.cleanTar(tmp.path, "a.tar", compression: compression)
        // quarantine (two spellings), xdg on notes.md and on t (two each).
        #expect(report.droppedRecords == 6)
        #expect(report.droppedEntries == 1)  // t/docs/._report.txt
        #expect(report.rewrittenEntries == 1)  // t/._notes.md
        Self.expectClean(original: original, clean: clean, dropped: ["t/docs/._report.txt"],
                         rewritten: ["t/._notes.md": []], paxMarksRemoved: true)
        let notes = Self.members(clean)["t/notes.md"]?["pax"] as? [String: String]
        #expect(notes?["SCHILY.xattr.user.mime_type"] == "text/plain")
        #expect(notes?["LIBARCHIVE.xattr.user.mime_type"] != nil)
    }

    @Test("pax tars from GNU tar --xattrs: no warning from GNU tar on the copy, every compression GNU tar writes",
          arguments: ["", "gzip", "bzip2", "xz", "zstd", "lzip"])
    func gnuTarPax(compression: String) async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path, appleDouble: false, xattrs: true)
        let option = ["": "", "gzip": "-z", "bzip2": "-j", "xz": "-J", "zstd": "--zstd", "lzip": "--lzip"][compression]!
        try await Self.shell("tar --xattrs --format=posix \(option) -cf a.tar t", in: tmp.path)
        let (original, clean, report) = try await Self.cleanTar(tmp.path, "a.tar", compression: compression)
        #expect(report.droppedRecords == 3)
        Self.expectClean(original: original, clean: clean, dropped: [], paxMarksRemoved: true)
        let run = try await Self.shell("tar --xattrs -tvf clean.tar", in: tmp.path)
        #expect(run.stderr.isEmpty)
        #expect(Self.members(clean)["t/notes.md"]?["pax"] as? [String: String] != nil)
    }

    @Test("ustar and GNU tars: ._ entries of marks only dropped, mixed ones rewritten, the rest byte-exact",
          arguments: ["ustar", "gnu", "oldgnu", "v7"])
    func ustarAndGNU(format: String) async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path)
        try await Self.shell("tar --format=\(format) -cf a.tar t", in: tmp.path)
        let (original, clean, report) = try await Self.cleanTar(tmp.path, "a.tar", compression: "")
        #expect(report.droppedRecords == 0)
        Self.expectClean(original: original, clean: clean, dropped: ["t/docs/._report.txt"],
                         rewritten: ["t/._notes.md": []])
        let plain = try [UInt8](Data(contentsOf: URL(fileURLWithPath: tmp.path + "/clean.tar")))
        #expect(plain.count % 512 == 0)
        // GNU tar pads to a 10 KiB record: the end blocks and the padding are kept.
        #expect(plain.suffix(1024).allSatisfy { $0 == 0 })
    }

    @Test("a pax header of marks only is dropped with its blocks; a long name and a size in pax headers are kept")
    func paxHeaderOfMarksOnly() async throws {
        let tmp = TemporaryFolder()
        try await Self.shell(#"""
            python3 -c 'import tarfile, io
            with tarfile.open("a.tar", "w", format=tarfile.PAX_FORMAT) as t:
                for name, pax in [("plain.txt", {}), ("marked.txt", {"SCHILY.xattr.com.apple.quarantine": "0081;5f000000;Safari;", "LIBARCHIVE.xattr.user.com.apple.provenance": "AQIDBA"}),
                                  ("d/" + "long" * 40 + ".txt", {"SCHILY.xattr.user.xdg.origin.url": "https://example.com/"})]:
                    info = tarfile.TarInfo(name); data = (name * 3).encode(); info.size = len(data); info.pax_headers = pax
                    t.addfile(info, io.BytesIO(data))
            '
            """#, in: tmp.path)
        let (original, clean, report) = try await Self.cleanTar(tmp.path, "a.tar", compression: "")
        #expect(report.droppedRecords == 3)
        #expect(report.droppedHeaders == 1)
        Self.expectClean(original: original, clean: clean, dropped: [], paxMarksRemoved: true)
        let before = try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/a.tar")).count
        let after = try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/clean.tar")).count
        // marked.txt's pax header (one block of records and its header) is gone; Python pads
        // the archive to a 10 KiB record, which is kept as it was.
        #expect(before - after == 1024)
        #expect(Self.members(clean)["d/" + String(repeating: "long", count: 40) + ".txt"]?["pax"] as? [String: String]
            == ["path": "d/" + String(repeating: "long", count: 40) + ".txt"])
    }

    @Test("GNU sparse files (old GNU extension headers, pax sparse maps) are copied as they are",
          arguments: ["oldgnu", "posix"])
    func sparseFiles(format: String) async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path)
        // 30 data regions: more than an old GNU header holds (4), so extension headers follow.
        try await Self.shell("""
            python3 -c 'f = open("t/sparse.bin", "wb")
            for i in range(30): f.seek(i * 65536); f.write(b"data%d" % i * 20)
            f.truncate(31 * 65536)'
            tar --format=\(format) --sparse -cf a.tar t
            """, in: tmp.path)
        let (original, clean, _) = try await Self.cleanTar(tmp.path, "a.tar", compression: "")
        Self.expectClean(original: original, clean: clean, dropped: ["t/docs/._report.txt"],
                         rewritten: ["t/._notes.md": []])
        #expect(Self.members(clean)["t/sparse.bin"]?["data"] as? String == Self.members(original)["t/sparse.bin"]?["data"] as? String)
        try await Self.shell("mkdir x && tar -xf clean.tar -C x && cmp x/t/sparse.bin t/sparse.bin", in: tmp.path)
    }

    @Test("an empty file and an empty compressed stream are empty tars: copied as such",
          arguments: ["", "gzip", "zstd", "xz"])
    func emptyTars(compression: String) async throws {
        let tmp = TemporaryFolder()
        let make = compression.isEmpty ? ": > a.tar" : "printf '' | \(compression) -c > a.tar"
        try await Self.shell(make, in: tmp.path)
        let report = try ArchiveCleaner(archive: tmp.path + "/a.tar")!.write(to: tmp.path + "/clean.tar")
        #expect(report.compression == (compression.isEmpty ? nil : compression))
        #expect(report.entries == 0)
        try await Self.shell("bsdtar -tf clean.tar", in: tmp.path)
        let unpack = compression.isEmpty ? "cat" : Self.decompressors[compression]!
        #expect(try await Self.shell("\(unpack) < clean.tar | wc -c", in: tmp.path).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test("a ._ entry that is not AppleDouble is copied as it is")
    func notAppleDouble() async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path, appleDouble: false)
        try await Self.shell("echo 'not AppleDouble' > t/._notes.md && zip -q -r a.zip t && tar -cf a.tar t", in: tmp.path)
        for archive in ["a.zip", "a.tar"] {
            let report = try ArchiveCleaner(archive: tmp.path + "/" + archive)!.write(to: tmp.path + "/clean-" + archive)
            #expect(report.unreadAppleDoubleEntries == 1)
            #expect(!report.changed)
            #expect(try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/" + archive))
                == Data(contentsOf: URL(fileURLWithPath: tmp.path + "/clean-" + archive)))
        }
    }

    @Test("damaged archives (bytes changed at random, cut anywhere): a copy or one error, never a crash, never larger than the archive allows")
    func damagedAtRandom() async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path, xattrs: true)
        try await Self.sequester(in: tmp.path)
        try await Self.shell("zip -q -r a.zip t __MACOSX && bsdtar --format pax --xattrs -cf a.tar t __MACOSX && gzip -c a.tar > a.tar.gz", in: tmp.path)
        var random = SplitMix64(seed: 27)
        let null = open("/dev/null", O_WRONLY)
        defer { close(null) }
        for archive in ["a.zip", "a.tar", "a.tar.gz"] {
            let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: tmp.path + "/" + archive)))
            var copies = 0, refused = 0
            for round in 0..<150 {
                var bytes = whole
                if round % 3 == 0 {
                    bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))
                } else {
                    for _ in 0..<Int.random(in: 1...4, using: &random) {
                        bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                    }
                }
                let path = tmp.path + "/damaged-" + archive
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let cleaner = ArchiveCleaner(archive: path, limits: .init(maximumDecompressedSize: 1 << 24))!
                do throws(ArchiveCleanerError) {
                    try cleaner.write(to: tmp.path + "/out")
                } catch {
                    guard case .archive = error else { Issue.record("round \(round): \(error)"); continue }
                    #expect(!error.description.contains("\n"))
                    refused += 1
                    continue
                }
                copies += 1
                let size = try FileManager.default.attributesOfItem(atPath: tmp.path + "/out")[.size] as! Int
                // A zip or plain tar copy holds at most what the archive held (a gzip one is
                // recompressed: bounded by the limit).
                if archive != "a.tar.gz" { #expect(size <= bytes.count, "round \(round)") }
            }
            #expect(copies + refused == 150)
            #expect(refused > 0)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path).filter { $0.hasPrefix(".xds-") } == [])
    }

    // MARK: - Safety

    @Test("the copy never replaces the archive: the same path, a link to it, a hard link")
    func sameFileRefused() async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path)
        try await Self.shell("zip -q -r a.zip t && ln -s a.zip link.zip && ln a.zip hard.zip", in: tmp.path)
        let before = try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/a.zip"))
        let cleaner = ArchiveCleaner(archive: tmp.path + "/a.zip")!
        for output in ["a.zip", "link.zip", "hard.zip", "./a.zip"] {
            #expect(throws: ArchiveCleanerError.sameFile(tmp.path + "/" + output)) {
                try cleaner.write(to: tmp.path + "/" + output)
            }
        }
        // Standard output appended to the archive (`-o - >> a.zip`).
        let appending = open(tmp.path + "/a.zip", O_WRONLY | O_APPEND)
        defer { close(appending) }
        #expect(throws: ArchiveCleanerError.sameFile("-")) { try cleaner.write(toDescriptor: appending) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/a.zip")) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path).sorted() == ["a.zip", "hard.zip", "link.zip", "t"])
    }

    @Test("a damaged archive: one error, nothing written, an existing output left as it was",
          arguments: ["zip", "tar", "tar.gz"])
    func damagedArchive(kind: String) async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path, xattrs: true)
        let make = ["zip": "zip -q -r whole.zip t", "tar": "tar --xattrs --format=posix -cf whole.tar t",
                    "tar.gz": "tar --xattrs --format=posix -czf whole.tar.gz t"][kind]!
        // A zip cut inside its central directory; a tar cut inside a member's data; a gzip
        // stream cut short.
        let size = ["zip": "$(($(stat -c %s whole.zip) - 80))", "tar": "2000", "tar.gz": "$(($(stat -c %s whole.tar.gz) - 40))"][kind]!
        try await Self.shell("\(make) && head -c \(size) whole.\(kind) > cut.\(kind) && echo old > out", in: tmp.path)
        let cleaner = ArchiveCleaner(archive: tmp.path + "/cut." + kind)!
        do {
            try cleaner.write(to: tmp.path + "/out")
            Issue.record("a damaged archive was copied")
        } catch {
            guard case .archive(let archiveError) = error else { Issue.record("\(error)"); return }
            #expect(archiveError.kind == .malformed)
            #expect(!error.description.contains("\n"))
            #expect(error.description.hasPrefix(tmp.path + "/cut." + kind + ": "))
        }
        #expect(try String(contentsOfFile: tmp.path + "/out", encoding: .utf8) == "old\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path).sorted()
            == ["cut." + kind, "out", "t", "whole." + kind])
    }

    @Test("hostile zips: two entries over one member's data, a data descriptor that disagrees with the directory",
          arguments: ["overlap", "descriptor"])
    func hostileZip(kind: String) async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path)
        let make = kind == "overlap" ? "zip -q -0 -r a.zip t" : "zip -q -r - t | cat > a.zip"
        try await Self.shell(make, in: tmp.path)
        // overlap: every entry's offset becomes the first's (a zip bomb's trick); descriptor:
        // the first data descriptor's CRC is changed.
        try await Self.shell(#"""
            python3 -c 'import struct, sys
            data = bytearray(open("a.zip", "rb").read())
            if sys.argv[1] == "overlap":
                eocd = data.rindex(b"PK\x05\x06")
                at = struct.unpack("<I", data[eocd + 16:eocd + 20])[0]
                first = None
                while data[at:at + 4] == b"PK\x01\x02":
                    n, m, k = struct.unpack("<HHH", data[at + 28:at + 34])
                    first = struct.unpack("<I", data[at + 42:at + 46])[0] if first is None else first
                    data[at + 42:at + 46] = struct.pack("<I", first)
                    at += 46 + n + m + k
            else:
                at = data.index(b"PK\x07\x08")
                data[at + 4] ^= 0xFF
            open("a.zip", "wb").write(bytes(data))
            ' \#(kind)
            """#, in: tmp.path)
        do {
            try ArchiveCleaner(archive: tmp.path + "/a.zip")!.write(to: tmp.path + "/clean.zip")
            Issue.record("a hostile zip was copied")
        } catch {
            guard case .archive(let archiveError) = error else { Issue.record("\(error)"); return }
            #expect(archiveError.kind == .malformed)
            #expect(archiveError.message.contains(kind == "overlap" ? "overlaps another entry's" : "data descriptor"))
        }
        #expect(!FileManager.default.fileExists(atPath: tmp.path + "/clean.zip"))
    }

    @Test("the copy to a descriptor (standard output) is the copy to a file")
    func toDescriptor() async throws {
        let tmp = TemporaryFolder()
        try await Self.makeTree(in: tmp.path, xattrs: true)
        try await Self.shell("bsdtar --format pax --xattrs -Jcf a.tar t", in: tmp.path)
        let cleaner = ArchiveCleaner(archive: tmp.path + "/a.tar")!
        try cleaner.write(to: tmp.path + "/file.tar")
        let fd = open(tmp.path + "/descriptor.tar", O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(fd >= 0)
        try cleaner.write(toDescriptor: fd)
        close(fd)
        let file = try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/file.tar"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/descriptor.tar")) == file)
        // The same archive gives the same copy (no time stamp in the compressed stream).
        try cleaner.write(to: tmp.path + "/again.tar")
        #expect(try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/again.tar")) == file)
    }

    @Test("a compressed tar is decompressed up to the archive limit")
    func archiveLimit() async throws {
        let tmp = TemporaryFolder()
        try await Self.shell("head -c 3000000 /dev/zero > zeros && tar -czf a.tar.gz zeros", in: tmp.path)
        let cleaner = ArchiveCleaner(archive: tmp.path + "/a.tar.gz", limits: .init(maximumDecompressedSize: 1 << 20))!
        #expect(throws: ArchiveCleanerError.self) { try cleaner.write(to: tmp.path + "/clean.tar.gz") }
        do {
            try cleaner.write(to: tmp.path + "/clean.tar.gz")
        } catch {
            guard case .archive(let archiveError) = error else { Issue.record("\(error)"); return }
            #expect(archiveError.kind == .limitReached)
        }
        #expect(!FileManager.default.fileExists(atPath: tmp.path + "/clean.tar.gz"))
    }
}

struct CleanTestFailure: Error, CustomStringConvertible { let description: String }
