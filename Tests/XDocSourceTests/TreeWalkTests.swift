import Foundation
import Testing
import XDSTestSupport
@testable import XDocSource
@testable import XDSWalk

/// `DocumentSourceTree` on real trees in temporary folders.
@Suite("DocumentSourceTree walks")
struct TreeWalkTests {
    /// Every event of a walk over `roots`, in order.
    func events(_ roots: [String], _ onEvent: (DocumentSourceTree.Event) -> Void = { _ in }) -> [DocumentSourceTree.Event] {
        var all: [DocumentSourceTree.Event] = []
        DocumentSourceTree(roots: roots).walk { event in
            all.append(event)
            onEvent(event)
            return .proceed
        }
        return all
    }

    func found(_ events: [DocumentSourceTree.Event]) -> [String: DocumentSourceTree.Found] {
        var result: [String: DocumentSourceTree.Found] = [:]
        for case .found(let f) in events { result[f.path.lossyString] = f }
        return result
    }

    func problems(_ events: [DocumentSourceTree.Event]) -> [DocumentSourceTree.Problem] {
        events.compactMap { if case .problem(let p) = $0 { p } else { nil } }
    }

    func value(_ name: String) throws -> [UInt8] {
        try DocumentSource(identifier: "com.example.\(name)", name: name).binaryPropertyList()
    }

    @Test func findsEveryStoreAndSkipsLinksSidecarsAndDSStore() throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("root")
        _ = tmp.folder("root/a/b/c")
        _ = tmp.folder("root/tagged-dir")
        _ = tmp.folder("root/sidecar-dir")
        try setRawAttribute("user.x-document-source", try value("native"), on: tmp.file("root/a/native.txt"))
        try setRawAttribute("user.DosStream.x-document-source:$DATA", try value("samba") + [0], on: tmp.file("root/a/b/samba.txt"))
        tmp.file("root/a/b/c/side.txt")
        tmp.write("root/a/b/c/._side.txt", bytes: appleDoubleBytes(attributes: [("x-document-source", try value("side"))]))
        tmp.write("root/._sidecar-dir", bytes: appleDoubleBytes(attributes: [("x-document-source", try value("dirside"))]))
        try setRawAttribute("user.x-document-source", try value("dir"), on: root + "/tagged-dir")
        try setRawAttribute("user.other", [1, 2], on: tmp.file("root/a/untagged.txt"))
        tmp.file("root/plain.txt")
        tmp.write("root/.DS_Store", bytes: [0, 0, 0, 1])
        tmp.write("root/._orphan", bytes: appleDoubleBytes(attributes: [("x-document-source", try value("orphan"))]))
        // A symlinked folder (a loop back to the root) and a link to a tagged file: neither followed.
        try FileManager.default.createSymbolicLink(atPath: root + "/a/loop", withDestinationPath: root)
        try FileManager.default.createSymbolicLink(atPath: root + "/link.txt", withDestinationPath: root + "/a/native.txt")

        let all = events([root])
        let byPath = found(all)
        #expect(Set(byPath.keys) == [
            root + "/a/native.txt", root + "/a/b/samba.txt", root + "/a/b/c/side.txt",
            root + "/tagged-dir", root + "/sidecar-dir", root + "/._orphan",
        ])
        // A sidecar whose file is gone is reported under its own path (remove -r clears it).
        #expect(byPath[root + "/._orphan"]?.isOrphanSidecar == true)
        #expect(byPath[root + "/._orphan"]?.stored.source.name == "orphan")
        #expect(byPath[root + "/a/native.txt"]?.isOrphanSidecar == false)
        #expect(byPath[root + "/a/native.txt"]?.stored.store == .xattr)
        #expect(byPath[root + "/a/b/samba.txt"]?.stored.store == .sambaStream)
        #expect(byPath[root + "/a/b/samba.txt"]?.stored.source.name == "samba")
        #expect(byPath[root + "/a/b/c/side.txt"]?.stored.store == .appleDouble)
        #expect(byPath[root + "/a/b/c/side.txt"]?.sidecar?.lossyString == root + "/a/b/c/._side.txt")
        #expect(byPath[root + "/tagged-dir"]?.isFolder == true)
        #expect(byPath[root + "/sidecar-dir"]?.stored.source.name == "dirside")
        #expect(problems(all).isEmpty)
        if case .progress = all.last { Issue.record("no progress expected for a tiny tree") }
    }

    @Test func oddNamesKeepTheirBytes() throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("odd")
        let names: [[UInt8]] = [Array("new\nline".utf8), [0x62, 0x61, 0x64, 0xFF, 0xFE], Array("ü \\x{ff}".utf8)]
        for (index, name) in names.enumerated() {
            // Tagged under a UTF-8 name, then renamed to the odd bytes.
            let plain = tmp.file("odd/plain\(index)")
            try setRawAttribute("user.x-document-source", try value("odd"), on: plain)
            let renamed = TreeWalker.withCName(Array((root + "/").utf8) + name) { rename(plain, $0) }
            #expect(renamed == 0)
        }
        var seen: [DocumentSourceTreePath] = []
        for case .found(let f) in events([root]) { seen.append(f.path) }
        #expect(Set(seen.map(\.bytes)) == Set(names.map { Array((root + "/").utf8) + $0 }))
        let bad = try #require(seen.first { $0.string == nil })
        #expect(bad.visible == root + "/bad\\x{ff}\\x{fe}")
        #expect(bad.json == "\"" + root + "/bad\\udcff\\udcfe\"")
        let newline = try #require(seen.first { $0.string?.contains("\n") == true })
        #expect(newline.visible == root + "/new\\nline")
        #expect(newline.json == "\"" + root + "/new\\nline\"")
        let backslash = try #require(seen.first { $0.string?.hasSuffix("}") == true })
        #expect(backslash.visible == root + "/ü \\\\x{ff}")
    }

    @Test func filesDeletedDuringTheWalkAreReportedAndTheWalkGoesOn() throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("vanish")
        _ = tmp.folder("vanish/a")
        _ = tmp.folder("vanish/z/inner")
        for i in 0..<20 { try setRawAttribute("user.x-document-source", try value("f\(i)"), on: tmp.file("vanish/a/f\(i)")) }
        try setRawAttribute("user.x-document-source", try value("late"), on: tmp.file("vanish/z/inner/late.txt"))
        var deleted: Set<String> = []
        let all = events([root]) { event in
            // At the first find in a/, delete every other file of a/ (already listed).
            guard case .found(let f) = event, deleted.isEmpty, f.path.lossyString.contains("/a/") else { return }
            for i in 0..<20 where root + "/a/f\(i)" != f.path.lossyString {
                unlink(root + "/a/f\(i)")
                deleted.insert(root + "/a/f\(i)")
            }
        }
        let vanished = problems(all).filter { $0.kind == .vanished }.map(\.path.lossyString)
        #expect(Set(vanished) == deleted)
        #expect(deleted.count == 19)
        #expect(found(all)[root + "/z/inner/late.txt"] != nil)
    }

    @Test(.enabled(if: geteuid() == 0, "mount --bind needs root"))
    func bindMountLoopIsReportedOnce() async throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("bind")
        let inner = tmp.folder("bind/a/b")
        try setRawAttribute("user.x-document-source", try value("x"), on: tmp.file("bind/a/x.txt"))
        let mounted = try await ProcessRunner.run("/bin/mount", ["--bind", root, inner])
        try #require(mounted.status == 0, "mount --bind failed as root: \(mounted.stderr)")
        try await withCleanup { () async throws in
            let all = events([root])
            let loops = problems(all).filter { $0.kind == .loop }
            #expect(loops.map(\.path.lossyString) == [inner])
            #expect(found(all).keys.sorted() == [root + "/a/x.txt"])
        } cleanup: {
            _ = try? await ProcessRunner.run("/bin/umount", [inner])
        }
    }

    @Test func stopEndsTheWalk() throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("stop")
        for i in 0..<5 { try setRawAttribute("user.x-document-source", try value("s"), on: tmp.file("stop/f\(i)")) }
        var count = 0
        DocumentSourceTree(roots: [root, root]).walk { event in
            if case .found = event { count += 1 }
            return .stop
        }
        #expect(count == 1)
    }

    @Test func removeClearsStoresAndKeepsOtherAttributes() throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("rm")
        let file = tmp.file("rm/f.txt")
        try setRawAttribute("user.x-document-source", try value("n"), on: file)
        try setRawAttribute("user.DosStream.x-document-source:$DATA", try value("s"), on: file)
        try setRawAttribute("user.keep", [7], on: file)
        let untagged = tmp.file("rm/u.txt")
        try setRawAttribute("user.keep", [8], on: untagged)
        var removals: [DocumentSourceRemoval] = []
        DocumentSourceTree(roots: [root]).walk { event in
            if case .found(let f) = event { removals.append(try! f.remove()) }
            return .proceed
        }
        #expect(removals == [DocumentSourceRemoval(removed: [.xattr, .sambaStream])])
        #expect(try rawAttribute("user.x-document-source", on: file) == nil)
        #expect(try rawAttribute("user.DosStream.x-document-source:$DATA", on: file) == nil)
        #expect(try rawAttribute("user.keep", on: file) == [7])
        #expect(try rawAttribute("user.keep", on: untagged) == [8])
    }

    @Test func aFileRootIsReadLikeOneFile() throws {
        let tmp = TemporaryFolder()
        let file = tmp.file("one.txt")
        try setRawAttribute("user.x-document-source", try value("one"), on: file)
        let byPath = found(events([file, tmp.path + "/missing"]))
        #expect(byPath[file]?.stored.source.name == "one")
        let missing = problems(events([tmp.path + "/missing"]))
        #expect(missing.map(\.error?.kind) == [.notFound])
    }
}
