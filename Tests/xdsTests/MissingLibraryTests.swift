import Foundation
import Testing
import XDSTestSupport

/// Each of the five C libraries xds loads on first use, absent from the system (hidden in a
/// private mount namespace, see ``HiddenLibraries``): the command that needs it says so in one
/// line naming the library and the files tried, with its usual exit status; `xds --version`
/// says which are missing; commands that do not need it work. libcurl's own case, with its
/// cache, is in CurlCLITests.
@Suite("A C library missing at run time: one line naming it", .serialized, .timeLimit(.minutes(3)),
       .enabled("needs root, unshare --mount and overlay mounts") { await HiddenLibraries.isSupported })
final class MissingLibraryTests: @unchecked Sendable {
    let work: URL

    init() async throws {
        work = try ScratchFolder.make(prefix: "xds-missing-library")
        try Data(try Repository.bytes("img/icon-58.png")).write(to: work.appendingPathComponent("in.png"))
        let made = try await run("/bin/sh", ["-c", """
            : > doc.txt && \(HiddenLibraries.quoted([xdsPath])) set doc.txt --id com.example.app --name Example \
            && tar --xattrs -czf a.tgz doc.txt
            """], in: work.path)
        try #require(made.status == 0, "\(made)")
    }

    deinit { try? FileManager.default.removeItem(at: work) }

    /// Runs xds with `arguments` where the libraries named by `prefixes` are not installed.
    func xdsWithout(_ prefixes: [String], _ arguments: [String]) async throws -> Run {
        try await HiddenLibraries.run(hiding: prefixes, HiddenLibraries.quoted([xdsPath] + arguments), in: work.path)
    }

    @Test("libplist missing: set is 74 with one line; show of a binary value needs none; --version says so")
    func libplist() async throws {
        let set = try await xdsWithout(["libplist-2.0.so"], ["set", "doc.txt", "--id", "com.example.other", "--name", "Other"])
        #expect(set.status == 74, "\(set)")
        #expect(set.stderr == "xds: doc.txt: cannot encode the value: libplist is not installed "
                + "(tried libplist-2.0.so.4, libplist-2.0.so.3, libplist-2.0.so)\n", "\(set)")
        let show = try await xdsWithout(["libplist-2.0.so"], ["show", "doc.txt"])
        #expect(show.status == 0 && show.stdout.contains("com.example.app"), "\(show)")
        let version = try await xdsWithout(["libplist-2.0.so"], ["--version"])
        #expect(version.status == 0, "\(version)")
        #expect(version.stdout.split(separator: "\n").dropFirst().first
                == "libplist is not installed (tried libplist-2.0.so.4, libplist-2.0.so.3, libplist-2.0.so)", "\(version)")
    }

    @Test("zlib missing: mask is 74 (the system's fault, not the image's) with one line naming zlib; libcurl and libarchive, which need it, are not called missing")
    func zlib() async throws {
        let mask = try await xdsWithout(["libz.so"], ["mask", "in.png", "-o", "out.png"])
        #expect(mask.status == 74, "\(mask)")
        #expect(mask.stderr == "xds: in.png: zlib is not installed (tried libz.so.1, libz.so)\n", "\(mask)")
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("out.png").path))
        let version = try await xdsWithout(["libz.so"], ["--version"])
        let lines = version.stdout.split(separator: "\n").map(String.init)
        #expect(version.status == 0 && lines.count == 4, "\(version)")
        #expect(lines.dropFirst(2).allSatisfy { $0.contains("could not be loaded: libz.so.1: cannot open shared object file") },
                "a library whose dependency is missing says which: \(version)")
    }

    @Test("libdeflate missing: mask and appinfo are 74 with one line naming libdeflate, nothing written")
    func libdeflate() async throws {
        let mask = try await xdsWithout(["libdeflate.so"], ["mask", "in.png", "-o", "out.png"])
        #expect(mask.status == 74, "\(mask)")
        #expect(mask.stderr == "xds: in.png: libdeflate is not installed (tried libdeflate.so.0, libdeflate.so)\n", "\(mask)")
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("out.png").path))
        // appinfo decodes the bundle's icon with the same codec: the system's fault, 74.
        let app = work.appendingPathComponent("Editor.app")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: work.appendingPathComponent("in.png"), to: app.appendingPathComponent("Icon.png"))
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>com.example.editor</string>
            <key>CFBundleName</key><string>Editor</string>
            <key>CFBundleIconFiles</key><array><string>Icon.png</string></array>
            </dict></plist>
            """.utf8).write(to: app.appendingPathComponent("Info.plist"))
        let appinfo = try await xdsWithout(["libdeflate.so"], ["appinfo", "Editor.app", "-o", "site"])
        #expect(appinfo.status == 74, "\(appinfo)")
        #expect(appinfo.stderr.hasSuffix("libdeflate is not installed (tried libdeflate.so.0, libdeflate.so)\n")
                && appinfo.errorLines.count == 1, "\(appinfo)")
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("site/appInfo.json").path))
    }

    @Test("libarchive missing: show of a tar is 74 with one line; show of a file needs none; --version says so")
    func libarchive() async throws {
        let show = try await xdsWithout(["libarchive.so"], ["show", "a.tgz"])
        #expect(show.status == 74, "\(show)")
        #expect(show.stderr == "xds: a.tgz: libarchive is not installed (tried libarchive.so.13, libarchive.so)\n", "\(show)")
        let file = try await xdsWithout(["libarchive.so"], ["show", "doc.txt"])
        #expect(file.status == 0 && file.stdout.contains("com.example.app"), "\(file)")
        let version = try await xdsWithout(["libarchive.so"], ["--version"])
        #expect(version.stdout.split(separator: "\n").last == "libarchive is not installed (tried libarchive.so.13, libarchive.so)",
                "\(version)")
    }

    @Test("libcurl missing: --version says so, one line")
    func libcurl() async throws {
        let version = try await xdsWithout(["libcurl.so", "libcurl-gnutls.so"], ["--version"])
        #expect(version.status == 0, "\(version)")
        #expect(version.stdout.split(separator: "\n").dropFirst(2).first
                == "libcurl is not installed (tried libcurl.so.4, libcurl-gnutls.so.4)", "\(version)")
    }
}
