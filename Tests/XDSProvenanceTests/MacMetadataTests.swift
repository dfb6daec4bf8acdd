import Foundation
import Testing
import XDSProvenance
import XDSTestSupport
@testable import XDocSource

/// The closed list of Mac metadata (SPEC §6 "Before publishing") and the selection words.
@Suite struct MacMetadataTests {
    func apple(_ name: String) -> Bool { MacMetadata.isAppleAttribute(attributeName: Array(name.utf8)) }

    @Test func appleAttributesWhateverTheirRoadButNeverAMark() {
        for name in [
            "user.com.apple.FinderInfo", "osx.com.apple.ResourceFork", "com.apple.metadata:_kMDItemUserTags",
            "user.DosStream.com.apple.metadata\u{F022}_kMDItemUserTags:$DATA", "user.DosStream.AFP_AfpInfo:$DATA",
            "user.DosStream.AFP_Resource:$DATA", "user.org.netatalk.Metadata", "user.org.netatalk.ResourceFork",
            "user.com.apple.macl", "user.com.apple.cs.CodeSignature",
        ] {
            #expect(apple(name), "\(name)")
            #expect(Array(name.utf8).withUnsafeBufferPointer { MacMetadata.mayBeAppleAttribute(attributeName: $0) }, "\(name)")
        }
        // Marks are marks only; other attributes are not Mac metadata.
        for name in [
            "user.com.apple.quarantine", "user.com.apple.provenance", "com.apple.metadata:kMDItemWhereFroms",
            "user.DosStream.com.apple.lastuseddate#PS:$DATA", "user.mime_type", "user.xdg.tags", "security.selinux",
            "user.com.apple.", "user.org.netatalk.Other", "user.DosStream.AFP_Other:$DATA",
        ] {
            #expect(!apple(name), "\(name)")
        }
        #expect(MacMetadata.isAppleAttribute(plainName: Array("com.apple.FinderInfo".utf8)))
        #expect(!MacMetadata.isAppleAttribute(plainName: Array("com.apple.quarantine".utf8)))
        #expect(!MacMetadata.isAppleAttribute(plainName: Array("user.com.apple.FinderInfo".utf8)))
    }

    @Test func namesInAndOut() {
        func what(_ name: String) -> MacMetadata.What? { MacMetadata.what(fileName: Array(name.utf8)) }
        #expect(what("._a.png") == .sidecar)
        #expect(what("a.png:Zone.Identifier") == .zoneFile)
        #expect(what(".DS_Store") == .dsStore)
        #expect(what("__MACOSX") == .macOSXFolder)
        #expect(what(".AppleDouble") == .appleDoubleFolder)
        for name in ["._", ":Zone.Identifier", "a.png", ".gitignore", "a.png:zone.identifier"] + MacMetadata.notMacMetadata {
            #expect(what(name) == nil, "\(name)")
        }
        #expect(MacMetadata.what(entryPath: Array("__MACOSX/dir/._a".utf8)) == .macOSXFolder)
        #expect(MacMetadata.what(entryPath: Array("dir/._a".utf8)) == .sidecar)
        #expect(MacMetadata.what(entryPath: Array("dir/a".utf8)) == nil)
        for name in ["._a", ".DS_Store", "__MACOSX", ".AppleDouble", "a:Zone.Identifier"] {
            #expect(MacMetadata.mayBeMacName(Array(name.utf8)))
        }
        #expect(!MacMetadata.mayBeMacName(Array("README".utf8)))
    }

    @Test func paxKeywords() {
        func what(_ keyword: String) -> MacMetadata.What? { MacMetadata.what(paxKeyword: Array(keyword.utf8)) }
        for keyword in ["LIBARCHIVE.creationtime", "LIBARCHIVE.symlinktype", "SCHILY.fflags", "SCHILY.dev", "SCHILY.ino",
                        "SCHILY.nlink", "LIBARCHIVE.xattr.user.keep"] {
            #expect(what(keyword) == .paxRecord, "\(keyword)")
        }
        #expect(what("LIBARCHIVE.xattr.com.apple.quarantine") == .mark)
        #expect(what("SCHILY.xattr.com.apple.provenance") == .mark)
        #expect(what("SCHILY.xattr.com.apple.FinderInfo") == .appleAttribute)
        #expect(what("LIBARCHIVE.xattr.com.apple.FinderInfo") == .appleAttribute)
        for keyword in ["SCHILY.xattr.user.keep", "path", "mtime", "GNU.sparse.size", "SCHILY.acl.access"] {
            #expect(what(keyword) == nil, "\(keyword)")
        }
        #expect(MacMetadata.schilyKeyword(forLibarchive: Array("LIBARCHIVE.xattr.user.a%3Db".utf8)) == Array("SCHILY.xattr.user.a=b".utf8))
        #expect(MacMetadata.isMacPaxKeyword(Array("SCHILY.fflags".utf8)))
        #expect(!MacMetadata.isMacPaxKeyword(Array("SCHILY.xattr.x".utf8)))
    }

    @Test func theTableIsOneClosedList() {
        #expect(Set(MacMetadata.table.map(\.what)) == Set(MacMetadata.What.selectable))
        #expect(MacMetadata.table.allSatisfy { !$0.source.isEmpty })
    }

    @Test func selectionWords() throws {
        #expect(try MacMetadataSelection(only: [], keep: []) == .everything)
        let kept = try MacMetadataSelection(only: [], keep: ["x-document-source,sidecar"])
        #expect(!kept.removes(.xDocumentSource) && kept.removes(.quarantine))
        #expect(!kept.removes(.sidecar) && kept.removes(.dsStore))
        // zone-file is kind zone-identifier in store zone-file.
        let noZone = try MacMetadataSelection(only: [], keep: ["zone-identifier"])
        #expect(!noZone.removes(.zoneFile))
        let filesOnly = try MacMetadataSelection(only: ["zone-file"], keep: [])
        #expect(filesOnly.removes(.zoneFile) && !filesOnly.removes(.zoneIdentifier))
        #expect(throws: MacMetadataSelection.WordError.unknown("mark")) { try MacMetadataSelection(only: ["mark"], keep: []) }
        #expect(throws: MacMetadataSelection.WordError.unknown("")) { try MacMetadataSelection(only: [], keep: ["sidecar,"]) }
        #expect(throws: MacMetadataSelection.WordError.both("sidecar")) {
            try MacMetadataSelection(only: ["sidecar"], keep: ["sidecar"])
        }
    }
}
