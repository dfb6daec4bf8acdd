import Foundation
import Testing
import XDSProvenance
import XDSTestSupport
@testable import XDocSource
@testable import XDSWalk

/// `MacMetadataTree`: the findings of `check` and what `strip --mac-metadata` removes, on real
/// attributes, sidecars, zone files, links and folders in temporary folders.
@Suite struct MacMetadataTreeTests {
    static let quarantine = Array("0083;5fad2a2e;Safari;".utf8)
    static let source: [UInt8] = {
        // A minimal binary plist dictionary is enough for a mark's name to count; the value is not decoded here.
        Array("bplist00".utf8) + [0xD0, 0x08, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9]
    }()

    func set(_ path: String, _ name: String, _ value: [UInt8]) {
        try! ExtendedAttributes.setValue(value, named: name, atPath: path, followSymlinks: true)
    }

    func makeTree(_ folder: TemporaryFolder) -> (root: String, outside: String) {
        let root = folder.folder("root")
        folder.folder("root/sub")
        folder.folder("root/__MACOSX/sub")
        folder.folder("root/.AppleDouble")
        folder.folder("root/.Spotlight-V100")
        let a = folder.file("root/a.png")
        set(a, "user.com.apple.quarantine", Self.quarantine)
        set(a, "user.com.apple.FinderInfo", [UInt8](repeating: 0, count: 32))
        set(a, "user.mime_type", Array("image/png".utf8))
        folder.write("root/._a.png", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", Self.quarantine)]))
        folder.write("root/a.png:Zone.Identifier", bytes: Array("[ZoneTransfer]\r\nZoneId=3\r\n".utf8))
        folder.write("root/._gone", bytes: appleDoubleBytes(attributes: []))
        folder.write("root/gone:Zone.Identifier", bytes: Array("[ZoneTransfer]\r\nZoneId=3\r\n".utf8))
        folder.file("root/.DS_Store")
        folder.file("root/__MACOSX/sub/._b")
        folder.file("root/.AppleDouble/a.png")
        folder.file("root/.Spotlight-V100/store")
        folder.file("root/Icon\r")
        let c = folder.file("root/sub/c.txt")
        set(c, "user.DosStream.AFP_AfpInfo:$DATA", [UInt8](repeating: 0, count: 61))
        set(c, "user.DosStream.com.apple.lastuseddate#PS:$DATA", [UInt8](repeating: 1, count: 17))
        let outside = folder.file("outside.txt", "outside")
        try! FileManager.default.createSymbolicLink(atPath: root + "/sub/.DS_Store", withDestinationPath: outside)
        try! FileManager.default.createSymbolicLink(atPath: root + "/sub/._link", withDestinationPath: outside)
        return (root, outside)
    }

    func lines(_ tree: MacMetadataTree, dryRun: Bool = true, root: String) -> [String] {
        var lines: [String] = []
        var problems: [String] = []
        tree.walk(dryRun: dryRun) { event in
            switch event {
            case .found(let record):
                for finding in record.findings {
                    var line = String(finding.path.lossyString.dropFirst(root.count)) + ": " + finding.what.rawValue
                    if let kind = finding.kind, let store = finding.store { line += " \(kind) (\(store))" }
                    if let name = finding.name { line += " " + name }
                    lines.append(line)
                }
            case .problem(let problem): problems.append(problem.message)
            case .progress: break
            }
            return .proceed
        }
        #expect(problems.isEmpty, "\(problems)")
        return lines.sorted()
    }

    @Test(arguments: [1, 2])
    func everythingInTheListAndNothingElse(jobs: Int) {
        let folder = TemporaryFolder()
        let (root, _) = makeTree(folder)
        let found = lines(MacMetadataTree(roots: [root], jobs: jobs, selection: .everything), root: root)
        #expect(found == [
            "/.AppleDouble: appledouble-folder", "/.DS_Store: ds-store", "/._a.png: sidecar", "/._gone: sidecar",
            "/__MACOSX: macosx-folder", "/a.png: apple-attribute user.com.apple.FinderInfo",
            "/a.png: mark quarantine (xattr)", "/a.png:Zone.Identifier: zone-file", "/gone:Zone.Identifier: zone-file",
            "/sub/.DS_Store: ds-store", "/sub/._link: sidecar", "/sub/c.txt: apple-attribute user.DosStream.AFP_AfpInfo:$DATA",
            "/sub/c.txt: mark last-used-date (samba-stream)",
        ])
    }

    @Test func stripRemovesItAllAndNothingElse() throws {
        let folder = TemporaryFolder()
        let (root, outside) = makeTree(folder)
        let removed = lines(MacMetadataTree(roots: [root], jobs: 2, selection: .everything), dryRun: false, root: root)
        #expect(removed.count == 13)
        #expect(lines(MacMetadataTree(roots: [root], selection: .everything), root: root).isEmpty)
        let left = try FileManager.default.subpathsOfDirectory(atPath: root).sorted()
        #expect(left == [".Spotlight-V100", ".Spotlight-V100/store", "Icon\r", "a.png", "sub", "sub/c.txt"])
        #expect(FileManager.default.contents(atPath: outside) == Data("outside".utf8))
        #expect(try ExtendedAttributes.value(named: "user.mime_type", atPath: root + "/a.png", followSymlinks: false) != nil)
    }

    @Test func keptSidecarsLoseTheirMarksAndAppleEntries() throws {
        let folder = TemporaryFolder()
        folder.file("a.png")
        folder.write("._a.png", bytes: appleDoubleBytes(attributes: [
            ("com.apple.quarantine", Self.quarantine), ("com.apple.FinderInfo", [1]), ("org.example.keep", [2]),
        ]))
        let selection = try MacMetadataSelection(only: [], keep: ["sidecar"])
        let tree = MacMetadataTree(roots: [folder.path + "/a.png"], selection: selection)
        #expect(lines(tree, root: folder.path) == ["/a.png: apple-attribute com.apple.FinderInfo", "/a.png: mark quarantine (appledouble)"])
        _ = lines(tree, dryRun: false, root: folder.path)
        let double = try AppleDouble(bytes: [UInt8](FileManager.default.contents(atPath: folder.path + "/._a.png")!))
        #expect(double.attributes.map(\.name) == ["org.example.keep"])
        #expect(lines(tree, root: folder.path).isEmpty)
    }

    @Test func aSidecarHoldingAKeptMarkIsRewrittenToHoldOnlyThat() throws {
        let folder = TemporaryFolder()
        folder.file("a.png")
        folder.write("._a.png", bytes: appleDoubleBytes(
            attributes: [("x-document-source", Self.source), ("com.apple.quarantine", Self.quarantine), ("com.apple.FinderInfo", [1])],
            resourceFork: oneResourceFork))
        folder.folder("__MACOSX")
        folder.write("__MACOSX/._b", bytes: appleDoubleBytes(attributes: [("x-document-source", Self.source)]))
        folder.write("__MACOSX/._c", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", Self.quarantine)]))
        let selection = try MacMetadataSelection(only: [], keep: ["x-document-source"])
        let tree = MacMetadataTree(roots: [folder.path], selection: selection)
        #expect(lines(tree, root: folder.path) == [
            "/__MACOSX/._c: sidecar", "/a.png: apple-attribute com.apple.FinderInfo", "/a.png: mark quarantine (appledouble)",
        ])
        _ = lines(tree, dryRun: false, root: folder.path)
        let double = try AppleDouble(bytes: [UInt8](FileManager.default.contents(atPath: folder.path + "/._a.png")!))
        #expect(double.attributes.map(\.name) == ["x-document-source"])
        #expect(FileManager.default.fileExists(atPath: folder.path + "/__MACOSX/._b"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/__MACOSX/._c"))
        #expect(lines(tree, root: folder.path).isEmpty)
        // Without the allowance they are all Mac metadata again.
        #expect(lines(MacMetadataTree(roots: [folder.path], selection: .everything), root: folder.path) == [
            "/._a.png: sidecar", "/__MACOSX: macosx-folder",
        ])
    }

    @Test("a __MACOSX that stays is told once, with why, dry or not; one with nothing kept goes whole", arguments: [1, 2])
    func aFolderThatStaysIsTold(jobs: Int) throws {
        let folder = TemporaryFolder()
        folder.folder("__MACOSX/sub")
        folder.write("__MACOSX/sub/._b", bytes: appleDoubleBytes(attributes: [("x-document-source", Self.source), ("com.apple.FinderInfo", [1])]))
        folder.folder("other/__MACOSX")
        folder.write("other/__MACOSX/._c", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", Self.quarantine)]))
        let selection = try MacMetadataSelection(only: [], keep: ["x-document-source"])
        for dryRun in [true, false] {
            var stays: [MacMetadataFolderStay] = []
            MacMetadataTree(roots: [folder.path], jobs: jobs, selection: selection).walk(dryRun: dryRun) { event in
                if case .found(let record) = event { stays += record.stays }
                return .proceed
            }
            #expect(stays == [MacMetadataFolderStay(folder: DocumentSourceTreePath(folder.path + "/__MACOSX"), what: .macOSXFolder, reason: .keptMark)])
        }
        #expect(try AppleDouble(bytes: [UInt8](FileManager.default.contents(atPath: folder.path + "/__MACOSX/sub/._b")!)).attributes.map(\.name)
                == ["x-document-source"])
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/other/__MACOSX"))
    }

    @Test func namesOnlyReadsNoAttributes() {
        let folder = TemporaryFolder()
        let (root, _) = makeTree(folder)
        let found = lines(MacMetadataTree(roots: [root], jobs: 2, selection: .everything, namesOnly: true), root: root)
        #expect(found == [
            "/.AppleDouble: appledouble-folder", "/.DS_Store: ds-store", "/._a.png: sidecar", "/._gone: sidecar",
            "/__MACOSX: macosx-folder", "/a.png:Zone.Identifier: zone-file", "/gone:Zone.Identifier: zone-file",
            "/sub/.DS_Store: ds-store", "/sub/._link: sidecar",
        ])
    }

    @Test func withoutRecursionEachRootAlone() {
        let folder = TemporaryFolder()
        let (root, _) = makeTree(folder)
        #expect(lines(MacMetadataTree(roots: [root + "/sub"], selection: .everything, recursive: false), root: root).isEmpty)
        #expect(lines(MacMetadataTree(roots: [root + "/a.png", root + "/.DS_Store"], selection: .everything, recursive: false), root: root) == [
            "/.DS_Store: ds-store", "/._a.png: sidecar", "/a.png: apple-attribute user.com.apple.FinderInfo",
            "/a.png: mark quarantine (xattr)", "/a.png:Zone.Identifier: zone-file",
        ])
    }
}
