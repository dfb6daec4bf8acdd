import Foundation
import Testing
import XDSTestSupport
@testable import XDocSource

/// `DocumentSourceTree` below the window of open folders (32 for one thread): folders closed on
/// the way down are opened again on the way back, by device and inode, never by name alone.
@Suite("DocumentSourceTree walks deeper than its open folders")
struct DeepTreeWalkTests {
    func value(_ name: String) throws -> [UInt8] {
        try DocumentSource(identifier: "com.example.\(name)", name: name).binaryPropertyList()
    }

    /// Runs Python 3 with `script` in `folder`; its standard output.
    func python(_ script: String, _ arguments: [String] = [], in folder: String) async throws -> String {
        let run = try await ProcessRunner.run("/usr/bin/env", ["python3", "-c", script] + arguments, in: folder)
        try #require(run.status == 0, "\(run)")
        return run.stdout
    }

    /// The events of a walk of `root` with `jobs` threads.
    func walk(_ root: String, jobs: Int = 1, _ onEvent: (DocumentSourceTree.Event) -> Void = { _ in })
        -> (found: [String], problems: [DocumentSourceTree.Problem])
    {
        var found: [String] = []
        var problems: [DocumentSourceTree.Problem] = []
        DocumentSourceTree(roots: [root], jobs: jobs).walk { event in
            switch event {
            case .found(let record): found.append(record.path.lossyString)
            case .problem(let problem): problems.append(problem)
            case .progress: break
            }
            onEvent(event)
            return .proceed
        }
        return (found, problems)
    }

    @Test("a deep, branching tree: every tagged entry in the one-thread order (as before), the same set at -j 2 and -j 4")
    func deepBranchingTree() async throws {
        let tmp = TemporaryFolder()
        let hex = try value("deep").map { String(format: "%02x", $0) }.joined()
        // A spine 150 folders deep whose every level holds files (a fifth tagged), side
        // folders 1 to 3 levels deep (some tagged themselves) before and after the spine in
        // the listing, then the expected records in the walk's order: a folder's own value, its
        // files in listing order, then its subfolders in listing order, depth first.
        let expected = try await python("""
            import os, random, sys
            rng = random.Random(7)
            value = bytes.fromhex(sys.argv[1])
            def fill(path, depth):
                for i in range(rng.randrange(4)):
                    p = f"{path}/f{i}.txt"
                    open(p, "w").write("x")
                    if rng.random() < 0.2: os.setxattr(p, "user.x-document-source", value)
                if depth > 0:
                    for i in range(rng.randrange(3)):
                        q = f"{path}/s{i}"
                        os.mkdir(q)
                        if rng.random() < 0.2: os.setxattr(q, "user.x-document-source", value)
                        fill(q, depth - 1)
            os.mkdir("root")
            path = "root"
            for level in range(150):
                fill(path, 3)
                path += "/n"
                os.mkdir(path)
                if level % 40 == 39: os.setxattr(path, "user.x-document-source", value)
            open(path + "/leaf.txt", "w").write("x")
            os.setxattr(path + "/leaf.txt", "user.x-document-source", value)
            def tagged(p): return "user.x-document-source" in os.listxattr(p, follow_symlinks=False)
            def order(path):
                names = os.listdir(path)
                for n in names:
                    p = f"{path}/{n}"
                    if os.path.isfile(p) and tagged(p): print(p)
                for n in names:
                    p = f"{path}/{n}"
                    if os.path.isdir(p):
                        if tagged(p): print(p)
                        order(p)
            sys.setrecursionlimit(10000)
            order("root")
            """, [hex], in: tmp.path).split(separator: "\n").map { tmp.path + "/" + $0 }
        #expect(expected.count > 100)
        #expect(expected.contains { $0.hasSuffix("/leaf.txt") && $0.count > 300 })
        let one = walk(tmp.path + "/root")
        #expect(one.problems.isEmpty)
        #expect(one.found == expected)
        for jobs in [2, 4] {
            let many = walk(tmp.path + "/root", jobs: jobs)
            #expect(many.problems.isEmpty)
            #expect(many.found.sorted() == expected.sorted(), "jobs \(jobs)")
        }
    }

    /// `root/a` holds two folders: the first listed leads down a chain 60 folders deep (past
    /// the window, so `a` is closed on the way) to a tagged leaf, the second holds a tagged
    /// file the walk reaches only after coming back up to `a`. Returns the two names.
    func makeChainAndSibling(_ tmp: TemporaryFolder) async throws -> (chain: String, sibling: String, leaf: String) {
        _ = tmp.folder("root/a/p")
        _ = tmp.folder("root/a/q")
        let listed = try await python("import os; print(*os.listdir('root/a'))", in: tmp.path).split(separator: " ")
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let (chain, sibling) = (listed[0], listed[1])
        var leafFolder = "root/a/" + chain
        for _ in 0..<60 { leafFolder += "/d" }
        _ = tmp.folder(leafFolder)
        let leaf = tmp.file(leafFolder + "/leaf.txt")
        try setRawAttribute("user.x-document-source", try value("leaf"), on: leaf)
        try setRawAttribute("user.x-document-source", try value("kept"), on: tmp.file("root/a/\(sibling)/kept.txt"))
        return (chain, sibling, leaf)
    }

    @Test("a folder moved away while the walk is below it is found again by device and inode, not by its old name")
    func movedFolderIsFollowedNotItsName() async throws {
        let tmp = TemporaryFolder()
        let (_, sibling, leaf) = try await makeChainAndSibling(tmp)
        let root = tmp.path + "/root"
        // When the leaf is reported: `a` moves to `old`, and a new `a` with a tagged file in a
        // folder of the same name takes its place.
        let result = walk(root) { event in
            guard case .found(let record) = event, record.path.lossyString == leaf else { return }
            #expect(rename(root + "/a", root + "/old") == 0)
            _ = tmp.folder("root/a/\(sibling)")
            try? setRawAttribute("user.x-document-source", try value("intruder"), on: tmp.file("root/a/\(sibling)/intruder.txt"))
        }
        #expect(result.problems.isEmpty, "\(result.problems)")
        // The folder the walk was in (now `old`), under the path it was met by; never the new `a`.
        #expect(result.found == [leaf, root + "/a/\(sibling)/kept.txt"])
    }

    @Test("a folder that cannot be reached again (moved, and the path to it too) is reported; nothing else is walked in its place")
    func unreachableFolderIsReported() async throws {
        let tmp = TemporaryFolder()
        let (chain, sibling, leaf) = try await makeChainAndSibling(tmp)
        let root = tmp.path + "/root"
        // When the leaf is reported: the chain leaves `a` (its `..` is no longer `a`), `a`
        // moves away, and a new `a` takes its name: `a` cannot be reached from the root.
        let result = walk(root) { event in
            guard case .found(let record) = event, record.path.lossyString == leaf else { return }
            #expect(rename(root + "/a/" + chain, root + "/chain") == 0)
            #expect(rename(root + "/a", root + "/old") == 0)
            _ = tmp.folder("root/a/\(sibling)")
            try? setRawAttribute("user.x-document-source", try value("intruder"), on: tmp.file("root/a/\(sibling)/intruder.txt"))
        }
        #expect(result.found == [leaf])
        #expect(result.problems.count == 1)
        #expect(result.problems.first?.path.lossyString == root + "/a")
        #expect(result.problems.first?.kind == .vanished)
        #expect(result.problems.first?.message == "was moved or removed during the walk; the rest of it is not walked")
    }

    @Test("a chain of 3 000 folders (paths past PATH_MAX), a tagged file at each level and a side folder every 100: each level's file before the level below at one thread, the same set at 2 and 4")
    func chainOfThreeThousand() async throws {
        let tmp = TemporaryFolder()
        let hex = try value("chain").map { String(format: "%02x", $0) }.joined()
        // Made through folder descriptors: the deepest paths are longer than PATH_MAX.
        let made = try await python("""
            import os, sys
            value = bytes.fromhex(sys.argv[1])
            os.mkdir("root")
            fd = os.open("root", os.O_RDONLY | os.O_DIRECTORY)
            prefix = "root"
            for level in range(3000):
                f = os.open("f", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
                os.setxattr(f, "user.x-document-source", value)
                os.close(f)
                print(prefix + "/f")
                if level % 100 == 50:
                    os.mkdir("s", dir_fd=fd)
                    s = os.open("s", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                    g = os.open("g", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=s)
                    os.setxattr(g, "user.x-document-source", value)
                    os.close(g)
                    os.close(s)
                    print(prefix + "/s/g")
                os.mkdir("d", dir_fd=fd)
                inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                os.close(fd)
                fd = inner
                prefix += "/d"
            """, [hex], in: tmp.path)
        let expected = made.split(separator: "\n").map { tmp.path + "/" + $0 }
        #expect(expected.count == 3030)
        #expect(expected.map(\.utf8.count).max()! > Int(PATH_MAX))
        let one = walk(tmp.path + "/root")
        #expect(one.problems.isEmpty, "\(one.problems.prefix(3))")
        #expect(one.found.sorted() == expected.sorted())
        // Depth first: the spine's files in the order of their depth.
        let spine = one.found.filter { $0.hasSuffix("/f") }
        #expect(spine == expected.filter { $0.hasSuffix("/f") })
        for jobs in [2, 4] {
            let many = walk(tmp.path + "/root", jobs: jobs)
            #expect(many.problems.isEmpty, "jobs \(jobs)")
            #expect(many.found.sorted() == expected.sorted(), "jobs \(jobs)")
        }
    }
}
