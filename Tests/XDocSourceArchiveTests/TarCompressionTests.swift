import Foundation
import Testing
import XDSTestSupport
@testable import XDocSource
@testable import XDocSourceArchive

/// Runs a command line and gives its standard output (fails the test when it fails).
private func output(_ command: String) async throws -> String {
    let run = try await ProcessRunner.run("/bin/sh", ["-c", command])
    guard run.status == 0 else { throw ArchiveTestFailure(description: "\(command): \(run)") }
    return run.stdout
}

/// A GNU tar (with `--xattrs`) of a tagged `a.txt`, an untagged `b.txt` and `sub/c.txt`, at `tar`.
private func makeTaggedTar(_ tmp: TemporaryFolder, _ tar: String) async throws {
    _ = tmp.folder("tree")
    _ = tmp.folder("tree/sub")
    try DocumentSourceFile(path: tmp.file("tree/a.txt", "hello\n")).write(DocumentSource(identifier: "com.example.a", name: "A"))
    _ = tmp.file("tree/b.txt", "two\n")
    try DocumentSourceFile(path: tmp.file("tree/sub/c.txt", "three\n")).write(DocumentSource(identifier: "com.example.c", name: "C"))
    try await shell("cd '\(tmp.path)/tree' && tar --xattrs --xattrs-include='user.*' -cf '\(tar)' a.txt b.txt sub")
}

/// A zstd/lz4 skippable frame: magic 0x184D2A50 + `nibble`, the payload's size, the payload.
private func skippableFrame(_ nibble: UInt8, _ payload: [UInt8]) -> [UInt8] {
    let size = UInt32(payload.count)
    return [0x50 + nibble, 0x2A, 0x4D, 0x18] + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + payload
}

@Suite("Tar compression by magic bytes (issue 27)")
struct TarCompressionTests {
    /// Each compressor's real output, saved as `x.tar` (as browsers and scripts save it), under
    /// its proper names, and under another compressor's name: read by its bytes, listing what
    /// bsdtar lists. Before: `x.tar` was "unrecognized archive format", and `.tar.Z`, `.taz`,
    /// `.tlz`, `.tar.lzma`, `.tar.lz`, `.tar.lz4` were not archives at all.
    @Test(arguments: [
        ("gzip -c", TarCompression.gzip, [".tar.gz", ".tgz"]),
        ("bzip2 -c", .bzip2, [".tar.bz2", ".tbz2"]),
        ("xz -c", .xz, [".tar.xz", ".txz"]),
        ("zstd -q -c", .zstd, [".tar.zst", ".tzst"]),
        ("lzip -c", .lzip, [".tar.lz"]),
        ("lz4 -q -c", .lz4, [".tar.lz4"]),
        ("lz4 -l -q -c", .lz4, [".tar.lz4"]),  // the legacy frame
        ("compress -f -c", .compress, [".tar.Z", ".taz", ".TAR.Z"]),
        ("xz --format=lzma -c", .lzma, [".tar.lzma", ".tlz"]),
    ])
    func compressedTarIsReadByItsBytes(command: String, compression: TarCompression, names: [String]) async throws {
        let tmp = TemporaryFolder()
        let plain = tmp.path + "/plain.tar"
        try await makeTaggedTar(tmp, plain)
        let misnamed = compression == .gzip ? "x.tar.xz" : "x.tar.gz"
        for name in ["x.tar", misnamed] + names.map({ "x" + $0 }) {
            let path = tmp.path + "/" + name
            try await shell("\(command) < '\(plain)' > '\(path)'")
            let head = try #require(FileHandle(forReadingAtPath: path)).readData(ofLength: 512)
            #expect(TarCompression.detect([UInt8](head)) == compression, "\(name)")
            #expect(ArchiveScanner(path: path) != nil, "\(name) is an archive")
            let result = try scanArchive(path)
            #expect(result.problems.isEmpty, "\(name)")
            #expect(result.members.map(\.name.lossyString) == ["a.txt", "sub/c.txt"], "\(name)")
            #expect(result.byName["sub/c.txt"]?.stored.source.name == "C")
            // Every entry is read, as bsdtar lists them (a.txt, b.txt, sub/, sub/c.txt).
            let listed = try await output("bsdtar -tf '\(path)'").split(separator: "\n")
            #expect(result.summary.entries == listed.count && listed.count == 4, "\(name): \(listed)")
            // GNU tar 1.34 too, by the same bytes (lz4 and lzma it recognises by neither bytes
            // nor name: `tar -I 'lz4 -d'`, `tar --lzma`).
            if compression != .lz4 && compression != .lzma {
                #expect(try await output("tar -tf '\(path)'").split(separator: "\n") == listed, "\(name)")
            }
        }
    }

    /// What GNU tar and bsdtar read without a compressor (plain tar) stays `.none`; an empty
    /// file is an empty tar; bytes that are nothing known are `.none` (the tar reader refuses).
    @Test func plainAndUnknownBytes() async throws {
        let tmp = TemporaryFolder()
        let plain = tmp.path + "/plain.tar"
        try await makeTaggedTar(tmp, plain)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        #expect(TarCompression.detect(bytes) == .none)
        #expect(TarCompression.detect([]) == .none)
        #expect(TarCompression.detect(Array("this is not gzip".utf8)) == .none)
        #expect(TarCompression.detect([0x1F]) == .none)
        // lzma has no magic: its header decides, as libarchive's bidder checks it.
        let lzma: [UInt8] = [0x5D, 0x00, 0x00, 0x80, 0x00] + [UInt8](repeating: 0xFF, count: 8) + [0x00, 0x33]
        #expect(TarCompression.detect(lzma) == .lzma)
        var odd = lzma
        odd[3] = 0x81  // a dictionary size no lzma writer uses
        #expect(TarCompression.detect(odd) == .none)
        odd = lzma
        odd[0] = 225  // properties out of range
        #expect(TarCompression.detect(odd) == .none)
        var lowered = lzma  // xz's dictionary lowered in 1 MiB steps (here 5 MiB), size unknown
        lowered[1...4] = [0x00, 0x00, 0x50, 0x00]
        #expect(TarCompression.detect(lowered) == .lzma)
        lowered[5] = 0x10  // …with a known size libarchive does not take it
        #expect(TarCompression.detect(lowered) == .none)
        // A valid tar header (its checksum right) is a plain tar, whatever its first bytes.
        var header = lzma + bytes[lzma.count..<512]
        header.replaceSubrange(148..<156, with: [UInt8](repeating: 0x20, count: 8))
        let sum = header.reduce(0) { $0 + Int($1) }
        header.replaceSubrange(148..<156, with: Array(String(format: "%06o\0 ", sum).utf8))
        #expect(TarCompression.detect(header) == .none)
        header[100] ^= 1
        #expect(TarCompression.detect(header) == .lzma)
        #expect(TarCompression(fileName: Array("x.TAZ".utf8)) == .compress)
        #expect(TarCompression(fileName: Array("x.tar".utf8)) == nil)
    }

    /// zstd looked at past skippable frames (which lz4 shares): a real zstd stream with two
    /// frames in front (before: "not zstd data, as its name says"), an lz4 stream with one in
    /// front (bsdtar 3.6.2 takes it for zstd and fails), and only skippable frames: empty.
    @Test func skippableFramesAreLookedPast() async throws {
        let tmp = TemporaryFolder()
        let plain = tmp.path + "/plain.tar"
        try await makeTaggedTar(tmp, plain)
        try await shell("zstd -q -c < '\(plain)' > '\(tmp.path)/real.zst' && lz4 -q -c < '\(plain)' > '\(tmp.path)/real.lz4'")
        let zstd = [UInt8](try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/real.zst")))
        let lz4 = [UInt8](try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/real.lz4")))
        let front = skippableFrame(0, Array("metadata".utf8)) + skippableFrame(0xF, [UInt8](repeating: 7, count: 3000))
        for (name, bytes, expected) in [("skip.tar.zst", front + zstd, TarCompression.zstd), ("skip-zstd.tar", front + zstd, .zstd),
                                        ("skip.tar.lz4", skippableFrame(2, [1, 2, 3]) + lz4, .lz4)] {
            let path = tmp.write(name, bytes: bytes)
            #expect(TarCompression.detect(bytes) == expected, "\(name)")
            let result = try scanArchive(path)
            #expect(result.members.map(\.name.lossyString) == ["a.txt", "sub/c.txt"], "\(name)")
            #expect(result.summary.entries == 4)
        }
        // bsdtar reads the zstd one too.
        #expect(try await output("bsdtar -tf '\(tmp.path)/skip.tar.zst'").split(separator: "\n").count == 4)
        // Only skippable frames: an empty stream, so an empty archive.
        let only = tmp.write("only.tar.zst", bytes: skippableFrame(0, [9, 9]))
        #expect(TarCompression.detect(skippableFrame(0, [9, 9])) == .zstd)
        #expect(try scanArchive(only).summary.entries == 0)
        // A frame that goes past the bytes at hand: zstd (its decoder says what is wrong).
        #expect(TarCompression.detect(skippableFrame(0, [UInt8](repeating: 0, count: 100)).prefix(50).map { $0 }) == .zstd)
    }

    /// An empty compressed stream (each compressor given nothing) is an empty archive: no
    /// error, nothing listed, as bsdtar says.
    @Test(arguments: ["gzip -c", "bzip2 -c", "xz -c", "zstd -q -c", "lzip -c", "lz4 -q -c", "compress -f -c", "xz --format=lzma -c"])
    func emptyCompressedStreamIsAnEmptyArchive(command: String) async throws {
        let tmp = TemporaryFolder()
        for name in ["empty.tar", "empty.tar.gz"] {
            let path = tmp.path + "/" + name
            try await shell("printf '' | \(command) > '\(path)'")
            #expect(try await output("bsdtar -tf '\(path)'") == "")
            let result = try scanArchive(path)
            #expect(result.summary.entries == 0 && result.members.isEmpty && result.problems.isEmpty, "\(command) \(name)")
        }
    }

    /// Compressed data cut short, or whose header its decoder would not take, is an error in
    /// words, never an empty archive (libarchive's decoders stop silently at a header they do
    /// not accept, and its "empty" format then bids: before, `.tar.gz` files cut after a few
    /// bytes, or "BZh9" and junk named `.tar.bz2`, listed as empty archives, status 1).
    @Test(arguments: ["gzip -c", "bzip2 -c", "xz -c", "zstd -q -c", "lzip -c", "lz4 -q -c", "compress -f -c", "xz --format=lzma -c"])
    func damagedCompressedDataIsAnError(command: String) async throws {
        let tmp = TemporaryFolder()
        let plain = tmp.path + "/plain.tar"
        try await makeTaggedTar(tmp, plain)
        let whole = try await output("\(command) < '\(plain)' | od -An -v -tx1").split(whereSeparator: { $0 == " " || $0 == "\n" })
            .map { UInt8($0, radix: 16)! }
        // (Cut in its last bytes, an lz4 or compress stream still lists, as bsdtar lists it.)
        for cut in [5, 13, whole.count / 2] {
            let path = tmp.write("cut-\(cut).tar", bytes: Array(whole.prefix(cut)))
            do {
                let result = try scanArchive(path)
                Issue.record("\(command) cut at \(cut) of \(whole.count): listed \(result.summary.entries) entries")
            } catch {
                #expect(error.kind == .malformed, "\(command) cut at \(cut): \(error.message)")
                #expect(error.message.hasPrefix("not a readable archive (tar): ") || error.message.hasPrefix("damaged archive (tar"),
                        "\(error.message)")
            }
            // bsdtar does not list it either.
            #expect(try await ProcessRunner.run("/bin/sh", ["-c", "bsdtar -tf '\(path)' | grep -c ."]).stdout != "4\n")
        }
        let junk = tmp.write("junk.tar.bz2", bytes: Array("BZh9 and then junk".utf8))
        #expect(throws: ArchiveError.self) { try scanArchive(junk) }
    }

    /// A gzip stream cut in its 8-byte trailer (or just before it) is damaged, never an empty
    /// archive: libarchive's gzip decoder fails there without words and drops the bytes it
    /// decoded, so its "empty" format won the bid (before: a small `.tar.gz` cut in its last
    /// bytes listed no entry, and cleaned into an empty copy). An empty member before the cut
    /// one changes nothing; empty members, and bytes after them that start no member, stay an
    /// empty archive (as bsdtar reads them).
    @Test func gzipCutInItsTrailerIsDamaged() async throws {
        let tmp = TemporaryFolder()
        let plain = tmp.path + "/plain.tar"
        try await makeTaggedTar(tmp, plain)
        let whole = try await output("gzip -c < '\(plain)' | od -An -v -tx1").split(whereSeparator: { $0 == " " || $0 == "\n" })
            .map { UInt8($0, radix: 16)! }
        let empty = try await output("printf '' | gzip -c | od -An -v -tx1").split(whereSeparator: { $0 == " " || $0 == "\n" })
            .map { UInt8($0, radix: 16)! }
        #expect(try scanArchive(tmp.write("whole.tar.gz", bytes: whole)).members.count == 2)
        for cut in 1...8 {
            for (name, bytes) in [("cut", Array(whole.dropLast(cut))), ("after-empty", empty + whole.dropLast(cut))] {
                let path = tmp.write("\(name)-\(cut).tar.gz", bytes: bytes)
                do {
                    let result = try scanArchive(path)
                    Issue.record("\(name) cut \(cut) bytes short: listed \(result.summary.entries) entries")
                } catch {
                    #expect(error.kind == .malformed)
                    #expect(error.message == "damaged archive (tar, gzip): truncated gzip input", "\(name) \(cut)")
                }
            }
        }
        for (name, bytes) in [("two-empty", empty + empty), ("empty-then-text", empty + Array("trailing text\n".utf8))] {
            let result = try scanArchive(tmp.write("\(name).tar.gz", bytes: bytes))
            #expect(result.summary.entries == 0 && result.problems.isEmpty, "\(name)")
        }
    }

    /// One decoder at most: compress data inside compress data is refused (the other nestings
    /// decode once and find no tar: ArchiveHardeningTests.nestedGzipIsDecodedOnce).
    @Test func nestedCompressIsRefused() async throws {
        let tmp = TemporaryFolder()
        let plain = tmp.path + "/plain.tar"
        try await makeTaggedTar(tmp, plain)
        try await shell("cd '\(tmp.path)' && compress -f -c < plain.tar > once.tar.Z && compress -f -c < once.tar.Z > twice.tar.Z")
        #expect(try scanArchive(tmp.path + "/once.tar.Z").members.count == 2)
        do {
            _ = try scanArchive(tmp.path + "/twice.tar.Z")
            Issue.record("no error")
        } catch {
            #expect(error.kind == .malformed)
            #expect(error.message == "not a readable archive (tar): compress data inside compress data (decompressed once only)")
        }
    }

    /// The archive limit bounds the new decoders as the others.
    @Test(arguments: ["lzip -c", "compress -f -c", "lz4 -q -c", "xz --format=lzma -c"])
    func archiveLimitBoundsEveryDecoder(command: String) async throws {
        let tmp = TemporaryFolder()
        try await shell("cd '\(tmp.path)' && head -c 3000000 /dev/zero > zeros && tar -cf - zeros | \(command) > z.tar")
        do {
            _ = try scanArchive(tmp.path + "/z.tar", limits: .init(maximumDecompressedSize: 1 << 20))
            Issue.record("no error")
        } catch {
            #expect(error.kind == .limitReached && error.message == "stopped after decompressing 1 MiB (the archive limit)")
        }
        #expect(try scanArchive(tmp.path + "/z.tar").summary.entries == 1)
    }

    @Test func newArchiveNames() {
        for name in ["a.tar.lz", "b.tlz", "c.tar.lzma", "d.tar.Z", "e.tar.z", "f.taz", "g.TAZ", "h.tar.lz4", "i.TAR.LZMA", "dir/j.Tar.Lz4"] {
            #expect(ArchiveKind(fileName: name) == .tar, "\(name)")
        }
        for name in ["a.Z", "b.lz", "c.lz4", "d.lzma", "e.tar.lz4.part", "f.tar.zz", "g.az"] {
            #expect(ArchiveKind(fileName: name) == nil, "\(name)")
        }
    }
}
