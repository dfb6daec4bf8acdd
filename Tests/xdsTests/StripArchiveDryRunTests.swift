import Foundation
import Testing
import XDocSource
import XDSTestSupport

/// Issue 31's dry runs and last lines for archives (SPEC §6): `strip -n ARCHIVE` (named, or met
/// by `strip -r -n`) reads entries as `strip ARCHIVE -o` does and lists what a copy would drop;
/// without `-o` it exits as `strip ARCHIVE` does, with the same last line; and no last line of
/// `where`, `show` or `strip` contradicts the lines above it.
@Suite("strip -n ARCHIVE, and last lines about archives", .timeLimit(.minutes(3)))
struct StripArchiveDryRunTests {
    /// `rel.tar`: GNU tar's pax records of `rel/app.bin`, which carries a macOS provenance
    /// (`tar --xattrs --xattrs-include='*' --format=posix`); `bz.zip`: `doc.txt` and a
    /// `._doc.txt` of a quarantine, bzip2-compressed (`zip -Z bzip2`), which xds cannot read.
    static func archives() async throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        for name in ["rel", "z"] {
            try FileManager.default.createDirectory(atPath: folder.path + "/" + name, withIntermediateDirectories: true)
        }
        try Data("app\n".utf8).write(to: URL(fileURLWithPath: folder.path + "/rel/app.bin"))
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: folder.path + "/z/doc.txt"))
        let sidecar = appleDoubleBytes(attributes: [("com.apple.quarantine", Array("0083;5f000000;Safari;".utf8))])
        try Data(sidecar).write(to: URL(fileURLWithPath: folder.path + "/z/._doc.txt"))
        let made = try await sh("""
            setfattr -n user.com.apple.provenance -v 0x0102030405060708 rel/app.bin \
            && tar --xattrs --xattrs-include='*' --format=posix -cf rel.tar rel \
            && (cd z && zip -q -Z bzip2 ../bz.zip doc.txt ._doc.txt)
            """, in: folder.path)
        try #require(made.status == 0, "\(made)")
        return folder
    }

    @Test("strip -n rel.tar lists the member's mark and ends as strip rel.tar does (1, the same last line)")
    func namedTar() async throws {
        let folder = try await Self.archives()
        #expect(try await xds("where", "rel.tar", in: folder.path).status == 0)
        let dry = try await xds("strip", "-n", "rel.tar", in: folder.path)
        let wet = try await xds("strip", "rel.tar", in: folder.path)
        #expect(dry.stdout == "rel.tar!/rel/app.bin: macos-provenance (tar)\n", "\(dry)")
        #expect(dry.status == 1 && wet.status == 1, "\(dry) \(wet)")
        #expect(dry.stderr == wet.stderr)
        #expect(wet.stdout.isEmpty)
        #expect(wet.stderr == "xds: rel.tar: 1 member carries marks of where it came from; "
                + "archives are not rewritten in place (xds strip ARCHIVE -o CLEAN writes a clean copy)\n")
        // With -o: the mark counts as something that would go (0), and nothing is written.
        let copy = try await xds("strip", "-n", "rel.tar", "-o", "clean.tar", in: folder.path)
        #expect(copy.status == 0 && copy.stdout == dry.stdout && copy.stderr.isEmpty, "\(copy)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/clean.tar"))
        // --keep of that kind: nothing would go.
        let kept = try await xds("strip", "-n", "--keep", "macos-provenance", "rel.tar", "-o", "clean.tar", in: folder.path)
        #expect(kept.status == 1 && kept.stdout.isEmpty && kept.errorLines.count == 1, "\(kept)")
    }

    @Test("strip -n bz.zip names the entry it cannot read, as strip bz.zip does")
    func namedUnreadable() async throws {
        let folder = try await Self.archives()
        let dry = try await xds("strip", "-n", "bz.zip", in: folder.path)
        let wet = try await xds("strip", "bz.zip", in: folder.path)
        #expect(dry.stdout == "bz.zip!/._doc.txt: cannot be read (compression method 12): would be dropped\n", "\(dry)")
        #expect(dry.status == 1 && wet.status == 1 && dry.stderr == wet.stderr, "\(dry) \(wet)")
        #expect(!wet.stderr.contains("no mark"), "\(wet)")
        #expect(wet.stderr.contains("1 ._ entry cannot be read"), "\(wet)")
    }

    @Test("strip -r -n lists the archives' lines as strip ARCHIVE -o reads them")
    func recursive() async throws {
        let folder = try await Self.archives()
        _ = try await sh("mkdir tree && cp rel.tar bz.zip tree/", in: folder.path)
        let dry = try await xds("strip", "-r", "-n", "-j", "1", "tree", in: folder.path)
        let lines = dry.stdout.split(separator: "\n").map(String.init).sorted()
        #expect(lines == ["tree/bz.zip!/._doc.txt: cannot be read (compression method 12): would be dropped",
                          "tree/rel.tar!/rel/app.bin: macos-provenance (tar)"], "\(dry)")
    }

    @Test("where and show of an archive with an entry they cannot read: no 'no mark' line after it (65)",
          arguments: ["where", "show"])
    func noContradiction(command: String) async throws {
        let folder = try await Self.archives()
        _ = try await sh("mkdir tree && cp bz.zip tree/", in: folder.path)
        for arguments in [[command, "bz.zip"], [command, "-r", "tree"]] {
            let result = try await xds(arguments, in: folder.path)
            #expect(result.status == 65, "\(arguments): \(result)")
            #expect(result.errorLines.count == 1, "\(arguments): \(result)")
            #expect(result.stderr.contains("._doc.txt cannot be read"), "\(arguments): \(result)")
        }
    }
}
