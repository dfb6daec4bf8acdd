import Foundation
import Testing
import XDSTestSupport

/// `xds show --icon` as a terminal sees it: the built binary with its standard output on a
/// pseudo-terminal (Tests/Support/run_in_pty.py), its app's icon in the cache (filled by
/// `xds icon` from the loopback HTTPS server), and each terminal setting in the environment.
/// The exact escape bytes are checked, and that none are written where they do not belong.
@Suite("xds show --icon (pseudo-terminal, kitty and iTerm2 protocols)", .serialized, .timeLimit(.minutes(3)))
final class ShowIconTests: @unchecked Sendable {
    let server: TestHTTPServer
    let work: URL
    let home: URL
    /// The masked 64 px icon, as `xds icon --size 32 --scale 2` writes it.
    let png: Data
    /// `xds show doc.txt` without any image.
    let plain: Data

    init() async throws {
        server = try await TestHTTPServer.start(sharing: "ShowIconTests")
        work = try ScratchFolder.make(prefix: "xds-show-icon-work")
        home = try ScratchFolder.make(prefix: "xds-show-icon-home")
        for side in [29, 58, 87, 1024] {
            try server.write("app/img/icon-\(side).png", Repository.bytes("img/icon-\(side).png"))
        }
        try server.write("app/appInfo.json", Data(Repository.bytes("appInfo.json")))
        try server.setRoutes(["headers": ["/app/appInfo.json": ["Cache-Control": "max-age=3600"],
                                          "/app/img/icon-87.png": ["Cache-Control": "max-age=3600"]]])
        FileManager.default.createFile(atPath: work.appendingPathComponent("doc.txt").path, contents: Data("x".utf8))
        let set = try await xds(["set", "doc.txt", "--id", "com.example.app", "--name", "Example",
                           "--app-info-url", server.url("/app/appInfo.json", on: .https)], in: work.path)
        try #require(set.status == 0, "\(set)")
        // Fills the cache the way a user's earlier `xds icon` run would.
        let icon = try await run(xdsPath, ["icon", "doc.txt", "--size", "32", "--scale", "2", "-o", "expected.png"],
                           in: work.path, environment: Self.environment([:], server: server, home: home))
        try #require(icon.status == 0, "\(icon)")
        png = try Data(contentsOf: work.appendingPathComponent("expected.png"))
        let show = try await xds(["show", "doc.txt"], in: work.path)
        try #require(show.status == 0, "\(show)")
        plain = show.stdoutBytes
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: work)
        try? FileManager.default.removeItem(at: home)
    }

    /// A private home and cache, the test CA, no proxy, no terminal variables but `extra`.
    func environment(_ extra: [String: String]) -> [String: String] {
        Self.environment(extra, server: server, home: home)
    }

    static func environment(_ extra: [String: String], server: TestHTTPServer, home: URL) -> [String: String] {
        var environment = ["SSL_CERT_FILE": server.caCertificatePath, "HOME": home.path,
                           "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
                           "https_proxy": "", "HTTPS_PROXY": "", "all_proxy": "", "ALL_PROXY": "",
                           "TERM": "", "TERM_PROGRAM": "", "KITTY_WINDOW_ID": "", "TMUX": ""]
        environment.merge(extra) { $1 }
        return environment
    }

    /// `xds show ARGS` with standard output on a pseudo-terminal; the bytes it wrote there.
    func showInTerminal(_ arguments: [String], _ extra: [String: String]) async throws -> Run {
        try await run(xdsPath, ["show"] + arguments, in: work.path, environment: environment(extra), terminal: true)
    }

    var kittySequence: Data {
        let data = Array(png.base64EncodedString().utf8)
        var text = Data()
        var offset = 0
        repeat {
            let chunk = data[offset..<min(offset + 4096, data.count)]
            offset += chunk.count
            let more = offset < data.count ? 1 : 0
            let control = text.isEmpty ? "a=T,f=100,q=2,c=4,r=2,m=\(more)" : "m=\(more)"
            text += Data("\u{1B}_G\(control);".utf8) + Data(chunk) + Data("\u{1B}\\".utf8)
        } while offset < data.count
        return text + Data("\n".utf8)
    }

    var iTermSequence: Data {
        Data("\u{1B}]1337;File=inline=1;size=\(png.count);width=4;height=2;preserveAspectRatio=1:".utf8)
            + Data(png.base64EncodedString().utf8) + Data("\u{07}\n".utf8)
    }

    @Test("kitty (TERM=xterm-kitty, or KITTY_WINDOW_ID): the PNG in 4096-byte chunks, then the fields")
    func kitty() async throws {
        #expect(png.count > 3072, "the icon needs more than one chunk for this test to check chunking")
        for extra in [["TERM": "xterm-kitty"], ["TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"]] {
            let shown = try await showInTerminal(["--icon", "doc.txt"], extra)
            #expect(shown.status == 0, "\(shown)")
            #expect(shown.stdoutBytes == kittySequence + plain, "\(extra)")
        }
    }

    @Test("iTerm2 (TERM_PROGRAM=iTerm.app): one OSC 1337 inline image, then the fields")
    func iTerm2() async throws {
        let shown = try await showInTerminal(["--icon", "doc.txt"], ["TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"])
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stdoutBytes == iTermSequence + plain)
    }

    @Test("No escape bytes: another terminal, tmux, a dumb terminal, no --icon, or output not a terminal")
    func nothingElsewhere() async throws {
        for (arguments, extra) in [(["--icon", "doc.txt"], ["TERM": "xterm-256color"]),
                                   (["--icon", "doc.txt"], ["TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"]),
                                   (["--icon", "doc.txt"], ["TERM": "screen-256color", "KITTY_WINDOW_ID": "1"]),
                                   (["--icon", "doc.txt"], ["TERM": "dumb", "TERM_PROGRAM": "iTerm.app"]),
                                   (["doc.txt"], ["TERM": "xterm-kitty"])] {
            let shown = try await showInTerminal(arguments, extra)
            #expect(shown.status == 0, "\(shown)")
            #expect(shown.stdoutBytes == plain, "\(arguments) \(extra)")
        }
        // Standard output a file (not a terminal), in kitty.
        let piped = try await run(xdsPath, ["show", "--icon", "doc.txt"], in: work.path,
                            environment: environment(["TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"]))
        #expect(piped.status == 0, "\(piped)")
        #expect(piped.stdoutBytes == plain)
    }

    @Test("Not cached: no image and no request without --fetch; --fetch gets it; status unchanged")
    func notCached() async throws {
        let empty = home.appendingPathComponent("empty-cache").path
        let before = try server.requests().count
        let offline = try await showInTerminal(["--icon", "doc.txt"], ["TERM": "xterm-kitty", "XDG_CACHE_HOME": empty])
        #expect(offline.status == 0, "\(offline)")
        #expect(offline.stdoutBytes == plain)
        #expect(try server.requests().count == before, "--icon alone makes no request")
        let fetched = try await showInTerminal(["--icon", "--fetch", "doc.txt"], ["TERM": "xterm-kitty", "XDG_CACHE_HOME": empty])
        #expect(fetched.status == 0, "\(fetched)")
        #expect(fetched.stdoutBytes == kittySequence + plain)
    }

    @Test("--icon with --json, or --fetch without --icon, is a usage error (64)")
    func usage() async throws {
        let json = try await xds(["show", "--icon", "--json", "doc.txt"], in: work.path)
        #expect(json.status == 64, "\(json)")
        let fetch = try await xds(["show", "--fetch", "doc.txt"], in: work.path)
        #expect(fetch.status == 64, "\(fetch)")
    }
}
