import Foundation
import Testing
import XDocSource
import XDSTestSupport

/// Issue 27: every tar that tar reads. `show ARCHIVE` and `show -r` through the built binary.
@Suite("xds show: tars by their bytes, the new archive names")
struct ArchiveMagicCLITests {
    /// A folder `share` holding one GNU tar with a tagged `a.txt`, compressed by each tool and
    /// saved under a name that says another compression, none, or one of the new names.
    private func share(_ folder: TemporaryFolder) async throws -> [String] {
        let tree = folder.folder("tree")
        try DocumentSourceFile(path: folder.file("tree/a.txt", "a\n")).write(DocumentSource(identifier: "com.example.a", name: "A"))
        _ = folder.file("tree/b.txt", "b\n")
        _ = folder.folder("share")
        let made = try await sh("""
            tar --xattrs --xattrs-include='user.*' -cf ../plain.tar a.txt b.txt && cd ../share && \
            gzip -c < ../plain.tar > gzip.tar && xz -c < ../plain.tar > xz.tar.gz && \
            zstd -q -c < ../plain.tar > zstd.tar && compress -f -c < ../plain.tar > old.tar.Z && \
            compress -f -c < ../plain.tar > old.taz && xz --format=lzma -c < ../plain.tar > old.tlz && \
            xz --format=lzma -c < ../plain.tar > old.tar.lzma && lzip -c < ../plain.tar > new.tar.lz && \
            lz4 -q -c < ../plain.tar > fast.tar.lz4 && bzip2 -c < ../plain.tar > bzip2.TAR
            """, in: tree)
        #expect(made.status == 0, "\(made)")
        return ["bzip2.TAR", "fast.tar.lz4", "gzip.tar", "new.tar.lz", "old.tar.Z", "old.tar.lzma", "old.taz", "old.tlz",
                "xz.tar.gz", "zstd.tar"]
    }

    /// Before: the compressed `x.tar`s were "unrecognized archive format" (65), the misnamed
    /// one "not gzip data, as its name says", and the new names were no archives (exit 1).
    @Test func everyTarIsListedAsTarListsIt() async throws {
        let folder = TemporaryFolder()
        let names = try await share(folder)
        let shown = try await xds(["show", "--json"] + names, in: folder.path + "/share")
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stderr == "")
        let lines = try shown.jsonLines()
        #expect(lines.map { $0["archive"] as? String } == names)
        #expect(Set(lines.map { $0["member"] as? String }) == ["a.txt"])
        // bsdtar lists the same two entries in each.
        for name in names {
            let listed = try await sh("bsdtar -tf '\(name)'", in: folder.path + "/share")
            #expect(listed.stdout == "a.txt\nb.txt\n", "\(name): \(listed)")
        }
        // The walk takes the new names for archives too.
        let walked = try await xds("show", "-r", "-j", "1", "share", in: folder.path)
        #expect(walked.status == 0, "\(walked)")
        let headings = walked.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }
        #expect(Set(headings) == Set(names.map { "share/\($0)!/a.txt" }))
    }

    /// Bytes that are neither compressed data nor a tar, under a name that says gzip: the name
    /// is the likelier mistake and the line says it; under `.tar`, libarchive's words.
    @Test func notATarInWords() async throws {
        let folder = TemporaryFolder()
        _ = folder.file("fake.tar.gz", "not gzip")
        _ = folder.file("fake.tar.Z", "not compress")
        _ = folder.file("fake.tar", String(repeating: "not a tar ", count: 100))
        let shown = try await xds("show", "fake.tar.gz", "fake.tar.Z", "fake.tar", in: folder.path)
        #expect(shown.status == 65)
        #expect(shown.errorLines == [
            "xds: fake.tar.gz: not a readable archive (tar): not gzip data, as its name says, nor a plain tar",
            "xds: fake.tar.Z: not a readable archive (tar): not compress data, as its name says, nor a plain tar",
            "xds: fake.tar: not a readable archive (tar): unrecognized archive format",
        ])
        // An empty compressed stream is an empty archive: nothing tagged, status 1, no error.
        #expect(try await sh("gzip -c < /dev/null > empty.tar.gz && zstd -q -c < /dev/null > empty.tar", in: folder.path).status == 0)
        let empty = try await xds("show", "empty.tar.gz", "empty.tar", in: folder.path)
        #expect(empty.status == 1)
        #expect(empty.errorLines == [
            "xds: empty.tar.gz: no x-document-source attribute, and no member of the archive carries one",
            "xds: empty.tar: no x-document-source attribute, and no member of the archive carries one",
        ])
    }

    /// A small `.tar.gz` cut in its last bytes (its gzip trailer) is one line "damaged archive",
    /// 65, for show, where (alone and in a walk) and a clean copy, and no copy is written.
    /// Before: status 1, listed as an empty archive, and `strip -o` wrote an empty copy.
    @Test func gzipCutShortIsDamagedNotEmpty() async throws {
        let folder = TemporaryFolder()
        let tree = folder.folder("tree")
        _ = folder.file("tree/a.txt", "a\n")
        #expect(try await sh("setfattr -n user.com.apple.quarantine -v '0082;5fad2a2e;Safari;' a.txt", in: tree).status == 0)
        let made = try await sh("tar --xattrs --xattrs-include='user.*' -czf ../whole.tar.gz a.txt", in: tree)
        #expect(made.status == 0, "\(made)")
        #expect(try await xds("where", "whole.tar.gz", in: folder.path).status == 0)
        _ = folder.folder("share")
        for cut in [1, 4, 8, 40] {
            let name = "cut-\(cut).tar.gz"
            #expect(try await sh("head -c $(($(stat -c %s whole.tar.gz) - \(cut))) whole.tar.gz > share/\(name)", in: folder.path).status == 0)
            let line = "xds: share/\(name): damaged archive (tar, gzip): truncated gzip input"
            for command in [["show"], ["where"], ["where", "--json"]] {
                let result = try await xds(command + ["share/" + name], in: folder.path)
                #expect(result.status == 65, "\(command) \(name): \(result)")
                #expect(result.stdout == "")
                #expect(result.errorLines == [line], "\(command) \(name)")
            }
            let copy = try await xds("strip", "share/" + name, "-o", "clean.tar.gz", in: folder.path)
            #expect(copy.status == 65, "\(name): \(copy)")
            #expect(copy.errorLines == [line], "\(name)")
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/clean.tar.gz"))
        }
        let walked = try await xds("where", "-r", "share", in: folder.path)
        #expect(walked.status == 65, "\(walked)")
        #expect(walked.errorLines.filter { $0.contains("damaged archive (tar, gzip): truncated gzip input") }.count == 4, "\(walked)")
    }
}
