import Foundation
import Testing
import XDSTestSupport
@testable import XDocSource

/// `DocumentSourceTree` with several threads (``DocumentSourceTree/jobs``): the same findings
/// as one thread, in another order, with every promise of the walk kept.
@Suite("DocumentSourceTree walks with several threads", .timeLimit(.minutes(2)))
struct ParallelTreeWalkTests {

    func value(_ name: String) throws -> [UInt8] {
        try DocumentSource(identifier: "com.example.\(name)", name: name).binaryPropertyList()
    }

    /// Every event of a walk, in order, and the final counts. The walk (which waits for its
    /// worker threads) runs on a thread of its own, not on one of the pool's.
    func walk(_ roots: [String], jobs: Int, archives: Bool = false,
              _ onEvent: @escaping @Sendable (DocumentSourceTree.Event) -> DocumentSourceTree.Decision = { _ in .proceed }) async
        -> (events: [DocumentSourceTree.Event], archives: [String], counts: DocumentSourceTree.Counts)
    {
        await offPool {
            var all: [DocumentSourceTree.Event] = []
            var handed: [String] = []
            let tree = DocumentSourceTree(roots: roots, jobs: jobs)
            let visit = { (event: DocumentSourceTree.Event) -> DocumentSourceTree.Decision in
                all.append(event)
                return onEvent(event)
            }
            let counts = archives
                ? tree.walk(archives: { handed.append($0.lossyString); return .proceed }, visit)
                : tree.walk(visit)
            return (all, handed, counts)
        }
    }

    /// The findings and problems of a walk as sorted lines (order aside, what must not differ).
    func summary(_ events: [DocumentSourceTree.Event]) -> [String] {
        events.compactMap { event -> String? in
            switch event {
            case .found(let f):
                "found \(f.path.lossyString) folder=\(f.isFolder) \(f.stored.store) \(f.stored.location) "
                    + "\(f.stored.source.name ?? "-") sidecar=\(f.sidecar?.lossyString ?? "-") orphan=\(f.isOrphanSidecar)"
            case .problem(let p): "problem \(p.path.lossyString) \(p.kind) \(p.message)"
            case .progress: nil
            }
        }.sorted()
    }

    /// A random tree of `count` entries: nested folders (some tagged, some with a sidecar),
    /// files tagged natively, in a Samba stream or a sidecar, orphan sidecars, malformed values,
    /// symbolic links, and archives by name.
    func randomTree(_ tmp: TemporaryFolder, seed: UInt64, count: Int) throws -> String {
        var random = SplitMix64(seed: seed)
        let root = tmp.folder("r\(seed)")
        var folders = [root]
        for i in 0..<count {
            let parent = folders.randomElement(using: &random)!
            let full = parent + "/e\(i)"
            let side = parent + "/._e\(i)"
            let kind = Int.random(in: 0..<12, using: &random)
            switch kind {
            case 0, 1:
                try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: false)
                folders.append(full)
                if kind == 1 { try setRawAttribute("user.x-document-source", try value("d\(i)"), on: full) }
                if Bool.random(using: &random) {
                    _ = tmp.write(String(side.dropFirst(tmp.path.count + 1)),
                                  bytes: appleDoubleBytes(attributes: [("x-document-source", try value("s\(i)"))]))
                }
            case 2: try setRawAttribute("user.x-document-source", try value("f\(i)"), on: tmp.file(String(full.dropFirst(tmp.path.count + 1))))
            case 3:
                _ = tmp.file(String(full.dropFirst(tmp.path.count + 1)))
                try setRawAttribute("user.DosStream.x-document-source:$DATA", try value("b\(i)") + [0], on: full)
            case 4, 5:  // a sidecar; 5: an orphan
                if kind == 4 { _ = tmp.file(String(full.dropFirst(tmp.path.count + 1))) }
                _ = tmp.write(String(side.dropFirst(tmp.path.count + 1)),
                              bytes: appleDoubleBytes(attributes: [("x-document-source", try value("o\(i)"))]))
            case 6: try setRawAttribute("user.x-document-source", [1, 2, 3], on: tmp.file(String(full.dropFirst(tmp.path.count + 1))))
            case 7: try FileManager.default.createSymbolicLink(atPath: full, withDestinationPath: "..")
            case 8: _ = tmp.file(String(full.dropFirst(tmp.path.count + 1)) + ".zip", "not a zip")
            default: _ = tmp.file(String(full.dropFirst(tmp.path.count + 1)))
            }
        }
        return root
    }

    @Test("several threads find what one thread finds (random trees)", arguments: [1, 2, 3] as [UInt64])
    func sameFindingsAtAnyJobs(seed: UInt64) async throws {
        let tmp = TemporaryFolder()
        let root = try randomTree(tmp, seed: seed, count: 600)
        let one = await walk([root], jobs: 1, archives: true)
        #expect(one.counts.tagged > 50)
        for jobs in [2, 4, 8] {
            let many = await walk([root], jobs: jobs, archives: true)
            #expect(summary(many.events) == summary(one.events), "jobs \(jobs), seed \(seed)")
            #expect(many.counts == one.counts, "jobs \(jobs), seed \(seed)")
            #expect(many.archives.sorted() == one.archives.sorted(), "jobs \(jobs)")
        }
    }

    @Test("-j 1 keeps the fixed order: a folder's files before its subfolders, depth first")
    func oneJobKeepsTheOrder() async throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("order")
        for path in ["order/a/x", "order/a/y", "order/b"] { _ = tmp.folder(path) }
        for file in ["order/f", "order/a/f", "order/a/x/f", "order/a/y/f", "order/b/f"] {
            try setRawAttribute("user.x-document-source", try value("o"), on: tmp.file(file))
        }
        let found = await walk([root], jobs: 1).events.compactMap { event -> String? in
            if case .found(let f) = event { String(f.path.lossyString.dropFirst(root.count)) } else { nil }
        }
        // Subfolders in listing order, so only the shape is fixed: f first, each folder's file
        // before what is under it.
        #expect(found.first == "/f")
        #expect(found.firstIndex(of: "/a/f")! < found.firstIndex(of: "/a/x/f")!)
        #expect(found.firstIndex(of: "/a/f")! < found.firstIndex(of: "/a/y/f")!)
        #expect(Set(found) == ["/f", "/a/f", "/a/x/f", "/a/y/f", "/b/f"])
    }

    @Test("stop ends every worker: one record, and the walk returns", arguments: [2, 4])
    func stopEndsEveryWorker(jobs: Int) async throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("stop")
        for d in 0..<20 {
            _ = tmp.folder("stop/d\(d)")
            for i in 0..<50 { try setRawAttribute("user.x-document-source", try value("s"), on: tmp.file("stop/d\(d)/f\(i)")) }
        }
        let count = Box(0)
        let result = await walk([root, root], jobs: jobs) { event in
            if case .found = event { count.mutate { $0 += 1 } }
            return .stop
        }
        #expect(count.value == 1)
        #expect(result.events.count == 1)
    }

    @Test("entries deleted during the walk are reported as vanished, with several threads")
    func vanishedUnderThreads() async throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("vanish")
        _ = tmp.folder("vanish/a")
        _ = tmp.folder("vanish/z/inner")
        let n = 2000
        for i in 0..<n { try setRawAttribute("user.x-document-source", try value("f\(i)"), on: tmp.file("vanish/a/f\(i)")) }
        try setRawAttribute("user.x-document-source", try value("late"), on: tmp.file("vanish/z/inner/late.txt"))
        let deleted = Flag()
        let all = await walk([root], jobs: 4) { event in
            // At the first find in a/, delete every file of a/ (already listed): the worker,
            // held back by the full channel, meets most of them gone.
            if case .found(let f) = event, !deleted.value, f.path.lossyString.contains("/a/") {
                deleted.value = true
                for i in 0..<n { unlink(root + "/a/f\(i)") }
            }
            return .proceed
        }.events
        let vanished = all.compactMap { event -> String? in
            if case .problem(let p) = event, p.kind == .vanished { p.path.lossyString } else { nil }
        }
        let foundInA = all.compactMap { event -> String? in
            if case .found(let f) = event, f.path.lossyString.contains("/a/") { f.path.lossyString } else { nil }
        }
        #expect(vanished.count > 0)
        #expect(Set(vanished).isDisjoint(with: foundInA))
        #expect(vanished.count + foundInA.count == n)
        #expect(all.contains { if case .found(let f) = $0 { f.path.lossyString.hasSuffix("/late.txt") } else { false } })
    }

    @Test("a bind-mount loop is caught by a worker that took the folder over", .enabled(if: geteuid() == 0, "mount --bind needs root"))
    func bindMountLoopUnderThreads() async throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("bind")
        // Many siblings, so that the first worker hands folders over at once.
        for d in 0..<8 {
            _ = tmp.folder("bind/s\(d)/deep")
            for i in 0..<30 { _ = tmp.file("bind/s\(d)/deep/f\(i)") }
        }
        let inner = tmp.folder("bind/s3/deep/b")
        try setRawAttribute("user.x-document-source", try value("x"), on: tmp.file("bind/s3/x.txt"))
        let mounted = try await ProcessRunner.run("/bin/mount", ["--bind", root, inner])
        try #require(mounted.status == 0, "mount --bind needs root: \(mounted.stderr)")
        try await withCleanup { () async throws in
            for jobs in [2, 4, 8] {
                let all = await walk([root], jobs: jobs).events
                let loops = all.compactMap { event -> String? in
                    if case .problem(let p) = event, p.kind == .loop { p.path.lossyString } else { nil }
                }
                #expect(loops == [inner], "jobs \(jobs)")
                let found = all.compactMap { event -> String? in
                    if case .found(let f) = event { f.path.lossyString } else { nil }
                }
                #expect(found == [root + "/s3/x.txt"], "jobs \(jobs)")
            }
        } cleanup: {
            _ = try? await ProcessRunner.run("/bin/umount", [inner])
        }
    }

    @Test("progress counts add up to the final counts")
    func progressUnderThreads() async throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("p")
        for d in 0..<10 {
            _ = tmp.folder("p/d\(d)")
            for i in 0..<300 { _ = tmp.file("p/d\(d)/f\(i)") }
        }
        let result = await walk([root], jobs: 4)
        var last = DocumentSourceTree.Counts()
        for case .progress(let counts) in result.events {
            #expect(counts.files >= last.files)
            last = counts
        }
        #expect(last.files > 0)
        #expect(result.counts.files == 3000)
        #expect(result.counts.folders == 11)
    }
}
