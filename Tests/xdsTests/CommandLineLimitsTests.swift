import CProcessArguments
import Foundation
import Testing
import XDSTestSupport
@testable import xds

/// The command line under hostile or unusual conditions (issue 24): `-j` bounded on every
/// route, a walk that goes on when threads cannot be started, no /proc, long command lines
/// with grouped short options, and `icon FILE --app-info` with a FILE that is not there.
@Suite("Command-line limits", .timeLimit(.minutes(3)))
struct CommandLineLimitsTests {
    /// A folder `d` with `count` files, each tagged.
    func taggedFolder(_ count: Int) async throws -> (folder: TemporaryFolder, names: [String]) {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/d", withIntermediateDirectories: true)
        let names = (0..<count).map { "d/f\($0)" }
        for name in names { folder.file(name) }
        let set = try await xds(["set"] + names + ["--id", "com.example.app", "--name", "N"], in: folder.path)
        try #require(set.status == 0, "\(set)")
        return (folder, names)
    }

    // MARK: -j

    @Test("-j above 256 is a usage error (64) naming the limit, on the short and the long route; nothing removed")
    func jobsCap() async throws {
        let (folder, names) = try await taggedFolder(FileArguments.splitThreshold + 2)
        let message = "Error: --jobs must be at most 256 (got 257)."
        let lines: [[String]] = [
            ["show", "-r", "-j", "257", "d"], ["show", "-r", "--jobs=257", "d"], ["show", "-rj", "257", "d"],
            ["remove", "-r", "-j", "257", "d"], ["remove", "-rn", "--jobs", "257", "d"],
            // More than FileArguments.splitThreshold arguments: the long-list route.
            ["show", "-r", "-j", "257"] + names, ["remove", "-r", "--jobs", "257"] + names,
        ]
        for line in lines {
            let result = try await xds(line, in: folder.path)
            #expect(result.status == 64, "\(line.prefix(5)): \(result.stderr.prefix(300))")
            #expect(result.stderr.split(separator: "\n").first.map(String.init) == message, "\(line.prefix(5))")
            #expect(result.stdout.isEmpty)
        }
        let first = try await folder.attribute(names[0]), last = try await folder.attribute(names[names.count - 1])
        #expect(first != nil && last != nil)
        // The limit itself is accepted.
        let most = try await xds("show", "-r", "--json", "-j", "256", "d", in: folder.path)
        #expect(most.status == 0, "\(most.stderr)")
        #expect(most.stdout.split(separator: "\n").count == names.count)
    }

    static let prlimitAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")
    static let straceAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")

    /// Threads with 256 MiB stacks in a 1.5 GiB address space: a few start, the rest are
    /// refused (EAGAIN). The walk must still find every file with those started, and must not
    /// ask for the refused ones one by one: each refusal is a failed mmap call or a few (before
    /// the fix, -j 256 made 250 to 1 500 of them, a round per index), counted when strace is
    /// there (not one of the packages `make setup-test` installs).
    @Test("threads that cannot start: the walk goes on with those started and stops asking",
          .enabled(if: prlimitAvailable, "needs prlimit (util-linux)"))
    func threadsRefused() async throws {
        let (folder, names) = try await taggedFolder(40)
        let trace = folder.path + "/mmap.trace"
        let tracer = Self.straceAvailable
            ? ["/usr/bin/strace", "-f", "-qq", "-e", "trace=mmap", "-e", "status=failed", "-o", trace] : []
        let limited = try await run("/usr/bin/prlimit", ["--stack=\(256 << 20)", "--as=\(1536 << 20)"] + tracer
                              + [xdsPath, "show", "-r", "--json", "-j", "256", "d"], in: folder.path)
        #expect(limited.status == 0, "\(limited.stderr)")
        #expect(Swift.Set(limited.stdout.split(separator: "\n")).count == names.count)
        if Self.straceAvailable {
            // Thread stacks only (MAP_STACK): malloc's arenas also fail under the limit, more
            // often the more threads contend, which says nothing about retried threads.
            let refusals = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
                .filter { $0.contains("ENOMEM") && $0.contains("MAP_STACK") }.count
            #expect(refusals > 0, "no thread was refused: the limits did not bite")
            #expect(refusals < 10, "\(refusals) thread stacks refused: refused threads were retried")
        }
        // So little room that even the first thread is refused: the walk runs on the main thread.
        let none = try await run("/usr/bin/prlimit", ["--stack=\(1 << 30)", "--as=\(1024 << 20)",
                                                xdsPath, "show", "-r", "--json", "-j", "8", "d"], in: folder.path)
        #expect(none.status == 0, "\(none.stderr)")
        #expect(Swift.Set(none.stdout.split(separator: "\n")).count == names.count)
    }

    // MARK: No /proc

    static var canHideProc: Bool {
        get async { await canHideProcProbe.value }
    }

    private static let canHideProcProbe = Task<Bool, Never> {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        return (try? await run("/usr/bin/unshare", ["--mount", "sh", "-c", "mount -t tmpfs none /proc"]).status) == 0
    }

    /// Runs xds with `arguments` in a private mount namespace whose /proc is an empty tmpfs
    /// (status 99 if /proc could not be hidden).
    func withoutProc(_ arguments: [String], in folder: String) async throws -> Run {
        try await run("/usr/bin/unshare", ["--mount", "sh", "-c",
                                     "mount -t tmpfs none /proc && [ ! -e /proc/self ] || exit 99; exec \"$@\"",
                                     "sh", xdsPath] + arguments, in: folder)
    }

    /// Swift's runtime finds argv through /proc/self/maps on Linux; without /proc every command
    /// saw no arguments and died (132) with no message. xds takes them from main's own argv.
    @Test("without /proc: --version, show FILE, show -r and a usage error behave as with it",
          .enabled("needs root and unshare --mount") { await canHideProc })
    func noProc() async throws {
        let (folder, names) = try await taggedFolder(3)
        let lines: [[String]] = [
            ["--version"], ["show", names[0]], ["show", "-r", "--json", "-j", "1", "d"], ["show", "--bogus", "d"], [],
            ["icon", "missing", "--app-info", "a.json"],
        ]
        for line in lines {
            let plain = try await xds(line, in: folder.path)
            let hidden = try await withoutProc(line, in: folder.path)
            #expect(hidden.status != 99, "/proc was not hidden")
            #expect(hidden.status == plain.status, "\(line): \(hidden)")
            #expect(hidden.stdout == plain.stdout, "\(line)")
            #expect(hidden.stderr == plain.stderr, "\(line)")
        }
        #expect(try await xds("show", names[0], in: folder.path).stdout.contains("com.example.app"))
        // The same constructor ran in this test process (glibc passes argc and argv to it).
        #expect(xds_process_arguments_from_startup() == 1)
    }

    // MARK: Long command lines

    @Test("a long line splits grouped short options as ArgumentParser reads them", arguments: [
        (["xds", "show", "-rj", "2", "a", "b"], FileArguments.Split(arguments: ["show", "-rj", "2", "--", "a"], files: ["a", "b"])),
        (["xds", "show", "a", "-jr", "2", "b"], FileArguments.Split(arguments: ["show", "-jr", "2", "--", "a"], files: ["a", "b"])),
        (["xds", "remove", "-nrj", "2", "a"], FileArguments.Split(arguments: ["remove", "-nrj", "2", "--", "a"], files: ["a"])),
        (["xds", "remove", "-rn", "a", "b"], FileArguments.Split(arguments: ["remove", "-rn", "--", "a"], files: ["a", "b"])),
        // -j2 is the group j, 2 and -rj2 the group r, j, 2: j takes the next value (ArgumentParser
        // then refuses it, and the unknown option 2).
        (["xds", "show", "-rj2", "a", "b"], FileArguments.Split(arguments: ["show", "-rj2", "a", "--", "b"], files: ["b"])),
        // An attached value takes none; an option's value is never another option or `--`.
        (["xds", "show", "-j=2", "a"], FileArguments.Split(arguments: ["show", "-j=2", "--", "a"], files: ["a"])),
        (["xds", "show", "-j", "--json", "a"], FileArguments.Split(arguments: ["show", "-j", "--json", "--", "a"], files: ["a"])),
        (["xds", "show", "-j", "--", "-a"], FileArguments.Split(arguments: ["show", "-j", "--", "-a"], files: ["-a"])),
        (["xds", "show", "-j", "-", "a"], FileArguments.Split(arguments: ["show", "-j", "-", "--", "a"], files: ["a"])),
    ])
    func groupedSplit(arguments: [String], expected: FileArguments.Split) {
        #expect(FileArguments.split(arguments, commands: XDS.fileCommands) == expected)
    }

    @Test("show -rj 2 and remove -rj 2 with more than 128 files mean what -r -j 2 means")
    func groupedLongLines() async throws {
        let (folder, names) = try await taggedFolder(FileArguments.splitThreshold + 12)
        let expected = try await xds(["show", "-r", "--json", "-j", "1"] + names, in: folder.path)
        try #require(expected.status == 0 && expected.stdout.split(separator: "\n").count == names.count, "\(expected.stderr)")
        for options in [["-rj", "2"], ["-jr", "2"], ["-j", "2", "-r"]] {
            let grouped = try await xds(["show", "--json"] + options + names, in: folder.path)
            #expect(grouped.status == 0, "\(options): \(grouped.stderr.prefix(300))")
            #expect(grouped.stdout.split(separator: "\n").sorted() == expected.stdout.split(separator: "\n").sorted(), "\(options)")
        }
        // An error reads the same on both routes (ArgumentParser's own words).
        let shortLine = try await xds(["show", "-rj2"] + names.prefix(3), in: folder.path)
        let longLine = try await xds(["show", "-rj2"] + names, in: folder.path)
        #expect(shortLine.status == 64 && longLine.status == 64)
        #expect(shortLine.stderr == longLine.stderr, "\(longLine.stderr.prefix(300))")

        let dry = try await xds(["remove", "-nrj", "2"] + names, in: folder.path)
        #expect(dry.status == 0, "\(dry.stderr.prefix(300))")
        #expect(try await folder.attribute(names[0]) != nil)
        let removed = try await xds(["remove", "-rj", "2"] + names, in: folder.path)
        #expect(removed.status == 0, "\(removed.stderr.prefix(300))")
        var left: [String] = []
        for name in names where try await folder.attribute(name) != nil { left.append(name) }
        #expect(left.isEmpty)
    }

    // MARK: icon FILE --app-info

    @Test("icon FILE --app-info with FILE missing: 66, one line, nothing written; an existing FILE still works")
    func iconMissingFile() async throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/img", withIntermediateDirectories: true)
        try Data(Repository.bytes("img/icon-58.png")).write(to: URL(fileURLWithPath: folder.path + "/img/icon-58.png"))
        try Data(#"[{"width": 58, "height": 58, "src": "img/icon-58.png"}]"#.utf8)
            .write(to: URL(fileURLWithPath: folder.path + "/appInfo.json"))
        folder.file("here.txt")
        let environment = ["XDG_CACHE_HOME": folder.path + "/cache"]
        // The fast path (plain arguments) and ArgumentParser's (`--app-info=`, `--size=`).
        for spelling in [["--app-info", "appInfo.json", "--size", "58"], ["--app-info=appInfo.json", "--size=58"]] {
            for (file, reason) in [("missing.txt", "no such file or folder"), ("here.txt/x", "a component of the path is not a folder")] {
                let result = try await run(xdsPath, ["icon", file] + spelling + ["-o", "out.png"], in: folder.path, environment: environment)
                #expect(result.status == 66, "\(spelling) \(file): \(result)")
                #expect(result.stderr == "xds: \(file): \(reason)\n", "\(spelling)")
                #expect(!FileManager.default.fileExists(atPath: folder.path + "/out.png"))
            }
            let present = try await run(xdsPath, ["icon", "here.txt"] + spelling + ["-o", "out.png"], in: folder.path, environment: environment)
            #expect(present.status == 0, "\(spelling): \(present)")
            #expect(FileManager.default.fileExists(atPath: folder.path + "/out.png"))
            try FileManager.default.removeItem(atPath: folder.path + "/out.png")
        }
    }
}
