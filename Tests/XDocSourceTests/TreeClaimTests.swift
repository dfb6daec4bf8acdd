import Foundation
import Testing
import XDSTestSupport
@testable import XDocSource

/// An inspector that claims entries by name (`DocumentSourceTreeInspector/claimsEntry(named:)`,
/// what `xds check` does with `.DS_Store`, `__MACOSX`, a link named `._x`): claimed entries are
/// handed over whole with their type (links not followed), never walked into; declined ones are
/// walked as before; a root is claimed by its last component; ClaimedEntry.remove() deletes
/// without following links.
@Suite("DocumentSourceTree: entries claimed by name")
struct TreeClaimTests {
    struct Claimer: DocumentSourceTreeInspector {
        var remove = false
        var claimsEntries: Bool { true }
        func claimsEntry(named name: ArraySlice<UInt8>) -> Bool { name.first == UInt8(ascii: ".") || name.first == UInt8(ascii: "_") }
        func inspect(claimed entry: DocumentSourceTree.ClaimedEntry) throws(DocumentSourceFileError) -> DocumentSourceTree.Claim<String> {
            // A regular `._` file is declined: it goes with its owner, as sidecars do.
            if entry.name.starts(with: Array("._".utf8)), entry.type == .file, !entry.isRoot { return .declined }
            if remove { _ = try entry.remove() }
            return .taken("claimed \(entry.path.lossyString) \(entry.type) root=\(entry.isRoot)")
        }
        func inspect(_ entry: DocumentSourceTree.InspectedEntry) throws(DocumentSourceFileError) -> String? {
            "entry \(entry.path.lossyString) sidecar=\(entry.sidecarName.map { String(decoding: $0, as: UTF8.self) } ?? "-")"
        }
    }

    func walk(_ roots: [String], _ inspector: Claimer, jobs: Int = 1) -> [String] {
        var seen: [String] = []
        DocumentSourceTree(roots: roots, jobs: jobs).walk(inspecting: inspector) { event in
            if case .inspected(let text) = event { seen.append(text) }
            return .proceed
        }
        return seen.sorted()
    }

    func tree() -> (TemporaryFolder, String, String) {
        let folder = TemporaryFolder()
        let root = folder.folder("r")
        folder.folder("r/__MACOSX/deep")
        folder.file("r/__MACOSX/deep/._x")
        folder.file("r/a")
        folder.write("r/._a", bytes: appleDoubleBytes(attributes: []))
        folder.file("r/.DS_Store")
        let outside = folder.file("outside", "keep me")
        try! FileManager.default.createSymbolicLink(atPath: root + "/._link", withDestinationPath: outside)
        return (folder, root, outside)
    }

    @Test(arguments: [1, 2])
    func claimedWholeDeclinedWalked(jobs: Int) {
        let (folder, root, _) = tree()
        defer { withExtendedLifetime(folder) {} }
        #expect(walk([root], Claimer(), jobs: jobs) == [
            "claimed \(root)/.DS_Store file root=false", "claimed \(root)/._link link root=false",
            "claimed \(root)/__MACOSX folder root=false", "entry \(root)/a sidecar=._a",
        ])
        #expect(walk([root + "/.DS_Store", root + "/__MACOSX/"], Claimer()) == [
            "claimed \(root)/.DS_Store file root=true", "claimed \(root)/__MACOSX/ folder root=true",
        ])
    }

    @Test func removeDeletesWithoutFollowing() throws {
        let (folder, root, outside) = tree()
        defer { withExtendedLifetime(folder) {} }
        _ = walk([root], Claimer(remove: true))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).sorted() == ["._a", "a"])
        #expect(FileManager.default.contents(atPath: outside) == Data("keep me".utf8))
    }
}
