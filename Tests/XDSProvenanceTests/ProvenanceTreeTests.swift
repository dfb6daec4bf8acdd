import Foundation
import Testing
import XDSProvenance
import XDSTestSupport
@testable import XDocSource

/// `ProvenanceTree`: every mark under a folder, on real attributes, sidecars and zone files,
/// orphans under their own path; strip -r leaves nothing behind and everything else as it was.
@Suite struct ProvenanceTreeTests {
    func set(_ path: String, _ name: String, _ value: [UInt8]) {
        try! ExtendedAttributes.setValue(value, named: name, atPath: path, followSymlinks: true)
    }

    func contents(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    /// A tree with marks in every store, orphans, a link, an archive and unmarked files.
    func makeTree(_ folder: TemporaryFolder) -> String {
        let root = folder.folder("root")
        folder.folder("root/sub/deeper")
        set(folder.file("root/a.dmg"), "user.com.apple.quarantine", MarkBytes.exiftoolQuarantine)
        set(folder.path + "/root/a.dmg", "user.mime_type", Array("x/y".utf8))
        set(folder.file("root/sub/b.txt"), "user.xdg.origin.url", Array("https://example.com/b.txt".utf8))
        set(root + "/sub", "user.xdg.referrer.url", Array("https://example.com/".utf8))
        folder.file("root/sub/deeper/c.pdf")
        folder.write("root/sub/deeper/._c.pdf", bytes: appleDoubleBytes(attributes: [
            ("com.apple.lastuseddate#PS", MarkBytes.exiftoolLastUsedDate), ("com.apple.FinderInfo-like", [1, 2, 3]),
        ]))
        folder.file("root/sub/deeper/d.exe")
        folder.write("root/sub/deeper/d.exe:Zone.Identifier", bytes: MarkBytes.zoneIdentifier)
        folder.write("root/._gone.txt", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", MarkBytes.exiftoolQuarantine)]))
        folder.write("root/gone.zip:Zone.Identifier", bytes: MarkBytes.zoneIdentifier)
        folder.file("root/plain.txt")
        folder.file("root/pack.zip", "not really a zip")
        try! FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: folder.path + "/root/a.dmg")
        return root
    }

    func found(_ root: String, jobs: Int) -> [String] {
        var lines: [String] = []
        var problems: [String] = []
        ProvenanceTree(roots: [root], jobs: jobs).walk { event in
            switch event {
            case .found(let found):
                let path = String(found.path.lossyString.dropFirst(root.count))
                lines.append("\(path)\(found.isOrphan ? " (orphan)" : ""): " + found.marks.map { "\($0.kind) (\($0.store))" }.joined(separator: ", "))
            case .problem(let problem): problems.append(problem.message)
            case .progress: break
            }
            return .proceed
        }
        #expect(problems.isEmpty)
        return lines.sorted()
    }

    @Test(arguments: [1, 2])
    func everyMarkUnderAFolder(jobs: Int) {
        let folder = TemporaryFolder()
        let root = makeTree(folder)
        #expect(found(root, jobs: jobs) == [
            "/._gone.txt (orphan): quarantine (appledouble)",
            "/a.dmg: quarantine (xattr)",
            "/gone.zip:Zone.Identifier (orphan): zone-identifier (zone-file)",
            "/sub/b.txt: xdg (xattr)",
            "/sub/deeper/c.pdf: last-used-date (appledouble)",
            "/sub/deeper/d.exe: zone-identifier (zone-file)",
            "/sub: xdg (xattr)",
        ])
    }

    @Test func rootsThatAreFilesAndMarkedFolders() {
        let folder = TemporaryFolder()
        let root = makeTree(folder)
        set(root, "user.com.apple.provenance", [1, 2, 0, 0xD5])
        var found: [String] = []
        ProvenanceTree(roots: [root + "/a.dmg", root + "/sub/deeper/d.exe", root + "/link"]).walk { event in
            if case .found(let record) = event { found.append("\(record.path.lossyString.dropFirst(root.count)): \(record.marks.map(\.kind))") }
            return .proceed
        }
        // File roots (a link named as a root is followed), each with its zone file.
        #expect(found == ["/a.dmg: [quarantine]", "/sub/deeper/d.exe: [zone-identifier]", "/link: [quarantine]"])
        // The root folder's own mark comes with the rest.
        #expect(self.found(root, jobs: 1).contains(": macos-provenance (xattr)"))
    }

    @Test func archivesAreHandedOver() {
        let folder = TemporaryFolder()
        let root = makeTree(folder)
        var archives: [String] = []
        ProvenanceTree(roots: [root]).walk(archives: { path in
            archives.append(path.lossyString)
            return .proceed
        }) { _ in .proceed }
        #expect(archives == [root + "/pack.zip"])
    }

    @Test func dryRunChangesNothingAndStripLeavesNothing() throws {
        let folder = TemporaryFolder()
        let root = makeTree(folder)
        let listing = { try FileManager.default.subpathsOfDirectory(atPath: root).sorted() }
        let before = try listing()
        var wouldGo: [String] = []
        ProvenanceTree(roots: [root]).strip(Set(ProvenanceKind.allCases), dryRun: true) { event in
            if case .found(let stripped) = event {
                wouldGo += stripped.locations.map { "\(stripped.path.lossyString.dropFirst(root.count)): \($0.kind) (\($0.store))" }
            }
            return .proceed
        }
        #expect(wouldGo.count == 7)
        #expect(try listing() == before)
        #expect(found(root, jobs: 1).count == 7)

        var problems: [String] = []
        var stripped = 0
        ProvenanceTree(roots: [root], jobs: 2).strip(Set(ProvenanceKind.allCases), dryRun: false) { event in
            if case .found = event { stripped += 1 }
            if case .problem(let problem) = event { problems.append(problem.message) }
            return .proceed
        }
        #expect(problems.isEmpty && stripped == 7)
        #expect(found(root, jobs: 1).isEmpty)
        // What is not a mark stays: the other attribute, the sidecar's other entry (byte-exact),
        // the files; zone files and sidecars holding only marks are gone.
        #expect(try rawAttribute("user.mime_type", root + "/a.dmg") == Array("x/y".utf8))
        #expect(contents(root + "/sub/deeper/._c.pdf") == appleDoubleBytes(attributes: [("com.apple.FinderInfo-like", [1, 2, 3])]))
        #expect(try listing() == before.filter { !$0.hasSuffix(":Zone.Identifier") && $0 != "._gone.txt" })
    }

    func rawAttribute(_ name: String, _ path: String) throws -> [UInt8]? {
        try ExtendedAttributes.value(named: name, atPath: path, followSymlinks: true)
    }
}
