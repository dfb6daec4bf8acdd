import Foundation
import Testing
import XDSTestSupport

/// `xds icon --any-cached` and `xds show --icon` (SPEC §6b): the icon drawn from whatever size
/// of it is in the cache, whatever its age, and never a request. The cache is filled the way a
/// user's `xds icon --size 29 --scale 2` fills it (the 58 px entry only) from a loopback HTTPS
/// server whose answers are stale at once (`max-age=0`); each check counts the server's requests.
@Suite("xds icon --any-cached, show --icon from any cached size", .serialized)
final class IconAnyCachedTests: @unchecked Sendable {
    let server: TestHTTPServer
    let work: URL
    let home: URL

    init() async throws {
        server = try await TestHTTPServer.start(sharing: "IconAnyCachedTests")
        work = try await ScratchFolder.make(prefix: "xds-any-cached-work")
        home = try await ScratchFolder.make(prefix: "xds-any-cached-home")
        for side in [29, 58, 87, 1024] {
            try await server.write("app/img/icon-\(side).png", Repository.bytes("img/icon-\(side).png"))
        }
        try await server.write("app/appInfo.json", Data(Repository.bytes("appInfo.json")))
        let stale = ["Cache-Control": "max-age=0"]
        try await server.setRoutes(["headers": ["/app/appInfo.json": stale, "/app/img/icon-58.png": stale]])
        FileManager.default.createFile(atPath: work.appendingPathComponent("doc.txt").path, contents: Data("x".utf8))
        let set = try await xds(["set", "doc.txt", "--id", "com.example.app", "--name", "Example",
                           "--app-info-url", server.url("/app/appInfo.json", on: .https)], in: work.path)
        try await #require(set.status == 0, "\(set)")
        let icon = try await icon(["--size", "29", "--scale", "2", "-o", "filled.png"])
        try await #require(icon.status == 0, "\(icon)")
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: work)
        try? FileManager.default.removeItem(at: home)
    }

    var environment: [String: String] {
        ["SSL_CERT_FILE": server.caCertificatePath, "HOME": home.path,
         "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
         "https_proxy": "", "HTTPS_PROXY": "", "all_proxy": "", "ALL_PROXY": "",
         "TERM": "", "TERM_PROGRAM": "", "KITTY_WINDOW_ID": "", "TMUX": ""]
    }

    func icon(_ arguments: [String], extra: [String: String] = [:]) async throws -> Run {
        try await run(xdsPath, ["icon", "doc.txt"] + arguments, in: work.path, environment: environment.merging(extra) { $1 })
    }

    func bytes(_ name: String) async throws -> Data { try await Data(contentsOf: work.appendingPathComponent(name)) }

    /// What `xds mask` makes of the repository's 58 px icon at these flags.
    func masked58(_ flags: [String]) async throws -> Data {
        let mask = try await run(xdsPath, ["mask", Repository.root.appendingPathComponent("img/icon-58.png").path] + flags
                           + ["-o", "expected.png"], in: work.path)
        try await #require(mask.status == 0, "\(mask)")
        return try await bytes("expected.png")
    }

    @Test("Scaled down from the only cached size (16 px: the list would choose 29, not cached), no request")
    func scaledDown() async throws {
        let before = try await server.requests().count
        let drawn = try await icon(["--any-cached", "--size", "16", "-o", "down.png"])
        #expect(drawn.status == 0, "\(drawn)")
        #expect(try await bytes("down.png") == masked58(["--size", "16"]))
        #expect(try await server.requests().count == before, "--any-cached makes no request, stale entries or not")
    }

    @Test("Scaled up only when no larger size is cached (64 px from 58), the same with --offline")
    func scaledUp() async throws {
        let before = try await server.requests().count
        for extra in [[], ["--offline"]] {
            let drawn = try await icon(["--any-cached", "--size", "32", "--scale", "2", "-o", "up.png"] + extra)
            #expect(drawn.status == 0, "\(extra): \(drawn)")
            #expect(try await bytes("up.png") == masked58(["--size", "32", "--scale", "2"]), "\(extra)")
        }
        #expect(try await server.requests().count == before)
    }

    @Test("Nothing cached: 1 (with --offline too), never a request; --offline alone 69; --no-cache with it 64")
    func nothingCached() async throws {
        let before = try await server.requests().count
        let empty = ["--cache-dir", home.appendingPathComponent("empty").path]
        for extra in [[], ["--offline"]] {
            let none = try await icon(["--any-cached", "-o", "none.png"] + empty + extra)
            #expect(none.status == 1, "\(extra): \(none)")
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("none.png").path))
        }
        let offline = try await icon(["--offline", "-o", "none.png"] + empty)
        #expect(offline.status == 69, "\(offline)")
        #expect(try await server.requests().count == before)
        let usage = try await icon(["--any-cached", "--no-cache", "-o", "none.png"])
        #expect(usage.status == 64, "\(usage)")
        // The fast path and ArgumentParser's route alike (options after --).
        let parsed = try await run(xdsPath, ["icon", "--any-cached", "--no-cache", "-o", "none.png", "--", "doc.txt"],
                             in: work.path, environment: environment)
        #expect(parsed.status == 64 && parsed.stderr == usage.stderr, "\(parsed)")
    }

    @Test("The list cached but none of its icons (served with no-store): 1, and no request")
    func listOnly() async throws {
        for side in [29, 58, 87, 1024] {
            try await server.write("ns/img/icon-\(side).png", Repository.bytes("img/icon-\(side).png"))
        }
        try await server.write("ns/appInfo.json", Data(Repository.bytes("appInfo.json")))
        let noStore = ["Cache-Control": "no-store"]
        try await server.setRoutes(["headers": ["/app/appInfo.json": ["Cache-Control": "max-age=0"],
                                          "/app/img/icon-58.png": ["Cache-Control": "max-age=0"],
                                          "/ns/img/icon-29.png": noStore]])
        let list = server.url("/ns/appInfo.json", on: .https)
        let fetched = try await icon(["--app-info", list, "-o", "ns.png"])
        try await #require(fetched.status == 0, "\(fetched)")
        let before = try await server.requests().count
        let none = try await icon(["--app-info", list, "--any-cached", "-o", "none.png"])
        #expect(none.status == 1, "\(none)")
        #expect(try await server.requests().count == before)
    }

    @Test("show --icon draws from the cached 58 px icon (nothing was drawn before issue 34)")
    func showIcon() async throws {
        let before = try await server.requests().count
        let shown = try await run(xdsPath, ["show", "--icon", "doc.txt"], in: work.path,
                            environment: environment.merging(["TERM": "xterm-kitty"]) { $1 }, terminal: true)
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stdoutBytes.starts(with: Data("\u{1B}_Ga=T,f=100".utf8)), "\(shown.stdout.prefix(40))")
        #expect(try await server.requests().count == before)
    }
}
