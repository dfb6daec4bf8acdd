import Foundation
import Testing
import XDSTestSupport

/// The stand-in libplists of Tests/Fixtures/libplist-shim, compiled once per test run: each
/// exports one series' symbol set and ABI and forwards to the system's real libplist 2.2.
enum PlistShim {
    /// The system's libplist 2.2 (the shims forward to it), from ldconfig's cache; nil elsewhere.
    static var realLibrary: String? {
        get async { await realLibraryProbe.value }
    }

    private static let realLibraryProbe = Task<String?, Never> {
        guard let cache = try? await run("/sbin/ldconfig", ["-p"]), cache.status == 0 else { return nil }
        for line in cache.stdout.split(separator: "\n") where line.contains("libplist-2.0.so.3 ") {
            if let arrow = line.range(of: "=> ") { return String(line[arrow.upperBound...]) }
        }
        return nil
    }

    static var canBuild: Bool {
        get async { await realLibrary != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") }
    }

    /// Builds variant `name` as `soname` with the compiler flags `defines` into its own folder
    /// under `scratch` (to put first on LD_LIBRARY_PATH); returns that folder.
    static func build(_ name: String, soname: String, _ defines: [String], in scratch: URL) async throws -> String {
        let folder = scratch.appendingPathComponent("shim-" + name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let library = folder.appendingPathComponent(soname).path
        let source = Fixtures.url("libplist-shim/plist_shim.c").path
        let made = try await run("/usr/bin/cc", ["-shared", "-fPIC", "-O1", "-Wall", "-o", library, "-Wl,-soname,\(soname)",
                                           "-DREAL_LIBPLIST=\"\(try #require(await realLibrary))\""] + defines + [source, "-ldl"])
        try #require(made.status == 0, "cc failed: \(made)")
        return folder.path
    }
}

/// Which libplist xds loads and how it calls it, on a system that has only libplist 2.2: a
/// stand-in library first on LD_LIBRARY_PATH exports the symbol set of 2.2 (libplist-2.0.so.3,
/// plist_to_bin_free) or of 2.3+ (libplist-2.0.so.4, plist_mem_free, plist_err_t results,
/// PLIST_NONE -1), forwards to the real 2.2 and logs the calls whose choice is tested. set, show
/// of an XML value (parsed by libplist) and set --from-bundle with a binary Info.plist (read
/// through libplist's nodes) must give what they give without it. (The real 2.3.0 and 2.7.0 are
/// tested outside `make test`: scripts/test-libplist-version.sh.)
@Suite("libplist 2.2 and 2.3+ ABIs (stand-in libraries built at test time)", .serialized, .timeLimit(.minutes(3)),
       .enabled("needs the system's libplist-2.0.so.3 and cc") { await PlistShim.canBuild })
final class LibplistLoadingTests: @unchecked Sendable {
    let work: URL

    init() async throws {
        work = try ScratchFolder.make(prefix: "xds-plist-loading")
        for name in ["doc.txt", "xml.txt", "bundle.txt", "expected.txt"] {
            try Data().write(to: work.appendingPathComponent(name))
        }
        let xml = try await plistlib("{'identifier': 'com.example.xml', 'name': 'XML', 'count': -3, 'list': [1.5, True, b'\\x00']}",
                               format: "XML")
        let stored = try await run("/usr/bin/env", ["python3", "-c", "import os, sys; os.setxattr(sys.argv[1], 'user.x-document-source', sys.stdin.buffer.read())",
                                              work.appendingPathComponent("xml.txt").path], input: Data(xml))
        try #require(stored.status == 0, "\(stored)")
        let bundle = work.appendingPathComponent("Editor.app")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let info = try await plistlib("""
            {'CFBundleIdentifier': 'com.example.editor', 'CFBundleDisplayName': 'Editor Pro', \
            'Other': {'n': [1, -2, 2**40, 3.25, False, b'\\x01\\x02', datetime.datetime(2020, 1, 2, 3, 4, 5), plistlib.UID(7)]}}
            """)
        try Data(info).write(to: bundle.appendingPathComponent("Info.plist"))
    }

    deinit { try? FileManager.default.removeItem(at: work) }

    var log: URL { work.appendingPathComponent("calls.log") }

    /// Runs xds in the scratch folder with `shim` first on the library path, logging to ``log``.
    func xds(_ arguments: [String], shim: String?) async throws -> Run {
        var environment: [String: String] = [:]
        if let shim {
            environment = ["LD_LIBRARY_PATH": shim, "XDS_TEST_PLIST_SHIM_LOG": log.path]
        }
        return try await run(xdsPath, arguments, in: work.path, environment: environment)
    }

    func calls() throws -> Set<String> {
        guard FileManager.default.fileExists(atPath: log.path) else { return [] }
        return Set(try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init))
    }

    /// set, show (XML value), set --from-bundle (binary Info.plist) and remove through `shim`;
    /// each the same as without it. Returns the functions the shim logged.
    func setShowRemove(through shim: String) async throws -> Set<String> {
        try? FileManager.default.removeItem(at: log)
        let set = try await xds(["set", "doc.txt", "--id", "com.example.app", "--name", "Example", "--path", "p/doc.txt"], shim: shim)
        #expect(set.status == 0 && set.stderr.isEmpty, "\(set)")
        let shown = try await xds(["show", "--json", "doc.txt"], shim: nil)
        #expect(shown.stdout.contains(#""identifier":"com.example.app""#) && shown.stdout.contains(#""path":"p/doc.txt""#), "\(shown)")

        let xml = try await xds(["show", "--json", "xml.txt"], shim: shim)
        #expect(xml.status == 0, "\(xml)")
        #expect(xml.stdout == (try await self.xds(["show", "--json", "xml.txt"], shim: nil)).stdout, "\(xml)")

        let bundle = try await xds(["set", "bundle.txt", "--from-bundle", "Editor.app"], shim: shim)
        #expect(bundle.status == 0 && bundle.stderr.isEmpty, "\(bundle)")
        _ = try await xds(["set", "expected.txt", "--from-bundle", "Editor.app"], shim: nil)
        let viaShim = try await xds(["show", "--json", "bundle.txt"], shim: nil).stdout
        let direct = try await xds(["show", "--json", "expected.txt"], shim: nil).stdout
        #expect(viaShim.replacingOccurrences(of: "bundle.txt", with: "F") == direct.replacingOccurrences(of: "expected.txt", with: "F"))
        #expect(viaShim.contains(#""name":"Editor Pro""#), "\(viaShim)")

        let remove = try await xds(["remove", "doc.txt"], shim: shim)
        #expect(remove.status == 0, "\(remove)")
        #expect(try await xds(["show", "doc.txt"], shim: nil).status == 1)
        return try calls()
    }

    /// The second line of `xds --version` with `shim` first on the library path.
    func versionLine(_ shim: String) async throws -> String? {
        let version = try await xds(["--version"], shim: shim)
        #expect(version.status == 0, "\(version)")
        return version.stdout.split(separator: "\n").dropFirst().first.map(String.init)
    }

    func realPath(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }

    @Test("2.3+ (libplist-2.0.so.4): loaded before 2.2, buffers freed with plist_mem_free, plist_err_t results and types translated")
    func abi23() async throws {
        let shim = try await PlistShim.build("2.3", soname: "libplist-2.0.so.4", ["-DSHIM_ABI=23"], in: work)
        let calls = try await setShowRemove(through: shim)
        #expect(calls.isSuperset(of: ["plist_to_bin", "plist_from_xml", "plist_from_bin", "plist_get_node_type", "plist_mem_free"]),
                "\(calls)")
        #expect(!calls.contains("plist_to_bin_free"))
        #expect(try await versionLine(shim) == "libplist 2.3 (\(realPath(shim + "/libplist-2.0.so.4")))")
    }

    @Test("2.4+: the version from libplist_version")
    func abi24() async throws {
        let shim = try await PlistShim.build("2.4", soname: "libplist-2.0.so.4", ["-DSHIM_ABI=23", "-DSHIM_VERSION=\"2.4.0-shim\""], in: work)
        #expect(try await versionLine(shim) == "libplist 2.4.0-shim (\(realPath(shim + "/libplist-2.0.so.4")))")
    }

    @Test("2.2 (libplist-2.0.so.3): buffers freed with plist_to_bin_free")
    func abi22() async throws {
        let shim = try await PlistShim.build("2.2", soname: "libplist-2.0.so.3", ["-DSHIM_ABI=22"], in: work)
        let calls = try await setShowRemove(through: shim)
        #expect(calls.isSuperset(of: ["plist_to_bin", "plist_from_xml", "plist_from_bin", "plist_get_node_type", "plist_to_bin_free"]),
                "\(calls)")
        #expect(!calls.contains("plist_mem_free"))
        #expect(try await versionLine(shim) == "libplist 2.2 or older (\(realPath(shim + "/libplist-2.0.so.3")))")
    }

    @Test("a libplist lacking a function: set is 74, one line naming the library, its version and file, and the function")
    func lacking() async throws {
        let shim = try await PlistShim.build("lacking", soname: "libplist-2.0.so.4", ["-DSHIM_ABI=23", "-DSHIM_WITHOUT_NEW_UID"], in: work)
        let set = try await xds(["set", "doc.txt", "--id", "com.example.app", "--name", "Example"], shim: shim)
        #expect(set.status == 74, "\(set)")
        #expect(set.stderr == "xds: doc.txt: cannot encode the value: libplist 2.3 (\(realPath(shim + "/libplist-2.0.so.4"))) lacks plist_new_uid\n",
                "\(set)")
    }
}

/// `xds --version` names the libraries; other commands load none at start-up.
@Suite("xds --version and the libraries it names")
struct VersionLibrariesTests {
    @Test("--version: the first line as before, then libplist, libcurl and libarchive with version and file")
    func versionLines() async throws {
        let version = try await xds("--version")
        let lines = version.stdout.split(separator: "\n").map(String.init)
        #expect(version.status == 0 && lines.count == 4, "\(version)")
        #expect(lines.first?.range(of: #"^[0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-z]+\)$"#, options: .regularExpression) != nil, "\(version)")
        #expect(lines.dropFirst().first?.range(of: #"^libplist [0-9.]+.* \(/.*libplist-2\.0\.(so|[0-9.]*dylib).*\)$"#,
                                               options: .regularExpression) != nil, "\(version)")
        #expect(lines.dropFirst(2).first?.range(of: #"^libcurl [0-9]+\.[0-9]+\.[0-9]+ \(/.*libcurl.*\)$"#, options: .regularExpression) != nil,
                "\(version)")
        #expect(lines.last?.range(of: #"^libarchive [0-9]+\.[0-9]+\.[0-9]+ \(/.*libarchive.*\)$"#, options: .regularExpression) != nil,
                "\(version)")
    }

    @Test("show FILE, --help and set's usage errors load none of the five libraries (only --version does)")
    func startUpLoadsNoLibrary() async throws {
        let folder = try ScratchFolder.make(prefix: "xds-startup-libraries")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data().write(to: folder.appendingPathComponent("doc.txt"))
        #expect(try await xds("set", folder.path + "/doc.txt", "--id", "com.example.app", "--name", "Example").status == 0)
        let names = ["libplist", "libcurl", "libarchive", "libz.so", "libdeflate"]
        for arguments in [["show", "doc.txt"], ["show", "--json", "doc.txt"], ["--help"], ["set", "doc.txt", "--id"]] {
            let traced = try await run(xdsPath, arguments, in: folder.path, environment: ["LD_DEBUG": "libs"])
            let loaded = names.filter { traced.stderr.contains("find library=\($0)") }
            #expect(loaded.isEmpty, "\(arguments): \(loaded)")
        }
        let version = try await run(xdsPath, ["--version"], in: folder.path, environment: ["LD_DEBUG": "libs"])
        #expect(version.stderr.contains("find library=libplist") && version.stderr.contains("find library=libcurl")
                && version.stderr.contains("find library=libarchive"), "the check can see a load")
    }
}
