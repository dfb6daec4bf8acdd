import Foundation
import XDSTestSupport
import Testing
import XDocSource

/// `xds set --sidecar` and `xds remove --sidecar` as a user runs them.
@Suite("xds set/remove --sidecar")
struct SidecarCLITests {
    func bytes(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    /// A sidecar as macOS writes it, with `com.apple.quarantine` and Finder info, built by
    /// Python's struct module (independently of the library).
    func macSidecar(in folder: TemporaryFolder, _ name: String) async throws -> [UInt8] {
        let script = #"""
            import struct, sys
            attrs = [(b'com.apple.quarantine', b'0081;5f;Safari;'), (b'org.example.tag', b'xyz')]
            fork = b'left blank' * 20
            entries = b''; at = 120
            for name, _ in attrs:
                at = (at + 11 + len(name) + 1 + 3) & ~3
            start = at; off = start
            for name, value in attrs:
                e = struct.pack('>IIHB', off, len(value), 0, len(name) + 1) + name + b'\0'
                entries += e + b'\0' * (-len(e) % 4); off += len(value)
            total = off
            out = struct.pack('>II16sH', 0x51607, 0x20000, b'Mac OS X        ', 2)
            out += struct.pack('>III', 9, 50, total - 50) + struct.pack('>III', 2, total, len(fork))
            out += b'TEXTttxt' + b'\x07' * 24 + b'\0\0'
            out += struct.pack('>IIIII12xHH', 0x41545452, 0, total, start, total - start, 0, len(attrs))
            out += entries + b''.join(v for _, v in attrs) + fork
            open(sys.argv[1], 'wb').write(out)
            """#
        let path = folder.path + "/" + name
        let made = try await python(script, [path])
        #expect(made.status == 0, "\(made)")
        return try #require(bytes(path))
    }

    @Test func setShowRemoveThroughTheSidecar() async throws {
        let folder = TemporaryFolder()
        folder.file("Report.pdf")
        let original = try await macSidecar(in: folder, "._Report.pdf")
        let set = try await xds("set", "Report.pdf", "--sidecar", "--id", "com.example.editor", "--name", "Editor", in: folder.path)
        #expect(set.status == 0 && set.stderr.isEmpty, "\(set)")
        #expect(try await folder.attribute(folder.path + "/Report.pdf") == nil)
        let show = try await xds("show", "--json", "Report.pdf", in: folder.path)
        #expect(show.status == 0 && show.stdout.contains(#""store":"appledouble""#), "\(show)")
        // Merge: a second run adds a key and keeps the others.
        let merged = try await xds("set", "Report.pdf", "--sidecar", "--path", "docs/Report.pdf", in: folder.path)
        #expect(merged.status == 0, "\(merged)")
        let value = try #require(try await xds("show", "--json", "Report.pdf", in: folder.path).jsonLines().first)
        #expect(value["name"] as? String == "Editor" && value["path"] as? String == "docs/Report.pdf")

        // Python reads the other attributes, the Finder info and the fork back unchanged.
        let check = try await python(#"""
            import struct, sys
            b = open(sys.argv[1], 'rb').read()
            n, = struct.unpack('>H', b[24:26])
            ents = {struct.unpack('>I', b[26+12*i:30+12*i])[0]: struct.unpack('>II', b[30+12*i:38+12*i]) for i in range(n)}
            off, ln = ents[9]; h = off + 34
            count, = struct.unpack('>H', b[h+34:h+36]); e = h + 36; attrs = {}
            for _ in range(count):
                vo, vl, fl, nl = struct.unpack('>IIHB', b[e:e+11])
                attrs[b[e+11:e+10+nl].decode()] = b[vo:vo+vl]; e = (e + 11 + nl + 3) & ~3
            fo, fl = ents[2]
            print(b[off:off+32].hex(), attrs['com.apple.quarantine'], attrs['org.example.tag'], b[fo:fo+fl] == b'left blank' * 20, fo + fl == len(b), sorted(attrs))
            """#, [folder.path + "/._Report.pdf"])
        let finderInfo = "5445585474747874" + String(repeating: "07", count: 24)
        #expect(check.stdout == finderInfo + " b'0081;5f;Safari;' b'xyz' True True ['com.apple.quarantine', 'org.example.tag', 'x-document-source']\n", "\(check)")

        // remove without --sidecar: says where the value is and how to remove it.
        let plain = try await xds("remove", "Report.pdf", in: folder.path)
        #expect(plain.status == 1)
        #expect(plain.stderr.contains("the attribute is only in the AppleDouble sidecar") && plain.stderr.contains("xds remove --sidecar removes it"), "\(plain)")
        let removed = try await xds("remove", "--sidecar", "Report.pdf", in: folder.path)
        #expect(removed.status == 0 && removed.stderr.isEmpty, "\(removed)")
        #expect(bytes(folder.path + "/._Report.pdf") == original)  // back to the very bytes macOS wrote
        #expect(try await xds("show", "Report.pdf", in: folder.path).status == 1)
        #expect(try await xds("remove", "--sidecar", "Report.pdf", in: folder.path).status == 1)
    }

    @Test func helpMentionsSidecar() async throws {
        #expect(try await xds("set", "--help").stdout.contains("--sidecar"))
        let help = try await xds("remove", "--help").stdout
        #expect(help.contains("--sidecar") && help.contains("removed from the sidecar too"))
    }

    /// Twelve ways a sidecar can be broken; each makes `set --sidecar` and `remove --sidecar`
    /// exit 65 and leaves the file byte-identical.
    @Test func corruptSidecarsAreLeftAlone() async throws {
        let folder = TemporaryFolder()
        folder.file("a.txt")
        let good = try await macSidecar(in: folder, "good")
        func put32(_ b: [UInt8], _ at: Int, _ v: UInt32) -> [UInt8] {
            var o = b
            for i in 0..<4 { o[at + i] = UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32(i))) }
            return o
        }
        let corrupt: [(String, [UInt8])] = [
            ("truncated header", Array(good.prefix(20))),
            ("bad magic", put32(good, 0, 0x0005_1600)),
            ("bad version", put32(good, 4, 0x0001_0000)),
            ("entry past the end", put32(good, 38 + 8, 0x0100_0000)),
            ("overlapping entries", put32(good, 38 + 4, 60)),
            ("bad ATTR magic", put32(good, 84, 0x4154_5453)),
            ("attribute entry past the area", put32(good, 120, 0x00FF_0000)),
            ("name not NUL-terminated", { var b = good; b[131 + 20] = 0x41; return b }()),
            ("count too large", { var b = good; b[118] = 0x10; return b }()),
            ("resource fork not last, over the attributes", put32(good, 38 + 4, 100)),
            ("data start before the entries", put32(good, 96, 100)),
            ("too many entries", { var b = good; b[25] = 16; return b }()),
        ]
        #expect(corrupt.count >= 10)
        for (name, data) in corrupt {
            #expect(data != good, "\(name)")
            let sidecar = folder.path + "/._a.txt"
            try Data(data).write(to: URL(fileURLWithPath: sidecar))
            let set = try await xds("set", "a.txt", "--sidecar", "--id", "x.y", "--name", "Z", in: folder.path)
            #expect(set.status == 65, "\(name): \(set)")
            #expect(set.stderr.hasPrefix("xds: a.txt: malformed AppleDouble sidecar ") && !set.stderr.contains("--replace"), "\(name): \(set)")
            #expect(try await xds("set", "a.txt", "--sidecar", "--replace", "--id", "x.y", "--name", "Z", in: folder.path).status == 65)
            #expect(try await xds("remove", "a.txt", "--sidecar", in: folder.path).status == 65, "\(name)")
            #expect(bytes(sidecar) == data, "\(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["._a.txt", "a.txt", "good"])
    }

    /// 4 processes × 20 rounds, each setting its own key in the sidecar: the lock on the file
    /// keeps every key, and the other attributes survive every rewrite.
    @Test func concurrentSidecarWritersKeepEveryKey() async throws {
        let folder = TemporaryFolder()
        folder.file("shared.txt")
        _ = try await macSidecar(in: folder, "._shared.txt")
        let script = #"""
            XDS="$1"; F=shared.txt
            "$XDS" set "$F" --sidecar --id com.example.base --name Base || exit 9
            : > err
            for key in id name path app-info-url; do
              ( r=0; while [ "$r" -lt 20 ]; do
                  case $key in
                    id) v="com.example.r$r" ;; app-info-url) v="https://example.com/r$r.json" ;; *) v="v$r" ;;
                  esac
                  "$XDS" set "$F" --sidecar "--$key" "$v" 2>> err || echo "$key $r failed" >> err
                  r=$((r + 1))
                done ) &
            done
            wait
            """#
        let result = try await run("/bin/sh", ["-c", script, "sh", xdsPath], in: folder.path)
        #expect(result.status == 0, "\(result)")
        #expect(try String(contentsOfFile: folder.path + "/err", encoding: .utf8).isEmpty)
        let value = try #require(try await xds("show", "--json", "shared.txt", in: folder.path).jsonLines().first)
        #expect(value["identifier"] as? String == "com.example.r19")
        #expect(value["name"] as? String == "v19")
        #expect(value["path"] as? String == "v19")
        #expect(value["appInfoURL"] as? String == "https://example.com/r19.json")
        let double = try AppleDouble(bytes: try #require(bytes(folder.path + "/._shared.txt")))
        #expect(double.value(named: "com.apple.quarantine") == Array("0081;5f;Safari;".utf8))
        #expect(double.value(named: "org.example.tag") == Array("xyz".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["._shared.txt", "err", "shared.txt"])
    }

    /// ramfs has no extended attributes at all: mounted there (as root), `set` fails with a
    /// hint, `set --sidecar` works. Where mounting is not allowed (not root) this is skipped.
    @Test(.enabled(if: getuid() == 0 && ((try? String(contentsOfFile: "/proc/filesystems", encoding: .utf8))?.contains("ramfs") ?? false),
                   "mounting ramfs needs root"))
    func filesystemWithoutAttributes() async throws {
        let folder = TemporaryFolder()
        let mountPoint = folder.path + "/mnt"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        let mounted = try await sh("mount -t ramfs -o size=4m ramfs '\(mountPoint)'")
        try #require(mounted.status == 0, "\(mounted)")
        try await withCleanup { () async throws in
            folder.file("mnt/doc.txt")
            let plain = try await xds("set", "doc.txt", "--id", "x.y", "--name", "Z", in: mountPoint)
            #expect(plain.status == 74)
            #expect(plain.stderr == "xds: doc.txt: the filesystem does not support extended attributes; --sidecar writes the value to an AppleDouble file ._NAME next to it instead\n", "\(plain)")
            let side = try await xds("set", "doc.txt", "--sidecar", "--id", "x.y", "--name", "Z", in: mountPoint)
            #expect(side.status == 0, "\(side)")
            let show = try await xds("show", "--json", "doc.txt", in: mountPoint)
            #expect(show.status == 0 && show.stdout.contains(#""name":"Z""#), "\(show)")
            // A second set merges with the sidecar's value (its read found the sidecar).
            #expect(try await xds("set", "doc.txt", "--sidecar", "--path", "p", in: mountPoint).status == 0)
            let remove = try await xds("remove", "doc.txt", in: mountPoint)
            #expect(remove.status == 74 && remove.stderr.contains("--sidecar removes the value"), "\(remove)")
            #expect(try await xds("remove", "doc.txt", "--sidecar", in: mountPoint).status == 0)
            #expect(!FileManager.default.fileExists(atPath: mountPoint + "/._doc.txt"))

            // remove -r clears sidecars in a tree on such a filesystem (no attribute to fail on).
            try FileManager.default.createDirectory(atPath: mountPoint + "/sub", withIntermediateDirectories: false)
            folder.file("mnt/sub/a.txt")
            folder.file("mnt/sub/b.txt")
            for name in ["sub/a.txt", "sub/b.txt"] {
                #expect(try await xds("set", name, "--sidecar", "--id", "x.y", "--name", "Z", in: mountPoint).status == 0)
            }
            #expect(try await xds("show", "-r", "--json", ".", in: mountPoint).stdout.split(separator: "\n").count == 2)
            let tree = try await xds("remove", "-r", ".", in: mountPoint)
            #expect(tree.status == 0 && tree.stderr.isEmpty, "\(tree)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint + "/sub").sorted() == ["a.txt", "b.txt"])
            #expect(try await xds("show", "-r", ".", in: mountPoint).status == 1)
        } cleanup: {
            _ = try? await sh("umount '\(mountPoint)'")
        }
    }
}
