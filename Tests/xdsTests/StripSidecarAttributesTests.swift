import Foundation
import Testing
import XDSTestSupport

/// A sidecar `._NAME` that xds rewrites keeps its owner, mode and its own extended attributes
/// (SPEC §6, issue 31 H4): a POSIX ACL (setfacl; acl(5) keeps it in `system.posix_acl_access`),
/// Samba's NT ACL (`security.NTACL`, as vfs_acl_xattr stores it), `user.*` and, as root,
/// `trusted.*`. One the process may not set (EPERM) is left out without a word; any other
/// failure leaves the old sidecar as it was (74). Files written with `-o` take no attribute
/// from the file they replace. Set with setfacl and setfattr, read back with getfacl and
/// getfattr, on a temporary folder under /tmp (ext4 here; the tests skip without ACLs).
@Suite("rewritten sidecars keep their attributes; -o files take none", .timeLimit(.minutes(3)))
struct StripSidecarAttributesTests {
    static let quarantine = Array("0083;5fad2a2e;Safari;5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F".utf8)
    static let tags = ("com.apple.metadata:_kMDItemUserTags", Array("bplist-tags".utf8))
    /// A value shaped like Samba's (a version, then the NT security descriptor's bytes).
    static let ntACL = "0x0400040000000200040002000100"

    /// Whether this system's /tmp takes POSIX ACLs and `security.` attributes (and the tools are there).
    static var canACL: Bool {
        get async { await canACLProbe.value }
    }

    private static let canACLProbe = Task<Bool, Never> {
        let folder = TemporaryFolder()
        let probe = folder.file("probe")
        let run = try? await ProcessRunner.run("/bin/sh", ["-c", "setfacl -m u:nobody:r \"$1\" && setfattr -n security.NTACL -v 0x01 \"$1\"", "sh", probe])
        return run?.status == 0
    }

    /// `name` and its sidecar `._name` (a quarantine and a Finder tag list that keeps it), the sidecar owned by nobody, mode 0640, with an ACL entry for nobody, `user.keep`,
    /// `trusted.keep` and `security.NTACL`.
    func sidecar(in folder: TemporaryFolder, _ name: String = "s") async throws -> String {
        folder.file(name)
        let slash = name.lastIndex(of: "/").map { name.index(after: $0) } ?? name.startIndex
        let sidecarName = String(name[..<slash]) + "._" + String(name[slash...])
        let sidecar = folder.write(sidecarName, bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", Self.quarantine), Self.tags]))
        let made = try await sh("""
            chown 65534:65534 "$0" && chmod 0640 "$0" && setfacl -m u:nobody:r "$0" && setfattr -n user.keep -v kept "$0" && \
            setfattr -n trusted.keep -v 0x00ff "$0" && setfattr -n security.NTACL -v \(Self.ntACL) "$0"
            """.replacingOccurrences(of: "$0", with: sidecar))
        try #require(made.status == 0, "\(made)")
        return sidecar
    }

    /// Everything about a file but its bytes and inode: owner, group, mode, every attribute
    /// (getfattr -m -: the ACL's `system.posix_acl_access` included) and the ACL in words.
    func attributes(_ path: String) async throws -> String {
        let owner = try await run("/usr/bin/stat", ["-c", "%u:%g %a", path])
        let all = try await run("/usr/bin/getfattr", ["--absolute-names", "-d", "-m", "-", "-e", "hex", path])
        let acl = try await run("/usr/bin/getfacl", ["-c", "-p", path])
        // Sorted: a new file may list its attributes in another order.
        return owner.stdout + all.stdout.split(separator: "\n").sorted().joined(separator: "\n") + "\n" + acl.stdout
    }

    func inode(_ path: String) async throws -> String { try await run("/usr/bin/stat", ["-c", "%i", path]).stdout }

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test("strip FILE and strip -r: the rewritten ._s keeps its ACL, user., trusted. and security.NTACL, owner and mode",
          .enabled("needs setfacl and security. attributes on /tmp") { await canACL }, arguments: [false, true])
    func stripKeeps(recursive: Bool) async throws {
        let folder = TemporaryFolder()
        folder.folder("d")
        let sidecar = try await sidecar(in: folder, "d/s")
        let before = try await attributes(sidecar)
        #expect(before.contains("user:nobody:r--") && before.contains("user.keep=") && before.contains("trusted.keep=0x00ff")
                && before.contains("security.NTACL=") && before.contains("65534:65534 640"), "\(before)")
        let oldInode = try await inode(sidecar)
        let result = try await xds(recursive ? ["strip", "-r", "d"] : ["strip", "d/s"], in: folder.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        let rewritten = try bytes(sidecar)
        #expect(!rewritten.contains(subsequence: Array("com.apple.quarantine".utf8)) && rewritten.contains(subsequence: Self.tags.1))
        #expect(try await inode(sidecar) != oldInode)  // a new file, renamed over the old one
        #expect(try await attributes(sidecar) == before)
        #expect(try await sh("ls -A d", in: folder.path).stdout == "._s\ns\n")  // no temporary file left
    }

    @Test("a folder's default ACL does not reach a rewritten sidecar that had no ACL of its own",
          .enabled("needs setfacl and security. attributes on /tmp") { await canACL })
    func defaultACLNotInherited() async throws {
        let folder = TemporaryFolder()
        folder.folder("d")
        let sidecar = try await sidecar(in: folder, "d/s")
        let made = try await sh("setfacl -b d/._s && setfacl -d -m u:nobody:rw d", in: folder.path)
        try #require(made.status == 0, "\(made)")
        let before = try await attributes(sidecar)
        #expect(!before.contains("nobody") && !before.contains("posix_acl"), "\(before)")
        let result = try await xds("strip", "d/s", in: folder.path)
        #expect(result.status == 0, "\(result)")
        #expect(try await attributes(sidecar) == before)
    }

    @Test("set --sidecar and remove --sidecar rewrite through the same writer: the attributes stay",
          .enabled("needs setfacl and security. attributes on /tmp") { await canACL })
    func setAndRemoveKeep() async throws {
        let folder = TemporaryFolder()
        let sidecar = try await sidecar(in: folder)
        let before = try await attributes(sidecar)
        let set = try await xds("set", "s", "--id", "com.example.app", "--name", "App", "--sidecar", in: folder.path)
        #expect(set.status == 0, "\(set)")
        #expect(try bytes(sidecar).contains(subsequence: Array("x-document-source".utf8)))
        #expect(try await attributes(sidecar) == before)
        let removed = try await xds("remove", "s", "--sidecar", in: folder.path)
        #expect(removed.status == 0, "\(removed)")
        #expect(!(try bytes(sidecar)).contains(subsequence: Array("x-document-source".utf8)))
        #expect(try await attributes(sidecar) == before)
    }

    @Test("an attribute the process may not set (security.NTACL as nobody) is left out without a word",
          .enabled("needs setfacl and security. attributes on /tmp") { await canACL })
    func notPermittedIsSkipped() async throws {
        let folder = TemporaryFolder()
        let sidecar = try await sidecar(in: folder)
        _ = try await sh("chmod 0777 . && chown 65534:65534 s && chmod 0644 s", in: folder.path)
        let before = try await attributes(sidecar)
        let result = try await sh("setpriv --reuid=65534 --regid=65534 --clear-groups \(xdsPath) strip s", in: folder.path)
        try #require(!result.stderr.contains("setpriv:"), "setpriv unavailable: \(result.stderr)")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        #expect(!(try bytes(sidecar)).contains(subsequence: Array("com.apple.quarantine".utf8)))
        let after = try await attributes(sidecar)
        // Nobody may read trusted. attributes (not listed) and set no security. one: both left out.
        let expected = before.split(separator: "\n").filter { !$0.hasPrefix("security.NTACL") && !$0.hasPrefix("trusted.keep") }
        #expect(after.split(separator: "\n") == expected, "\(after)")
        #expect(after.contains("user:nobody:r--") && after.contains("user.keep="))
    }

    /// The fault library of Tests/Fixtures/xattr-fault, compiled into `folder` (removed with it).
    static func faultLibrary(in folder: TemporaryFolder) async throws -> String {
        let library = folder.path + "/xattr_fault.so"
        let made = try await run("/usr/bin/cc", ["-shared", "-fPIC", "-O1", "-Wall", "-o", library,
                                           Fixtures.url("xattr-fault/xattr_fault.c").path, "-ldl"])
        try #require(made.status == 0, "cc failed: \(made)")
        return library
    }

    @Test("a failure to set one (EIO) leaves the old sidecar as it was, 74; EPERM is skipped",
          .enabled("needs setfacl, security. attributes and cc") { await canACL && FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") })
    func otherFailureKeepsOldSidecar() async throws {
        let folder = TemporaryFolder()
        folder.folder("w")
        let library = try await Self.faultLibrary(in: folder)
        let sidecar = try await sidecar(in: folder, "w/s")
        let before = try await attributes(sidecar)
        let oldBytes = try bytes(sidecar), oldInode = try await inode(sidecar)
        let failed = try await run(xdsPath, ["strip", "w/s"], in: folder.path,
                             environment: ["LD_PRELOAD": library, "XDS_FAULT_XATTR": "user.keep", "XDS_FAULT_ERRNO": "\(EIO)"])
        #expect(failed.status == 74, "\(failed)")
        #expect(failed.stderr.hasPrefix("xds: w/s: cannot give the rewritten AppleDouble sidecar ")
                && failed.stderr.hasSuffix("/._s its extended attributes: input/output error; it is left as it was\n"), "\(failed.stderr)")
        let newInode = try await inode(sidecar)
        #expect(try bytes(sidecar) == oldBytes && newInode == oldInode)
        #expect(try await attributes(sidecar) == before)
        #expect(try await sh("ls -A w", in: folder.path).stdout == "._s\ns\n")
        let skipped = try await run(xdsPath, ["strip", "w/s"], in: folder.path,
                              environment: ["LD_PRELOAD": library, "XDS_FAULT_XATTR": "user.keep", "XDS_FAULT_ERRNO": "\(EPERM)"])
        #expect(skipped.status == 0 && skipped.stderr.isEmpty, "\(skipped)")
        #expect(try await attributes(sidecar) == before.replacingOccurrences(of: "\nuser.keep=0x6b657074", with: ""))
    }

    @Test("strip ARCHIVE -o and mask -o over a file with attributes: the new file has none of them",
          .enabled("needs setfacl and security. attributes on /tmp") { await canACL })
    func outputsTakeNone() async throws {
        let folder = TemporaryFolder()
        folder.folder("z")
        folder.file("z/doc.txt")
        let zipped = try await sh("cd z && zip -q ../a.zip doc.txt", in: folder.path)
        try #require(zipped.status == 0, "\(zipped)")
        try MaskHarness.writePNG(folder.path + "/in.png", width: 32, height: 32) { x, y in (UInt8(x * 8), UInt8(y * 8), 9, 255) }
        for name in ["clean.zip", "out.png"] {
            folder.file(name, "old\n")
            let marked = try await sh("""
                setfacl -m u:nobody:r \(name) && setfattr -n user.keep -v kept \(name) && \
                setfattr -n trusted.keep -v 1 \(name) && setfattr -n security.NTACL -v \(Self.ntACL) \(name)
                """, in: folder.path)
            try #require(marked.status == 0, "\(marked)")
        }
        let strip = try await xds("strip", "a.zip", "-o", "clean.zip", in: folder.path)
        #expect(strip.status == 0, "\(strip)")
        let mask = try await xds("mask", "in.png", "-o", "out.png", in: folder.path)
        #expect(mask.status == 0, "\(mask)")
        for name in ["clean.zip", "out.png"] {
            let left = try await run("/usr/bin/getfattr", ["-d", "-m", "-", name], in: folder.path)
            #expect(left.stdout.isEmpty, "\(name): \(left.stdout)")
            #expect(try await run("/usr/bin/getfacl", ["-c", name], in: folder.path).stdout == "user::rw-\ngroup::r--\nother::r--\n\n")
        }
    }
}

/// `strip FILE` rewrites a sidecar in one edit and one write, however many kinds of mark it
/// holds (SPEC §6; it wrote once per kind): the renames into the folder counted with inotify(7)
/// (Python's ctypes, no module to install), while xds runs. Inode numbers could not tell: a
/// freed inode may be given to the next new file.
@Suite("strip rewrites a sidecar once")
struct StripSidecarOneWriteTests {
    /// Runs `arguments` in `folder` and prints, after its status, the name of every file
    /// renamed into the folder meanwhile (IN_MOVED_TO), one a line.
    static let renames = """
        import ctypes, os, struct, subprocess, sys
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(os.O_NONBLOCK)
        # IN_MOVED_TO, and IN_CREATE between them: the kernel merges identical events in a row.
        if fd < 0 or libc.inotify_add_watch(fd, b".", 0x180) < 0:
            sys.exit("inotify: " + os.strerror(ctypes.get_errno()))
        run = subprocess.run(sys.argv[1:], capture_output=True)
        print(run.returncode)
        sys.stderr.write(run.stderr.decode())
        while True:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                break
            at = 0
            while at < len(data):
                _, mask, _, length = struct.unpack_from("iIII", data, at)
                if mask & 0x80:
                    print(data[at + 16:at + 16 + length].rstrip(b"\\0").decode())
                at += 16 + length
        """

    @Test("strip FILE and strip -r: a sidecar with three kinds of mark is renamed into place once", arguments: [false, true])
    func oneRename(recursive: Bool) async throws {
        let folder = TemporaryFolder()
        folder.file("s")
        let lastUsed: [UInt8] = [0x4e, 0xae, 0x12, 0x5f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        folder.write("._s", bytes: appleDoubleBytes(attributes: [
            ("com.apple.quarantine", StripSidecarAttributesTests.quarantine), ("com.apple.lastuseddate#PS", lastUsed),
            ("com.apple.provenance", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), StripSidecarAttributesTests.tags,
        ]))
        let dry = try await xds("strip", "-n", "s", in: folder.path)
        #expect(dry.stdout == "s: quarantine (appledouble)\ns: last-used-date (appledouble)\ns: macos-provenance (appledouble)\n", "\(dry)")
        let result = try await python(Self.renames, [xdsPath, "strip"] + (recursive ? ["-r", "."] : ["s"]), in: folder.path)
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(result.stdout == "0\n._s\n", "\(result)")
        let left = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.path + "/._s")))
        #expect(left.contains(subsequence: StripSidecarAttributesTests.tags.1))
        for gone in ["com.apple.quarantine", "com.apple.lastuseddate#PS", "com.apple.provenance"] {
            #expect(!left.contains(subsequence: Array(gone.utf8)))
        }
    }
}

extension Array where Element == UInt8 {
    /// Whether `part` occurs in these bytes.
    fileprivate func contains(subsequence part: [UInt8]) -> Bool {
        guard part.count <= count else { return false }
        return (0...(count - part.count)).contains { self[$0..<($0 + part.count)].elementsEqual(part) }
    }
}
