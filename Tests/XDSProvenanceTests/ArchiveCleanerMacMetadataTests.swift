import Testing
@testable import XDSProvenance
import XDocSourceArchive

/// Which archive entries `strip --mac-metadata ARCHIVE -o` leaves out by name, and what
/// `check` names for them (SPEC §6 "Before publishing"): ArchiveCleaner's entry rule.
@Suite struct ArchiveCleanerMacMetadataTests {
    enum Rule: Equatable { case copy, drop, unlessHolding }

    static func rule(_ name: String, folder: Bool = false, _ selection: MacMetadataSelection = .everything) -> Rule {
        switch ArchiveCleaner.entryRule(selection, name: Array(name.utf8), isFolder: folder) {
        case .copy: .copy
        case .drop: .drop
        case .dropUnlessHolding: .unlessHolding
        }
    }

    @Test func entriesByName() throws {
        for name in ["__MACOSX/", "__MACOSX/a/._b", "__MACOSX/a/plain", "a/._b", "a/.DS_Store", "a/.AppleDouble/x", "._d/x", "sub/__MACOSX/._c", "a/b:Zone.Identifier"] {
            #expect(Self.rule(name) == .drop, "\(name)")
        }
        #expect(Self.rule("a/.AppleDouble", folder: true) == .drop)
        #expect(Self.rule("a/b:Zone.Identifier", folder: true) == .copy)
        for name in ["a/b", "a/.Spotlight-V100/x", "._", "a/Icon\r", "__MACOSXY/._"] {
            #expect(Self.rule(name) == .copy, "\(name)")
        }
        // A kept kind: ._ files are read (one holding a kept mark stays); folders still go whole.
        let keepOne = try MacMetadataSelection(only: [], keep: ["macos-provenance"])
        #expect(Self.rule("a/._b", keepOne) == .unlessHolding)
        #expect(Self.rule("__MACOSX/a/._b", keepOne) == .unlessHolding)
        #expect(Self.rule("__MACOSX/a/", folder: true, keepOne) == .drop)
        #expect(Self.rule("a/._b", folder: true, keepOne) == .drop)
        // Words kept: the entry stays (a ._ one still loses its marks and Apple attributes).
        let sidecars = try MacMetadataSelection(only: [], keep: ["sidecar"])
        #expect(Self.rule("a/._b", sidecars) == .copy)
        #expect(Self.rule("__MACOSX/a/._b", sidecars) == .drop)
        let macOSX = try MacMetadataSelection(only: [], keep: ["macosx-folder"])
        #expect(Self.rule("__MACOSX/a/._b", macOSX) == .copy)
        #expect(Self.rule("a/.DS_Store", try MacMetadataSelection(only: [], keep: ["ds-store"])) == .copy)
        // Marks alone (strip without --mac-metadata): no entry rule at all.
        #expect(ArchiveCleaner.macMetadataFilter(MacMetadataSelection(kinds: [.quarantine], whats: [])).entryRule == nil)
    }

    @Test func whatADroppedEntryIsCalled() {
        func named(_ path: String) -> String {
            let (member, what) = ArchiveCleaner.macMetadataEntry(Array(path.utf8), .everything)
            return String(decoding: member, as: UTF8.self) + ": " + what.rawValue
        }
        #expect(named("__MACOSX/a/._b") == "__MACOSX: macosx-folder")
        #expect(named("x/__MACOSX/") == "x/__MACOSX: macosx-folder")
        #expect(named("a/.AppleDouble/b") == "a/.AppleDouble: appledouble-folder")
        #expect(named("a/._b") == "a/._b: sidecar")
        #expect(named("._d/x") == "._d: sidecar")
        #expect(named("a/.DS_Store") == "a/.DS_Store: ds-store")
        #expect(named("a/b:Zone.Identifier") == "a/b:Zone.Identifier: zone-file")
        #expect(Self.rule("a/b:Zone.Identifier", try! MacMetadataSelection(only: [], keep: ["zone-identifier"])) == .copy)
    }

    @Test func paxKeywordsUnderTheSelection() throws {
        let filter = ArchiveCleaner.macMetadataFilter(.everything)
        for keyword in ["LIBARCHIVE.creationtime", "SCHILY.fflags", "SCHILY.dev", "SCHILY.ino", "SCHILY.nlink", "LIBARCHIVE.symlinktype",
                        "SCHILY.xattr.com.apple.FinderInfo", "LIBARCHIVE.xattr.user.com.apple.ResourceFork",
                        "SCHILY.xattr.com.apple.quarantine", "LIBARCHIVE.xattr.com.apple.provenance"] {
            #expect(filter.dropsPaxKeyword(Array(keyword.utf8)), "\(keyword)")
        }
        // Rewritten by the copier, not dropped by name; POSIX's and GNU tar's kept.
        for keyword in ["LIBARCHIVE.xattr.user.keep", "SCHILY.xattr.user.keep", "path", "mtime", "GNU.sparse.size"] {
            #expect(!filter.dropsPaxKeyword(Array(keyword.utf8)), "\(keyword)")
        }
        #expect(filter.rewritesLibarchiveXattr)
        // A LIBARCHIVE.xattr. name with a malformed escape is a pax record too (libarchive skips it, GNU tar warns).
        #expect(MacMetadata.what(paxKeyword: Array("LIBARCHIVE.xattr.a%zz".utf8)) == .paxRecord)
        let kept = ArchiveCleaner.macMetadataFilter(try MacMetadataSelection(only: [], keep: ["pax-record", "quarantine"]))
        #expect(!kept.dropsPaxKeyword(Array("SCHILY.fflags".utf8)) && !kept.rewritesLibarchiveXattr)
        #expect(!kept.dropsPaxKeyword(Array("SCHILY.xattr.com.apple.quarantine".utf8)))
        #expect(kept.dropsAttribute("com.apple.FinderInfo") && !kept.dropsAttribute("com.apple.quarantine"))
    }
}
