import Foundation
import Testing
import XDSTestSupport
import XDocSource

/// `strip --mac-metadata` where something Mac-written is kept (SPEC §6 "Before publishing"): a
/// `__MACOSX` or `.AppleDouble` folder that stays is reported, a `._NAME` named directly is read
/// before it is deleted, and a tar copy keeps the `__MACOSX/` folder entry of a kept `._` entry.
@Suite("strip --mac-metadata: what is kept")
struct StripMacKeptTests {
    static let quarantine = Array("0083;5fad2a2e;Safari;5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F".utf8)
    static let provenance: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]

    /// The attribute names of the AppleDouble file at `path` (`["gone"]` when there is none).
    func entries(_ path: String) async throws -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return ["gone"] }
        return try await AppleDouble(bytes: [UInt8](data)).attributes.map(\.name)
    }

    @Test("a __MACOSX that stays for a kept mark is named on standard error, in -n and when stripping; check does not report it")
    func macOSXStaysForAKeptMark() async throws {
        let folder = TemporaryFolder()
        folder.folder("rel/__MACOSX")
        folder.file("rel/a.txt", "a")
        folder.write("rel/__MACOSX/._a.txt", bytes: appleDoubleBytes(attributes: [
            ("com.apple.quarantine", Self.quarantine), ("com.apple.provenance", Self.provenance),
        ]))
        folder.file("rel/__MACOSX/.DS_Store", "finder")
        let dry = try await xds("strip", "-r", "-n", "--mac-metadata", "--keep", "quarantine", "rel", in: folder.path)
        #expect(dry.status == 0, "\(dry)")
        #expect(dry.stderr == "xds: rel/__MACOSX: would stay: a ._ file in it holds a kept mark; only the Mac metadata in it would be removed\n",
                "\(dry)")
        #expect(Set(dry.stdout.split(separator: "\n")) == [
            "rel/__MACOSX/.DS_Store: ds-store", "rel/__MACOSX/._a.txt: macos-provenance (appledouble)",
        ], "\(dry)")
        let check = try await xds("check", "--allow", "quarantine", "rel", in: folder.path)
        #expect(check.stderr.isEmpty && !check.stdout.contains("macosx-folder"), "\(check)")
        let strip = try await xds("strip", "-r", "--mac-metadata", "--keep", "quarantine", "rel", in: folder.path)
        #expect(strip.status == 0, "\(strip)")
        #expect(strip.stderr == "xds: rel/__MACOSX: stays: a ._ file in it holds a kept mark; only the Mac metadata in it is removed\n",
                "\(strip)")
        #expect(try await entries(folder.path + "/rel/__MACOSX/._a.txt") == ["com.apple.quarantine"])
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/rel/__MACOSX/.DS_Store"))
        let again = try await xds("check", "--allow", "quarantine", "rel", in: folder.path)
        #expect(again.status == 0 && again.stdout.isEmpty && again.stderr.isEmpty, "\(again)")
    }

    @Test("with sidecars kept, a __MACOSX holding ._ files stays and is named; one holding none goes whole")
    func macOSXStaysForKeptSidecars() async throws {
        let folder = TemporaryFolder()
        folder.folder("rel/__MACOSX")
        folder.folder("rel/other/__MACOSX")
        folder.write("rel/__MACOSX/._a.txt", bytes: appleDoubleBytes(attributes: [("com.apple.FinderInfo", [UInt8](repeating: 1, count: 32)), ("org.example.keep", [1])]))
        folder.file("rel/other/__MACOSX/.DS_Store", "finder")
        let strip = try await xds("strip", "-r", "--mac-metadata", "--keep", "sidecar", "-j", "1", "rel", in: folder.path)
        #expect(strip.status == 0, "\(strip)")
        #expect(strip.stderr == "xds: rel/__MACOSX: stays: the ._ files in it are kept (--keep sidecar); only the Mac metadata in it is removed\n",
                "\(strip)")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/rel/__MACOSX/._a.txt"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/rel/other/__MACOSX"))
    }

    @Test("a .AppleDouble that stays with sidecars kept is named")
    func appleDoubleFolderStays() async throws {
        let folder = TemporaryFolder()
        folder.folder("rel/.AppleDouble")
        folder.file("rel/.AppleDouble/a.txt", "netatalk")
        let strip = try await xds("strip", "-r", "--mac-metadata", "--keep", "sidecar", "rel", in: folder.path)
        #expect(strip.status == 1, "\(strip)")
        #expect(strip.stderr == """
            xds: rel/.AppleDouble: stays: the AppleDouble files in it are kept (--keep sidecar); only the Mac metadata in it is removed
            xds: rel: no mark of where it came from and no Mac metadata

            """, "\(strip)")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/rel/.AppleDouble/a.txt"))
        // Without the allowance it goes whole, and nothing is said of it but as a finding.
        let all = try await xds("strip", "-r", "--mac-metadata", "rel", in: folder.path)
        #expect(all.status == 0 && all.stderr.isEmpty, "\(all)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/rel/.AppleDouble"))
    }

    @Test("a ._NAME named directly holding a kept mark is rewritten to hold only it, as in a walk; -n lists it as check does")
    func namedSidecarHoldingAKeptMark() async throws {
        let folder = TemporaryFolder()
        folder.file("a.png", "png")
        let double = appleDoubleBytes(attributes: [
            ("com.apple.quarantine", Self.quarantine), ("com.apple.provenance", Self.provenance),
            ("com.apple.FinderInfo", [UInt8](repeating: 1, count: 32)),
        ], resourceFork: [UInt8](repeating: 5, count: 300))
        folder.write("._a.png", bytes: double)
        let dry = try await xds("strip", "-n", "--mac-metadata", "--keep", "quarantine", "._a.png", in: folder.path)
        #expect(dry.status == 0, "\(dry)")
        #expect(dry.stdout == "a.png: macos-provenance (appledouble)\na.png: apple-attribute com.apple.FinderInfo\n", "\(dry)")
        // check names it as the walk does, and its fix line is this strip.
        let named = try await xds("check", "--allow", "quarantine", "._a.png", in: folder.path)
        #expect(named.stdout == dry.stdout + "2 found (1 apple-attribute, 1 macos-provenance); to remove them: xds strip -r --mac-metadata --keep quarantine -- ._a.png\n", "\(named)")
        let walked = try await xds("check", "--allow", "quarantine", ".", in: folder.path)
        #expect(walked.stdout.hasPrefix("./a.png: macos-provenance (appledouble)\n./a.png: apple-attribute com.apple.FinderInfo\n"), "\(walked)")
        let strip = try await xds("strip", "--mac-metadata", "--keep", "quarantine", "._a.png", in: folder.path)
        #expect(strip.status == 0 && strip.stderr.isEmpty, "\(strip)")
        #expect(try await entries(folder.path + "/._a.png") == ["com.apple.quarantine"])
        let again = try await xds("check", "--allow", "quarantine", ".", in: folder.path)
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again)")
        // Nothing kept in it: deleted whole, named itself.
        folder.write("._b.png", bytes: appleDoubleBytes(attributes: [("com.apple.provenance", Self.provenance)]))
        let whole = try await xds("strip", "-n", "--mac-metadata", "--keep", "quarantine", "._b.png", in: folder.path)
        #expect(whole.stdout == "._b.png: sidecar\n", "\(whole)")
    }

    @Test("a ._NAME named directly whose NAME is gone keeps its kept mark too (its findings under its own path)")
    func namedOrphanSidecar() async throws {
        let folder = TemporaryFolder()
        folder.write("._gone", bytes: appleDoubleBytes(attributes: [
            ("com.apple.quarantine", Self.quarantine), ("com.apple.provenance", Self.provenance),
        ]))
        let strip = try await xds("strip", "--mac-metadata", "--keep", "quarantine", "._gone", in: folder.path)
        #expect(strip.status == 0, "\(strip)")
        #expect(try await entries(folder.path + "/._gone") == ["com.apple.quarantine"])
        // With sidecars kept, only its Apple attributes and marks go.
        folder.write("._c", bytes: appleDoubleBytes(attributes: [("com.apple.provenance", Self.provenance), ("org.example.keep", [1])]))
        let kept = try await xds("strip", "-n", "--mac-metadata", "--keep", "sidecar", "._c", in: folder.path)
        #expect(kept.stdout == "._c: macos-provenance (appledouble)\n", "\(kept)")
        #expect(try await xds("strip", "--mac-metadata", "--keep", "sidecar", "._c", in: folder.path).status == 0)
        #expect(try await entries(folder.path + "/._c") == ["org.example.keep"])
    }

    @Test("a tar copy keeps the __MACOSX/ folder entries of a ._ entry holding a kept mark; check does not name the folder")
    func tarKeepsTheFolderOfAKeptEntry() async throws {
        let folder = TemporaryFolder()
        folder.folder("t/__MACOSX/sub")
        folder.file("t/a.txt", "a")
        folder.write("t/__MACOSX/sub/._a.txt", bytes: appleDoubleBytes(attributes: [
            ("com.apple.quarantine", Self.quarantine), ("com.apple.provenance", Self.provenance),
        ]))
        func tar(_ name: String) async throws {
            let made = try await run("/usr/bin/tar", ["--format=pax", "--sort=name", "-C", "t", "-cf", name, "__MACOSX", "a.txt"], in: folder.path)
            #expect(made.status == 0, "\(made)")
        }
        try await tar("t.tar")
        let check = try await xds("check", "--allow", "macos-provenance", "t.tar", in: folder.path)
        #expect(check.status == 1, "\(check)")
        #expect(check.stdout.split(separator: "\n").dropLast() == ["t.tar!/sub/a.txt: quarantine (tar)"], "\(check)")
        #expect(try await StripMacArchiveTests.runFix(check, in: folder.path).status == 0)
        let list = try await run("/usr/bin/tar", ["-tf", "t.tar"], in: folder.path)
        #expect(list.status == 0 && list.stderr.isEmpty, "\(list)")
        #expect(list.stdout == "__MACOSX/\n__MACOSX/sub/\n__MACOSX/sub/._a.txt\na.txt\n", "\(list)")
        let again = try await xds("check", "--allow", "macos-provenance", "t.tar", in: folder.path)
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again)")

        // A folder beside it with nothing kept goes, and the __MACOSX is named for it.
        folder.folder("t/__MACOSX/empty")
        folder.file("t/__MACOSX/empty/.DS_Store", "finder")
        try await tar("u.tar")
        let beside = try await xds("check", "--allow", "macos-provenance", "u.tar", in: folder.path)
        #expect(beside.stdout.split(separator: "\n").dropLast() == [
            "u.tar!/__MACOSX: macosx-folder", "u.tar!/sub/a.txt: quarantine (tar)",
        ], "\(beside)")
        #expect(try await xds("strip", "--mac-metadata", "--keep", "macos-provenance", "u.tar", "-o", "c.tar", in: folder.path).status == 0)
        #expect(try await run("/usr/bin/tar", ["-tf", "c.tar"], in: folder.path).stdout
                == "__MACOSX/\n__MACOSX/sub/\n__MACOSX/sub/._a.txt\na.txt\n")
        // Nothing kept under it: the folder entries go, named once.
        let all = try await xds("check", "u.tar", in: folder.path)
        #expect(all.stdout.hasPrefix("u.tar!/__MACOSX: macosx-folder\n1 found"), "\(all)")
        #expect(try await xds("strip", "--mac-metadata", "u.tar", "-o", "d.tar", in: folder.path).status == 0)
        #expect(try await run("/usr/bin/tar", ["-tf", "d.tar"], in: folder.path).stdout == "a.txt\n")
    }

    @Test("strip --help and the man page's source (--experimental-dump-help, what generate-manual reads) warn that --mac-metadata deletes what Macs use")
    func helpWarns() async throws {
        let help = try await xds("strip", "--help")
        #expect(help.status == 0 && help.stdout.contains("IT DELETES WHAT MACS USE: resource forks, Finder tags and comments,"), "\(help)")
        #expect(help.stdout.contains("never for a share that Macs work on"), "\(help)")
        let dump = try await xds("strip", "--experimental-dump-help")
        #expect(dump.stdout.contains("IT DELETES WHAT MACS USE: resource forks, Finder tags and comments, code signatures kept in attributes"))
        #expect(dump.stdout.contains("__MACOSX or .AppleDouble folder that keeps something is named on standard error"))
    }
}
