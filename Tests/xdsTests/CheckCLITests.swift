import Foundation
import Testing
import XDSTestSupport

/// `xds check` and `xds strip --mac-metadata` (SPEC §6 "Before publishing") run as a user runs
/// them: the built binary on trees made with setfattr, zip and git in temporary folders; the
/// last line's commands run with /bin/sh make `check` exit 0.
@Suite("check and strip --mac-metadata", .timeLimit(.minutes(3)))
struct CheckCLITests {
    static let quarantine = Array("0083;5fad2a2e;Safari;5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F".utf8)
    static let zoneFile = Array("[ZoneTransfer]\r\nZoneId=3\r\n".utf8)

    /// A release folder as a Mac and WSL leave it: `rel/a.png` with a quarantine, Finder info and
    /// `user.mime_type`, its `._a.png` (a quarantine and a provenance entry), `a.png:Zone.Identifier`,
    /// `.DS_Store`, `__MACOSX/sub/._b`, `.AppleDouble/a.png`, `sub/c.txt` with Samba's
    /// `AFP_AfpInfo` stream, `sub/._link` a link to a file outside, `keep.txt` plain.
    func release() async throws -> (TemporaryFolder, outside: String) {
        let folder = TemporaryFolder()
        folder.folder("rel/sub")
        folder.folder("rel/__MACOSX/sub")
        folder.folder("rel/.AppleDouble")
        let a = folder.file("rel/a.png", "png")
        try await folder.setAttribute(a, Self.quarantine, name: "user.com.apple.quarantine")
        try await folder.setAttribute(a, [UInt8](repeating: 0, count: 32), name: "user.com.apple.FinderInfo")
        try await folder.setAttribute(a, Array("image/png".utf8), name: "user.mime_type")
        folder.write("rel/._a.png", bytes: appleDoubleBytes(attributes: [
            ("com.apple.quarantine", Self.quarantine), ("com.apple.provenance", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
        ]))
        folder.write("rel/a.png:Zone.Identifier", bytes: Self.zoneFile)
        folder.file("rel/.DS_Store", "finder")
        folder.write("rel/__MACOSX/sub/._b", bytes: appleDoubleBytes(attributes: []))
        folder.file("rel/.AppleDouble/a.png", "netatalk")
        let c = folder.file("rel/sub/c.txt", "c")
        try await folder.setAttribute(c, [UInt8](repeating: 0, count: 61), name: "user.DosStream.AFP_AfpInfo:$DATA")
        let outside = folder.file("outside.txt", "not Mac metadata")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/rel/sub/._link", withDestinationPath: outside)
        folder.file("rel/keep.txt", "keep")
        return (folder, outside)
    }

    @Test("check: the lines of strip -r -n --mac-metadata, the last line with counts and the fix command; status 1")
    func checkLines() async throws {
        let (folder, _) = try await release()
        let dry = try await xds("strip", "-r", "-n", "--mac-metadata", "-j", "1", "rel", in: folder.path)
        let check = try await xds("check", "-j", "1", "rel", in: folder.path)
        #expect(check.status == 1, "\(check)")
        #expect(check.stderr.isEmpty)
        var lines = check.stdout.split(separator: "\n").map(String.init)
        let last = lines.removeLast()
        #expect(lines.joined(separator: "\n") + "\n" == dry.stdout)
        #expect(Set(lines) == [
            "rel/._a.png: sidecar", "rel/a.png:Zone.Identifier: zone-file", "rel/a.png: quarantine (xattr)",
            "rel/a.png: apple-attribute user.com.apple.FinderInfo", "rel/.DS_Store: ds-store", "rel/__MACOSX: macosx-folder",
            "rel/.AppleDouble: appledouble-folder", "rel/sub/c.txt: apple-attribute user.DosStream.AFP_AfpInfo:$DATA",
            "rel/sub/._link: sidecar",
        ])
        #expect(last == "9 found (2 apple-attribute, 2 sidecar, 1 appledouble-folder, 1 ds-store, 1 macosx-folder, 1 quarantine, 1 zone-file); to remove them: xds strip -r --mac-metadata -- rel")
        // Nothing found: nothing printed, 0.
        let clean = try await xds("check", "rel/keep.txt", in: folder.path)
        #expect(clean.status == 0 && clean.stdout.isEmpty && clean.stderr.isEmpty, "\(clean)")
    }

    @Test("the last line's command makes check exit 0; the link is unlinked, never followed; other attributes stay")
    func fixLineCleans() async throws {
        let (folder, outside) = try await release()
        let check = try await xds("check", "--allow", "macos-provenance", "rel", in: folder.path)
        #expect(check.status == 1)
        let last = try #require(check.stdout.split(separator: "\n").last)
        let command = try #require(last.split(separator: ": ", maxSplits: 1).last)
        #expect(command.hasPrefix("to remove them: xds strip -r --mac-metadata --keep macos-provenance -- rel") || command.contains("xds strip -r --mac-metadata --keep macos-provenance -- rel"))
        let fix = String(last[last.range(of: "to remove them: ")!.upperBound...])
        let ran = try await run("/bin/sh", ["-c", fix], in: folder.path, environment: ["PATH": (xdsPath as NSString).deletingLastPathComponent + ":/usr/bin:/bin"])
        #expect(ran.status == 0, "\(ran)")
        let again = try await xds("check", "--allow", "macos-provenance", "rel", in: folder.path)
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again)")
        #expect(FileManager.default.contents(atPath: outside) == Data("not Mac metadata".utf8))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/rel/__MACOSX"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/rel/.AppleDouble"))
        // The sidecar held a kept mark: rewritten to hold only it.
        let kept = try await xds("where", "--json", "rel/a.png", in: folder.path)
        #expect(kept.stdout.contains("\"kind\":\"macos-provenance\",\"store\":\"appledouble\""), "\(kept)")
        #expect(!kept.stdout.contains("quarantine"))
        let attributes = try await run("/usr/bin/getfattr", ["-d", "-m", "-", "rel/a.png"], in: folder.path)
        #expect(attributes.stdout.contains("user.mime_type") && !attributes.stdout.contains("com.apple"), "\(attributes)")
        // Without the allowance, check finds the kept mark again.
        #expect(try await xds("check", "rel", in: folder.path).status == 1)
    }

    @Test("--json: one object per finding, keys where they apply; --github: escaped workflow commands, then the last line")
    func jsonAndGitHub() async throws {
        let folder = TemporaryFolder()
        folder.folder("d")
        let file = folder.file("d/a,b:c%.txt", "x")
        try await folder.setAttribute(file, Self.quarantine, name: "user.com.apple.quarantine")
        try await folder.setAttribute(file, [0], name: "user.com.apple.metadata:_kMDItemUserTags")
        let json = try await xds("check", "--json", "-j", "1", "d", in: folder.path)
        #expect(json.status == 1)
        #expect(json.stdout == """
            {"file":"d/a,b:c%.txt","what":"mark","kind":"quarantine","store":"xattr"}
            {"file":"d/a,b:c%.txt","what":"apple-attribute","name":"user.com.apple.metadata:_kMDItemUserTags"}

            """)
        let github = try await xds("check", "--github", "-j", "1", "d", in: folder.path)
        #expect(github.status == 1)
        #expect(github.stdout == """
            ::error file=d/a%2Cb%3Ac%25.txt::mark quarantine (xattr)
            ::error file=d/a%2Cb%3Ac%25.txt::apple-attribute user.com.apple.metadata:_kMDItemUserTags
            2 found (1 apple-attribute, 1 quarantine); to remove them: xds strip -r --mac-metadata -- d

            """)
    }

    @Test("statuses: 66 missing, 64 --json with --github, 64 unknown or mark words; strip without --mac-metadata refuses words")
    func statuses() async throws {
        let folder = TemporaryFolder()
        #expect(try await xds("check", "nothing-here", in: folder.path).status == 66)
        #expect(try await xds("check", "--json", "--github", in: folder.path).status == 64)
        #expect(try await xds("check", "--allow", "mark", in: folder.path).status == 64)
        #expect(try await xds("check", "--allow", "nonsense", in: folder.path).status == 64)
        #expect(try await xds("strip", "-r", "--only", "sidecar", ".", in: folder.path).status == 64)
        #expect(try await xds("strip", "-r", "--mac-metadata", "--only", "sidecar", "--keep", "sidecar", ".", in: folder.path).status == 64)
        #expect(try await xds("check", in: folder.path).status == 0)
    }

    @Test("--names-only in git: names alone; the fix line deletes the files and git rm --cached unstages them")
    func namesOnlyInGit() async throws {
        let folder = TemporaryFolder()
        let git = ["GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "HOME": folder.path,
                   "PATH": (xdsPath as NSString).deletingLastPathComponent + ":/usr/bin:/bin"]
        folder.folder("repo/docs")
        let a = folder.file("repo/docs/a.png", "png")
        try await folder.setAttribute(a, Self.quarantine, name: "user.com.apple.quarantine")
        folder.write("repo/docs/a.png:Zone.Identifier", bytes: Self.zoneFile)
        folder.write("repo/docs/._a.png", bytes: appleDoubleBytes(attributes: []))
        folder.file("repo/.DS_Store", "finder")
        let setup = try await run("/bin/sh", ["-c", "git init -q && git add -A && git -c user.name=t -c user.email=t@e commit -q -m x"],
                            in: folder.path + "/repo", environment: git)
        #expect(setup.status == 0, "\(setup)")
        let check = try await run(xdsPath, ["check", "--names-only", "-j", "1"], in: folder.path + "/repo")
        #expect(check.status == 1)
        let lines = check.stdout.split(separator: "\n").map(String.init)
        #expect(Set(lines.dropLast()) == ["./docs/._a.png: sidecar", "./docs/a.png:Zone.Identifier: zone-file", "./.DS_Store: ds-store"])
        let last = try #require(lines.last)
        #expect(last.contains("xds strip --mac-metadata --only sidecar,ds-store,macosx-folder,appledouble-folder,zone-file -- "))
        #expect(last.contains("; git rm -r -q --cached --ignore-unmatch -- "))
        let fix = String(last[last.range(of: "to remove them: ")!.upperBound...])
        let ran = try await run("/bin/sh", ["-c", fix], in: folder.path + "/repo", environment: git)
        #expect(ran.status == 0, "\(ran)")
        let again = try await run(xdsPath, ["check", "--names-only"], in: folder.path + "/repo")
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again)")
        let staged = try await run("/bin/sh", ["-c", "git ls-files"], in: folder.path + "/repo", environment: git)
        #expect(staged.stdout == "docs/a.png\n", "\(staged)")
    }

    @Test("archives are looked into: __MACOSX/ once, ._ entries by name, marks under their member")
    func archiveFindings() async throws {
        let folder = TemporaryFolder()
        folder.folder("z/__MACOSX")
        folder.file("z/a.png", "png")
        folder.write("z/__MACOSX/._a.png", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", Self.quarantine)]))
        folder.write("z/._b.png", bytes: appleDoubleBytes(attributes: [("com.apple.FinderInfo", [1])]))
        folder.write("z/._c.png", bytes: appleDoubleBytes(attributes: [], resourceFork: oneResourceFork))
        let zipped = try await run("/usr/bin/zip", ["-q", "-r", "../r.zip", "a.png", "__MACOSX", "._b.png", "._c.png"], in: folder.path + "/z")
        #expect(zipped.status == 0, "\(zipped)")
        let check = try await xds("check", "r.zip", in: folder.path)
        #expect(check.status == 1, "\(check)")
        #expect(check.stdout == """
            r.zip!/__MACOSX: macosx-folder
            r.zip!/._b.png: sidecar
            r.zip!/._c.png: sidecar
            3 found (2 sidecar, 1 macosx-folder); to remove them: xds strip --mac-metadata -o r.zip.clean -- r.zip && mv -- r.zip.clean r.zip

            """)
        // strip -r -n lists them too (the archive is not rewritten in place: status 1, said so).
        let dry = try await xds("strip", "-r", "-n", "--mac-metadata", ".", in: folder.path)
        #expect(dry.stdout.contains("./r.zip!/__MACOSX: macosx-folder\n"), "\(dry)")
    }

    @Test("""
        an entry that must be read and cannot be is 65, never clean; --github names it; unread, a ._ entry is a sidecar; \
        a name with a control character is cleaned by hand
        """)
    func unreadableAndByHand() async throws {
        let folder = TemporaryFolder()
        folder.folder("z")
        folder.file("z/a.png", "png")
        folder.write("z/._a.png", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", Self.quarantine)]))
        let zipped = try await run("/usr/bin/zip", ["-q", "-e", "-P", "pw", "../e.zip", "a.png", "._a.png"], in: folder.path + "/z")
        #expect(zipped.status == 0, "\(zipped)")
        // Every ._ entry goes whatever it holds: the copy drops it unread, check names it.
        let unread = try await xds("check", "e.zip", in: folder.path)
        #expect(unread.status == 1, "\(unread)")
        #expect(unread.stdout.hasPrefix("e.zip!/._a.png: sidecar\n1 found (1 sidecar); "), "\(unread)")
        // Read when sidecars are kept (its marks must go), or when it may hold a kept mark.
        for allow in ["sidecar", "macos-provenance"] {
            let github = try await xds("check", "--github", "--allow", allow, "e.zip", in: folder.path)
            #expect(github.status == 65, "\(github)")
            #expect(github.stdout == "::error file=e.zip::cannot be read (encrypted) in ._a.png\n")
            #expect(github.stderr.contains("xds: e.zip: ._a.png is encrypted"))
        }
        folder.folder("n")
        folder.file("n/._a\tb")
        let byHand = try await xds("check", "--names-only", "n", in: folder.path)
        #expect(byHand.status == 1)
        #expect(byHand.stdout == "n/._a\\tb: sidecar\n1 found (1 sidecar) (1 more to clean by hand, listed above)\n")
    }
}
