import Foundation
import XDSTestSupport
import Testing

/// `show -r` and `remove -r` over trees as deep as `find` walks (deeper than PATH_MAX too)
/// with few descriptors: run under `ulimit -n 64`, where a walk that keeps a descriptor per
/// level runs out (EMFILE) before level 64.
@Suite("Deep trees under a low descriptor limit", .timeLimit(.minutes(3)))
struct DeepTreeCLITests {
    /// The tagged files of a tree made by ``makeDeepTree(_:depth:)``, relative to its folder.
    struct DeepTree {
        var tagged: [String]
        var leaf: String
    }

    /// A chain `deep/d/d/…/d` of `depth` folders made with `mkdirat`/`openat` (the path of the
    /// bottom one may be longer than PATH_MAX), with a tagged file `leaf.txt` at the bottom, a
    /// file `side.txt` tagged through its AppleDouble sidecar `._side.txt` there too, and every
    /// 250 levels two side folders `a` and `z` (one listed before the chain's `d`, one after
    /// it, whatever the listing order) each holding a tagged file: the walk must come back up
    /// to the folders it left to reach them.
    func makeDeepTree(_ folder: TemporaryFolder, depth: Int) async throws -> DeepTree {
        let value = try await plistlib(#"{"identifier": "com.example.deep", "name": "Deep", "path": "p/deep"}"#)
        let sidecar = appleDoubleBytes(attributes: [("x-document-source", value)])
        let made = try await python("""
            import os, sys
            depth = int(sys.argv[1])
            value = bytes.fromhex(sys.argv[2])
            sidecar = bytes.fromhex(sys.argv[3])
            os.mkdir("deep")
            fd = os.open("deep", os.O_RDONLY | os.O_DIRECTORY)
            def tag(fd, name, content=b"x\\n"):
                f = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644, dir_fd=fd)
                os.write(f, content)
                os.setxattr(f, "user.x-document-source", value)
                os.close(f)
            prefix = "deep"
            for level in range(1, depth + 1):
                if level % 250 == 0:
                    for side in ("a", "z"):
                        os.mkdir(side, dir_fd=fd)
                        s = os.open(side, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                        tag(s, "f.txt")
                        os.close(s)
                        print(f"{prefix}/{side}/f.txt")
                os.mkdir("d", dir_fd=fd)
                child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                os.close(fd)
                fd = child
                prefix += "/d"
            tag(fd, "leaf.txt")
            print(f"{prefix}/leaf.txt")
            f = os.open("side.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.close(f)
            f = os.open("._side.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.write(f, sidecar)
            os.close(f)
            print(f"{prefix}/side.txt")
            """, [String(depth), Self.hex(value), Self.hex(sidecar)], in: folder.path)
        try #require(made.status == 0, "\(made)")
        let tagged = made.stdout.split(separator: "\n").map(String.init)
        return DeepTree(tagged: tagged, leaf: tagged[tagged.count - 2])
    }

    /// The files below `deep` that still hold a value in any store (attribute or sidecar),
    /// found by Python with a descriptor or two at a time (independent of xds).
    func stillTagged(_ folder: TemporaryFolder) async throws -> [String] {
        let checked = try await python("""
            import os
            fd = os.open("deep", os.O_RDONLY | os.O_DIRECTORY)
            prefix = "deep"
            while True:
                names = sorted(os.listdir(fd))
                for name in names:
                    if name.startswith("._"):
                        f = os.open(name, os.O_RDONLY, dir_fd=fd)
                        if b"x-document-source" in os.read(f, 1 << 20):
                            print(f"{prefix}/{name[2:]}")
                        os.close(f)
                        continue
                    f = os.open(name, os.O_RDONLY, dir_fd=fd)
                    if "user.x-document-source" in os.listxattr(f):
                        print(f"{prefix}/{name}")
                    if name in ("a", "z"):
                        g = os.open("f.txt", os.O_RDONLY, dir_fd=f)
                        if "user.x-document-source" in os.listxattr(g):
                            print(f"{prefix}/{name}/f.txt")
                        os.close(g)
                    os.close(f)
                if "d" not in names:
                    break
                child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                os.close(fd)
                fd = child
                prefix += "/d"
            """, in: folder.path)
        try #require(checked.status == 0, "\(checked)")
        return checked.stdout.split(separator: "\n").map(String.init).sorted()
    }

    /// `xds` under `ulimit -n 64`.
    func lowLimitXDS(_ arguments: [String], in folder: String) async throws -> Run {
        try await run("/bin/sh", ["-c", "ulimit -n 64 && exec \"$0\" \"$@\"", xdsPath] + arguments, in: folder)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static let jobs: [[String]] = [["-j", "1"], []]

    @Test("show -r finds every tagged file 1 500 and 5 000 levels deep under ulimit -n 64, -j 1 and the default -j",
          arguments: [1500, 5000])
    func showFindsTheLeaf(depth: Int) async throws {
        let folder = TemporaryFolder()
        let tree = try await makeDeepTree(folder, depth: depth)
        #expect(tree.tagged.count == 2 * (depth / 250) + 2)
        if depth == 5000 { #expect(tree.leaf.utf8.count > Int(PATH_MAX)) }
        for jobs in Self.jobs {
            let shown = try await lowLimitXDS(["show", "-r", "--json"] + jobs + ["deep"], in: folder.path)
            #expect(shown.status == 0, "\(jobs): \(shown.stderr.prefix(500))")
            let files = try shown.jsonLines().compactMap { $0["file"] as? String }
            #expect(files.sorted() == tree.tagged.sorted(), "\(jobs)")
            // The human form, the same files.
            let human = try await lowLimitXDS(["show", "-r"] + jobs + ["deep"], in: folder.path)
            #expect(human.status == 0, "\(jobs): \(human.stderr.prefix(500))")
            #expect(human.stdout.contains(tree.leaf + "\n"), "\(jobs)")
        }
    }

    @Test("remove -r clears every tagged file 1 500 and 5 000 levels deep under ulimit -n 64, -j 1 and the default -j",
          arguments: [1500, 5000])
    func removeClearsTheLeaf(depth: Int) async throws {
        for jobs in Self.jobs {
            let folder = TemporaryFolder()
            let tree = try await makeDeepTree(folder, depth: depth)
            #expect(try await stillTagged(folder) == tree.tagged.sorted())
            let dry = try await lowLimitXDS(["remove", "-r", "-n"] + jobs + ["deep"], in: folder.path)
            #expect(dry.status == 0, "\(jobs): \(dry.stderr.prefix(500))")
            #expect(dry.stdout.split(separator: "\n").map(String.init).sorted() == tree.tagged.sorted(), "\(jobs)")
            let removed = try await lowLimitXDS(["remove", "-r"] + jobs + ["deep"], in: folder.path)
            #expect(removed.status == 0, "\(jobs): \(removed.stderr.prefix(500))")
            #expect(removed.stderr.isEmpty, "\(jobs)")
            #expect(try await stillTagged(folder) == [], "\(jobs)")
            let after = try await lowLimitXDS(["show", "-r"] + jobs + ["deep"], in: folder.path)
            #expect(after.status == 1 && after.stdout.isEmpty, "\(jobs): \(after)")
        }
    }
}
