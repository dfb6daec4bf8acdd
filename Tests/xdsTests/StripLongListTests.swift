import Foundation
import Testing
import XDSTestSupport

/// `xds strip ARCHIVE... -o CLEAN` with more files than the long-list threshold (the route that
/// hands files beside ArgumentParser) is refused as the short line is (64, the same words), not
/// run on the first archive.
@Suite("strip -o with a long list", .timeLimit(.minutes(2)))
struct StripLongListTests {
    @Test("130 archives and -o: 64 with the short line's words, no CLEAN written", arguments: [false, true])
    func longListRefused(outputFirst: Bool) async throws {
        let folder = TemporaryFolder()
        folder.file("doc.txt")
        let zip = try await run("/usr/bin/zip", ["-q", "a.zip", "doc.txt"], in: folder.path)
        try #require(zip.status == 0, "\(zip)")
        let names = ["a.zip"] + (1..<130).map { "b\($0).zip" }
        func line(_ files: [String]) -> [String] {
            outputFirst ? ["strip", "-o", "clean.zip"] + files : ["strip"] + files + ["-o", "clean.zip"]
        }
        let short = try await xds(line(Array(names.prefix(2))), in: folder.path)
        #expect(short.status == 64, "\(short)")
        #expect(short.stderr.contains("-o writes a clean copy of one archive: give one ARCHIVE."))
        let long = try await xds(line(names), in: folder.path)
        #expect(long.status == 64, "\(long)")
        #expect(long.stderr == short.stderr && long.stdout == short.stdout)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/clean.zip"))
    }
}
