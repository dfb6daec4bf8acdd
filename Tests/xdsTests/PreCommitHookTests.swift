import Foundation
import Testing
import XDSTestSupport

/// The repository's `.pre-commit-hooks.yaml` (SPEC §6 "Before publishing") run by the real
/// pre-commit (Debian 12's 3.0.4, `make setup-test`), offline: the manifest is copied into a
/// scratch git repository that commits it (pre-commit refuses an untracked manifest), and
/// `pre-commit try-repo` runs its hook `xds-check` on what a scratch project stages, with
/// `PRE_COMMIT_HOME`, `HOME` and the XDG folders in a temporary folder and the built `xds`
/// first on `PATH`.
@Suite("pre-commit hook xds-check", .timeLimit(.minutes(3)))
struct PreCommitHookTests {
    /// The scratch folders and the environment every process gets.
    struct Scratch {
        let folder = TemporaryFolder()
        var environment: [String: String] {
            [
                "HOME": folder.path + "/home", "PRE_COMMIT_HOME": folder.path + "/pre-commit",
                "XDG_CACHE_HOME": folder.path + "/cache", "XDG_CONFIG_HOME": folder.path + "/config",
                "XDG_DATA_HOME": folder.path + "/data",
                "PATH": (xdsPath as NSString).deletingLastPathComponent + ":/usr/bin:/bin",
                "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
            ]
        }

        func sh(_ command: String, in subfolder: String) async throws -> Run {
            try await run("/bin/sh", ["-c", command], in: folder.path + "/" + subfolder, environment: environment)
        }

        /// The hooks repository (the manifest committed) and an empty project repository.
        init() async throws {
            folder.folder("home")
            folder.folder("hooks")
            folder.folder("project")
            try FileManager.default.copyItem(atPath: packageRoot + "/.pre-commit-hooks.yaml",
                                             toPath: folder.path + "/hooks/.pre-commit-hooks.yaml")
            let hooks = try await sh("git init -q && git add -A && git commit -q -m hooks", in: "hooks")
            #expect(hooks.status == 0, "\(hooks)")
            let project = try await sh("git init -q && echo '# project' > README.md && git add -A && git commit -q -m start", in: "project")
            #expect(project.status == 0, "\(project)")
        }

        /// `pre-commit try-repo ../hooks xds-check` on what is staged.
        func tryRepo() async throws -> Run {
            try await sh("pre-commit try-repo ../hooks xds-check", in: "project")
        }
    }

    static var preCommitInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/pre-commit") }

    @Test("the manifest: hook xds-check, language system, entry xds check --names-only, require_serial")
    func manifest() throws {
        let text = try String(contentsOfFile: packageRoot + "/.pre-commit-hooks.yaml", encoding: .utf8)
        #expect(text.contains("- id: xds-check\n"))
        #expect(text.contains("  entry: xds check --names-only\n"))
        #expect(text.contains("  language: system\n"))
        #expect(text.contains("  require_serial: true\n"))
    }

    @Test("a clean repository passes", .enabled(if: preCommitInstalled))
    func cleanPasses() async throws {
        let scratch = try await Scratch()
        scratch.folder.file("project/a.png", "png")
        #expect(try await scratch.sh("git add a.png", in: "project").status == 0)
        let result = try await scratch.tryRepo()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Passed"), "\(result)")
    }

    @Test("a staged a.png:Zone.Identifier, ._a.png or zip holding __MACOSX/ fails, the file named",
          .enabled(if: preCommitInstalled), arguments: ["zone", "sidecar", "zip"])
    func stagedMetadataFails(_ what: String) async throws {
        let scratch = try await Scratch()
        let named: String
        switch what {
        case "zone":
            scratch.folder.file("project/a.png", "png")
            scratch.folder.write("project/a.png:Zone.Identifier", bytes: Array("[ZoneTransfer]\r\nZoneId=3\r\n".utf8))
            named = "a.png:Zone.Identifier: zone-file"
        case "sidecar":
            scratch.folder.file("project/a.png", "png")
            scratch.folder.write("project/._a.png", bytes: appleDoubleBytes(attributes: [("com.apple.FinderInfo", [1])]))
            named = "._a.png: sidecar"
        default:
            scratch.folder.folder("zip/__MACOSX")
            scratch.folder.file("zip/a.png", "png")
            scratch.folder.write("zip/__MACOSX/._a.png", bytes: appleDoubleBytes(attributes: [("com.apple.FinderInfo", [1])]))
            let zipped = try await scratch.sh("zip -q -r ../project/release.zip a.png __MACOSX", in: "zip")
            #expect(zipped.status == 0, "\(zipped)")
            named = "release.zip!/__MACOSX: macosx-folder"
        }
        #expect(try await scratch.sh("git add -A", in: "project").status == 0)
        let result = try await scratch.tryRepo()
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("Failed"), "\(result)")
        #expect(result.stdout.contains(named), "\(result)")
    }
}
