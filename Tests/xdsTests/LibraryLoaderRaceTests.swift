import Foundation
import Testing
import XDSTestSupport

/// The first load of the five C libraries from several threads at once, under ThreadSanitizer:
/// Tests/Fixtures/loader-race/race.c is compiled with the modules' own C sources and
/// `-fsanitize=thread`. libcurl's and libarchive's forwarders used to cache function pointers in
/// statics without synchronisation (four races reported); CLibraryLoader's table is filled once
/// under a lock and published with release/acquire.
@Suite("C library loading from several threads (ThreadSanitizer)", .timeLimit(.minutes(3)))
struct LibraryLoaderRaceTests {
    static var canSanitize: Bool {
        get async { await canSanitizeProbe.value }
    }

    private static let canSanitizeProbe = Task<Bool, Never> {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/cc"),
              let folder = try? ScratchFolder.make(prefix: "xds-tsan-probe") else { return false }
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("probe.c")
        guard (try? Data("int main(void) { return 0; }\n".utf8).write(to: source)) != nil,
              let built = try? await run("/usr/bin/cc", ["-fsanitize=thread", "-o", folder.appendingPathComponent("probe").path, source.path]),
              built.status == 0 else { return false }
        return (try? await run(folder.appendingPathComponent("probe").path, []))?.status == 0
    }

    @Test("four threads' first calls into libcurl, libarchive, libplist, zlib and libdeflate: no data race, each loaded once",
          .enabled("needs cc with ThreadSanitizer") { await canSanitize })
    func noRaceOnFirstLoad() async throws {
        let folder = try ScratchFolder.make(prefix: "xds-loader-race")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sources = Repository.url("Sources").path
        let modules = ["CLibraryLoader", "CCurl", "CArchive", "CPlist", "CZlib", "CDeflate"]
        let files = modules.dropFirst().map { module -> String in
            let name = module.dropFirst().lowercased()
            return "\(sources)/\(module)/c\(name).c"
        }
        let program = folder.appendingPathComponent("race").path
        let built = try await run("/usr/bin/cc", ["-g", "-O1", "-fsanitize=thread", "-o", program]
                            + modules.map { "-I\(sources)/\($0)/include" }
                            + [Fixtures.url("loader-race/race.c").path, "\(sources)/CLibraryLoader/clibraryloader.c"] + files
                            + ["-ldl", "-lpthread"])
        try #require(built.status == 0, "\(built)")
        let raced = try await run(program, [], environment: ["TSAN_OPTIONS": "halt_on_error=0 exitcode=66"])
        #expect(!raced.stderr.contains("ThreadSanitizer"), "\(raced.stderr)")
        #expect(raced.status == 0, "\(raced)")
        let lines = raced.stdout.split(separator: "\n")
        #expect(lines.count == 5 && zip(lines, ["libcurl ", "libarchive ", "libplist ", "zlib ", "libdeflate "]).allSatisfy { $0.hasPrefix($1) },
                "\(raced.stdout)")
    }
}
