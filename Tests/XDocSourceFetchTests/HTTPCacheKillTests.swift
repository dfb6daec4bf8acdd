import Foundation
import Testing
import XDSTestSupport
@testable import XDocSourceFetch

/// A run killed (SIGKILL) while it writes cache entries never leaves a torn entry: the test
/// binary runs this same test again as a child that rewrites one entry in a loop, kills it at
/// a random moment, and reads what is left. `xds icon` killed mid-download is the same
/// primitive (``HTTPCacheStore/write(_:)``) behind a network read.
@Suite("HTTP cache: killed writer", .timeLimit(.minutes(3)))
struct HTTPCacheKillTests {
    static let childVariable = "XDS_CACHE_KILL_CHILD"
    static let url = "https://example.test/icon.png"
    static let size = 1 << 20

    static func entry(_ round: Int) -> HTTPCacheEntry {
        HTTPCacheEntry(requestURL: url, status: 200, headers: [HTTPHeader(name: "ETag", value: "\"\(round)\"")],
                       requestTime: 0, responseTime: 0, body: [UInt8](repeating: UInt8(truncatingIfNeeded: round), count: size))
    }

    // The child is this test binary run again: Linux only (on macOS tests run inside xctest).
    @Test(.enabled(if: Self.testBinary() != nil, "the child is this test binary run again, which needs Linux's /proc/self/exe"))
    func killedWriterLeavesAWholeEntry() async throws {
        if let folder = ProcessInfo.processInfo.environment[Self.childVariable] {
            // The child: rewrite the entry until killed.
            let store = HTTPCacheStore(directory: folder)
            var round = 1
            while true {
                try store.write(Self.entry(round))
                round += 1
            }
        }
        let folder = TemporaryFolder()
        let store = HTTPCacheStore(directory: folder.path + "/xds")
        for attempt in 0..<4 {
            let child = try ProcessRunner.start(try #require(Self.testBinary()),
                                                ["--testing-library", "swift-testing", "--filter", "killedWriterLeavesAWholeEntry"],
                                                environment: [Self.childVariable: store.directory], standardOutput: .discard)
            // Ready when a first entry is there; then a random while longer, so that the kill
            // falls at a different point of a write each time (the randomness is the test).
            try #require(await waitUntil(seconds: 120) { access(store.path(for: Self.url), F_OK) == 0 }, "the child wrote no entry")
            try await Task.sleep(for: .microseconds(Int.random(in: 20_000...200_000) + attempt * 10_000))
            child.signal(SIGKILL)
            #expect(try await child.wait().killedBySignal, "the child was killed, not finished")

            let found = try #require(store.read(Self.url, maximumBodySize: Self.size), "attempt \(attempt): entry unreadable")
            #expect(found.body.count == Self.size)
            #expect(Set(found.body).count == 1, "one round's body, whole")
            let round = Int(found.header("ETag")?.filter(\.isNumber) ?? "") ?? -1
            #expect(round >= 1 && round % 256 == Int(found.body[0]), "headers and body of the same round")
            let names = try FileManager.default.contentsOfDirectory(atPath: store.directory)
            // Each killed writer leaves at most its one unfinished temporary file.
            #expect(names.filter { $0.contains(".tmp.") }.count <= attempt + 1, "stray temporary files: \(names)")
        }
        store.removeStaleTemporaries(now: Int64(Date().timeIntervalSince1970) + 7200)
        let names = try FileManager.default.contentsOfDirectory(atPath: store.directory)
        #expect(names == [store.path(for: Self.url).split(separator: "/").last.map(String.init)!])
    }

    /// The test binary itself (the child runs this one test of it).
    static func testBinary() -> String? {
        #if os(Linux)
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        #else
        return nil
        #endif
    }
}
