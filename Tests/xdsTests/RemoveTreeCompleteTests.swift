import Foundation
import XDSTestSupport
import Testing

/// `xds remove -r DIR` leaves nothing of the attribute under DIR (SPEC §5): orphan sidecars,
/// sidecars beside symbolic links, the folder's own sidecar and values that do not parse
/// included; every other attribute and sidecar entry is kept byte for byte.
@Suite("remove -r leaves nothing behind")
struct RemoveTreeCompleteTests {
    /// An AppleDouble sidecar with `attributes` and a resource fork of `fork` bytes.
    static func sidecar(_ attributes: [(String, [UInt8])], fork: [UInt8] = []) -> [UInt8] {
        var bytes = appleDoubleBytes(attributes: attributes)
        let n = fork.count
        bytes.replaceSubrange(46..<50, with: [UInt8(n >> 24 & 255), UInt8(n >> 16 & 255), UInt8(n >> 8 & 255), UInt8(n & 255)])
        return bytes + fork
    }

    /// Every attribute but the value's, and every sidecar's entries but the value's, under
    /// `root` (and `root`'s own sidecar), as one JSON text: what remove -r must keep exactly.
    /// A sidecar left with nothing (no other attribute, no fork, zero Finder info) counts as
    /// absent: remove -r deletes it.
    static func snapshot(_ root: String, in folder: String) async throws -> String {
        let script = #"""
            import json, os, struct, sys
            root = sys.argv[1]
            def ad(path):
                b = open(path, 'rb').read()
                try:
                    assert b[:8] == bytes.fromhex('0005160700020000')
                    n, = struct.unpack('>H', b[24:26])
                    ents = {struct.unpack('>I', b[26+12*i:30+12*i])[0]: struct.unpack('>II', b[30+12*i:38+12*i]) for i in range(n)}
                    off, ln = ents[9]; finder = b[off:off+32]; attrs = {}
                    if ln > 32:
                        h = off + 34
                        count, = struct.unpack('>H', b[h+34:h+36]); e = h + 36
                        for _ in range(count):
                            vo, vl, fl, nl = struct.unpack('>IIHB', b[e:e+11])
                            name = b[e+11:e+10+nl].decode()
                            if name != 'x-document-source': attrs[name] = b[vo:vo+vl].hex()
                            e = (e + 11 + nl + 3) & ~3
                    fo, fl = ents.get(2, (0, 0)); fork = b[fo:fo+fl]
                    if not attrs and not fork and finder == bytes(32): return None
                    return {'finder': finder.hex(), 'fork': fork.hex(), 'attrs': attrs}
                except Exception:
                    return {'raw': b.hex()}
            out = {}
            def visit(p):
                st = os.lstat(p)
                if not os.path.islink(p):
                    xs = {n: os.getxattr(p, n, follow_symlinks=False).hex() for n in os.listxattr(p, follow_symlinks=False)
                          if n != 'user.x-document-source' and not n.startswith('user.DosStream.x-document-source')}
                    if xs: out[p + ' xattr'] = xs
                if os.path.basename(p).startswith('._') and os.path.isfile(p) and not os.path.islink(p):
                    v = ad(p)
                    if v is not None: out[p] = v
                elif os.path.islink(p):
                    out[p] = 'link ' + os.readlink(p)
                else:
                    out[p] = 'dir' if os.path.isdir(p) else 'file'
            parent, name = os.path.split(root.rstrip('/'))
            own = os.path.join(parent, '._' + name)
            if os.path.exists(own): visit(own)
            visit(root)
            for d, dirs, files in os.walk(root):
                for n in sorted(dirs + files): visit(os.path.join(d, n))
            print(json.dumps(out, sort_keys=True, indent=0))
            """#
        let r = try await python(script, [root], in: folder)
        try #require(r.status == 0, "\(r)")
        return r.stdout
    }

    @Test("orphan sidecars and sidecars beside symbolic links are listed by show -r and cleared by remove -r")
    func orphanAndLinkSidecars() async throws {
        let folder = TemporaryFolder()
        let value = try await plistlib(#"{"identifier": "com.example.a", "name": "A", "path": "secret/a.txt"}"#)
        try FileManager.default.createDirectory(atPath: folder.path + "/t", withIntermediateDirectories: true)
        folder.file("outside.txt")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/t/link", withDestinationPath: "../outside.txt")
        let fork = Array("resource fork bytes".utf8)
        try Data(Self.sidecar([("com.apple.quarantine", Array("q".utf8)), ("x-document-source", value)], fork: fork))
            .write(to: URL(fileURLWithPath: folder.path + "/t/._gone.txt"))
        try Data(Self.sidecar([("x-document-source", value)])).write(to: URL(fileURLWithPath: folder.path + "/t/._link"))
        let before = try await Self.snapshot("t", in: folder.path)

        let show = try await xds("show", "-r", "--json", "t", in: folder.path)
        #expect(show.status == 0, "\(show)")
        let files = Set(try show.jsonLines().compactMap { $0["file"] as? String })
        #expect(files == ["t/._gone.txt", "t/._link"], "\(show)")
        #expect(show.stdout.contains(#""store":"appledouble""#))

        let removed = try await xds("remove", "-r", "t", in: folder.path)
        #expect(removed.status == 0 && removed.stderr.isEmpty, "\(removed)")
        let after = try await xds("show", "-r", "t", in: folder.path)
        #expect(after.status == 1, "\(after)")
        #expect(try await Self.snapshot("t", in: folder.path) == before)
        // The sidecar with only the value is gone; the other keeps its fork and attribute.
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/t/._link"))
        #expect(FileManager.default.fileExists(atPath: folder.path + "/t/._gone.txt"))
        // The link and what it points at are untouched.
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.path + "/t/link") == "../outside.txt")
    }

    @Test("the folder's own sidecar is cleared too, even when the folder's native attribute is read first")
    func foldersOwnSidecar() async throws {
        let folder = TemporaryFolder()
        let value = try await plistlib(#"{"identifier": "com.example.a", "name": "A"}"#)
        try FileManager.default.createDirectory(atPath: folder.path + "/t", withIntermediateDirectories: true)
        try await folder.setAttribute(folder.path + "/t", value)
        try Data(Self.sidecar([("x-document-source", value), ("org.example.keep", [1, 2, 3])]))
            .write(to: URL(fileURLWithPath: folder.path + "/._t"))
        let before = try await Self.snapshot("t", in: folder.path)
        let removed = try await xds("remove", "-r", "t", in: folder.path)
        #expect(removed.status == 0, "\(removed)")
        #expect(try await xds("show", "-r", "t", in: folder.path).status == 1)
        #expect(try await xds("show", "t", in: folder.path).status == 1, "nor in the sidecar")
        #expect(try await Self.snapshot("t", in: folder.path) == before)
    }

    @Test("a value that does not parse is removed (as remove FILE removes it), without a contradictory line")
    func malformedValuesAreRemoved() async throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/t/sub", withIntermediateDirectories: true)
        try await folder.setAttribute(folder.file("t/bad.txt"), Array("not a plist".utf8))
        try await folder.setAttribute(folder.file("t/sub/badsamba.txt"), Array("junk".utf8) + [0], name: "user.DosStream.x-document-source:$DATA")
        folder.file("t/side.txt")
        try Data(Self.sidecar([("x-document-source", Array("bplist00 broken".utf8)), ("org.example.keep", [9])]))
            .write(to: URL(fileURLWithPath: folder.path + "/t/._side.txt"))
        let shown = try await xds("show", "-r", "t", in: folder.path)
        #expect(shown.status == 65, "\(shown)")
        let before = try await Self.snapshot("t", in: folder.path)
        let removed = try await xds("remove", "-r", "t", in: folder.path)
        #expect(removed.status == 0, "\(removed)")
        #expect(!removed.stderr.contains("no file or folder in it has"), "\(removed)")
        #expect(try await folder.attribute(folder.path + "/t/bad.txt") == nil)
        #expect(try await xds("show", "-r", "t", in: folder.path).status == 1)
        #expect(try await Self.snapshot("t", in: folder.path) == before)
        // Dry run lists them too.
        try await folder.setAttribute(folder.path + "/t/bad.txt", Array("again".utf8))
        let dry = try await xds("remove", "-r", "-n", "t", in: folder.path)
        #expect(dry.status == 0 && dry.stdout == "t/bad.txt\n", "\(dry)")
    }


    @Test("property: random trees with values in every store; after remove -r show -r finds nothing and everything else is byte-identical",
          arguments: [1, 2, 3, 4, 5] as [UInt64])
    func randomTrees(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let folder = TemporaryFolder()
        let fm = FileManager.default
        let value = try await plistlib(#"{"identifier": "com.example.p", "name": "P", "path": "private/x", "z": 1}"#)
        var folders = ["r"]
        try fm.createDirectory(atPath: folder.path + "/r", withIntermediateDirectories: true)
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
        for i in 0..<40 {
            let parent = folders.randomElement(using: &random)!
            let name = "\(parent)/e\(i)"
            let full = folder.path + "/" + name
            let kind = Int.random(in: 0..<12, using: &random)
            if kind == 0 || kind == 1 {
                try fm.createDirectory(atPath: full, withIntermediateDirectories: true)
                folders.append(name)
                if kind == 1 { try await folder.setAttribute(full, value) }
                if Bool.random(using: &random) {
                    try Data(Self.sidecar([("x-document-source", value), ("org.x", bytes(3))]))
                        .write(to: URL(fileURLWithPath: folder.path + "/\(parent)/._e\(i)"))
                }
                continue
            }
            if kind != 8 && kind != 9 { folder.file(name, "data \(i)\n") }
            if kind != 8 && kind != 9 && Bool.random(using: &random) {
                try await folder.setAttribute(full, bytes(Int.random(in: 1...20, using: &random)), name: "user.other\(i % 3)")
            }
            let side = folder.path + "/\(parent)/._e\(i)"
            let extra: [(String, [UInt8])] = Bool.random(using: &random) ? [("com.apple.quarantine", bytes(8))] : []
            let fork = Bool.random(using: &random) ? bytes(Int.random(in: 1...300, using: &random)) : []
            switch kind {
            case 2: try await folder.setAttribute(full, value)
            case 3: try await folder.setAttribute(full, value + [0], name: "user.DosStream.x-document-source:$DATA")
            case 4: try await folder.setAttribute(full, value + [0], name: "user.DosStream.x-document-source")
            case 5, 8:  // a sidecar; 8: an orphan (its file is gone)
                try Data(Self.sidecar(extra + [("x-document-source", value)], fork: fork)).write(to: URL(fileURLWithPath: side))
            case 6: try await folder.setAttribute(full, bytes(10))  // malformed native value
            case 7:  // a sidecar without the value: untouched
                try Data(Self.sidecar(extra + [("org.only", bytes(4))], fork: fork)).write(to: URL(fileURLWithPath: side))
            case 9:  // a symbolic link with a sidecar
                try fm.createSymbolicLink(atPath: full, withDestinationPath: "../outside-\(i)")
                try Data(Self.sidecar(extra + [("x-document-source", value)], fork: fork)).write(to: URL(fileURLWithPath: side))
            case 10:  // native and sidecar both
                try await folder.setAttribute(full, value)
                try Data(Self.sidecar(extra + [("x-document-source", value)], fork: fork)).write(to: URL(fileURLWithPath: side))
            default: break  // plain
            }
        }
        // The root's own sidecar.
        try Data(Self.sidecar([("x-document-source", value)])).write(to: URL(fileURLWithPath: folder.path + "/._r"))
        let before = try await Self.snapshot("r", in: folder.path)
        // Odd seeds on one thread (-j 1), even ones with the default number of threads.
        let jobs = seed % 2 == 1 ? ["-j", "1"] : []
        let removed = try await xds(["remove", "-r"] + jobs + ["r"], in: folder.path)
        #expect(removed.status == 0, "seed \(seed): \(removed)")
        let after = try await xds(["show", "-r"] + jobs + ["r"], in: folder.path)
        #expect(after.status == 1 && after.stdout.isEmpty, "seed \(seed): \(after)")
        #expect(try await Self.snapshot("r", in: folder.path) == before, "seed \(seed)")
        let leftovers = try await sh("find . -name '.xds-*' | wc -l", in: folder.path)
        #expect(leftovers.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }
}
