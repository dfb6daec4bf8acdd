import Foundation
import Testing
import XDSTestSupport

/// `xds icon` as a user runs it: the built binary against the loopback HTTP/HTTPS test server
/// (a test CA trusted through SSL_CERT_FILE), with HOME and the cache in temporary folders.
@Suite("xds icon (built binary, real loopback server)", .serialized)
final class IconCommandTests: @unchecked Sendable {
    let server: TestHTTPServer
    let work: URL
    let home: URL

    init() async throws {
        server = try await TestHTTPServer.start(sharing: "IconCommandTests")
        work = try ScratchFolder.make(prefix: "xds-icon-work")
        home = try ScratchFolder.make(prefix: "xds-icon-home")
        // The project's own icons, listed the way the repository's appInfo.json lists them.
        for side in [29, 58, 87, 1024] {
            try server.write("app/img/icon-\(side).png", Repository.bytes("img/icon-\(side).png"))
        }
        try server.write("app/appInfo.json", Data(Repository.bytes("appInfo.json")))
        try server.setRoutes(["headers": ["/app/appInfo.json": ["Cache-Control": "max-age=600"],
                                          "/app/img/icon-58.png": ["Cache-Control": "max-age=600"],
                                          "/app/img/icon-87.png": ["Cache-Control": "max-age=0"]]])
        try await tag("doc.txt", appInfoURL: server.url("/app/appInfo.json", on: .https))
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: work)
        try? FileManager.default.removeItem(at: home)
    }

    /// A file in the work folder whose attribute points at `appInfoURL`.
    func tag(_ name: String, appInfoURL: String, allowHTTP: Bool = false) async throws {
        FileManager.default.createFile(atPath: work.appendingPathComponent(name).path, contents: Data("x".utf8))
        let set = try await xds(["set", name, "--id", "com.example.app", "--name", "Example", "--app-info-url", appInfoURL]
                          + (allowHTTP ? ["--allow-http"] : []), in: work.path)
        try #require(set.status == 0, "\(set)")
    }

    var cache: String { home.appendingPathComponent("cache").path }

    /// Runs `xds icon …` in the work folder, trusting the test CA, with a private home and cache.
    func icon(_ arguments: [String]) async throws -> Run {
        try await run(xdsPath, ["icon"] + arguments, in: work.path,
                environment: ["SSL_CERT_FILE": server.caCertificatePath, "HOME": home.path,
                              "XDG_CACHE_HOME": cache, "HTTPS_PROXY": "", "https_proxy": "", "NO_PROXY": ""])
    }

    func output(_ name: String) throws -> Data { try Data(contentsOf: work.appendingPathComponent(name)) }

    func requests(_ prefix: String) throws -> [TestHTTPServer.LoggedRequest] {
        try server.requests().filter { $0.path.hasPrefix(prefix) }
    }

    @Test("FILE's appInfoURL → list → 58 px entry → the same PNG as xds mask; then from the cache with no request")
    func fromAttributeThenFromCache() async throws {
        let first = try await icon(["doc.txt", "--size", "29", "--scale", "2", "-o", "a.png"])
        #expect(first.status == 0, "\(first)")
        let mask = try await xds(["mask", packageRoot + "/img/icon-58.png", "--size", "29", "--scale", "2", "-o",
                            work.appendingPathComponent("m.png").path])
        try #require(mask.status == 0, "\(mask)")
        #expect(try output("a.png") == output("m.png"), "xds icon masks the chosen entry exactly as xds mask does")
        let afterFirst = try await server.requests(to: "/app/", atLeast: 2)
        #expect(afterFirst.map(\.path) == ["/app/appInfo.json", "/app/img/icon-58.png"])

        // Fresh (max-age=600): the second run makes no request at all, and stdout works too.
        let second = try await icon(["doc.txt", "--size", "29", "--scale", "2"])
        #expect(second.status == 0, "\(second)")
        #expect(second.stdoutBytes == (try output("a.png")))
        try await Task.sleep(for: .milliseconds(300))
        #expect(try requests("/app/").count == 2, "a fresh cache entry needs no request")

        // --offline with the server gone still answers from the cache.
        server.stop()
        let offline = try await icon(["doc.txt", "--size", "29", "--scale", "2", "--offline", "-o", "b.png"])
        #expect(offline.status == 0, "\(offline)")
        #expect(try output("b.png") == output("a.png"))
    }

    @Test("max-age=0: the second run revalidates (If-None-Match / If-Modified-Since) and gets 304 with no body")
    func revalidation() async throws {
        #expect(try await icon(["doc.txt", "--size", "87", "-o", "a.png"]).status == 0)
        let again = try await icon(["doc.txt", "--size", "87", "-o", "b.png"])
        #expect(again.status == 0, "\(again)")
        #expect(try output("a.png") == output("b.png"))
        let icons = try await server.requests(to: "/app/img/icon-87.png", atLeast: 2)
        #expect(icons.count == 2)
        let conditional = try #require(icons.last)
        #expect(conditional.headers["if-none-match"] != nil || conditional.headers["if-modified-since"] != nil,
                "\(conditional)")
        #expect(conditional.status == 304 && conditional.bodyBytesSent == 0, "\(conditional)")
    }

    @Test("./appInfo.json and --app-info PATH are read in place; a src outside the folder is refused (65)")
    func localLists() async throws {
        try FileManager.default.createDirectory(at: work.appendingPathComponent("img"), withIntermediateDirectories: true)
        try Data(Repository.bytes("img/icon-58.png")).write(to: work.appendingPathComponent("img/icon-58.png"))
        try Data(#"[{"width": 58, "height": 58, "src": "img/icon-58.png"}]"#.utf8).write(to: work.appendingPathComponent("appInfo.json"))
        let plain = try await icon(["--size", "58", "-o", "a.png"])
        #expect(plain.status == 0, "\(plain)")
        let sub = work.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try Data(#"{"icons": [{"width": 58, "height": 58, "src": "../img/icon-58.png"}]}"#.utf8)
            .write(to: sub.appendingPathComponent("appInfo.json"))
        let escape = try await icon(["--app-info", "sub/appInfo.json", "--size", "58", "-o", "b.png"])
        #expect(escape.status == 65, "\(escape)")
        #expect(escape.stderr.contains("outside"), "\(escape.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("b.png").path))
        #expect(!FileManager.default.fileExists(atPath: cache), "local lists are never cached")
    }

    @Test("each refusal and failure: one line naming the URL and the problem, with its SPEC §5 status")
    func failures() async throws {
        let https = { (path: String) in self.server.url(path, on: .https) }
        try server.write("bad/appInfo.json", "{\"icons\": [")
        try server.write("empty/appInfo.json", "[]")
        let cases: [(arguments: [String], status: Int32, words: String)] = [
            (["--app-info", server.url("/app/appInfo.json", on: .http)], 64, "--allow-http"),
            (["--app-info", server.url("/app/appInfo.json", on: .httpsSelfSigned)], 69, "not trusted"),
            (["--app-info", https("/status/404")], 69, "404"),
            (["--app-info", https("/bad/appInfo.json")], 65, "not valid JSON"),
            (["--app-info", https("/empty/appInfo.json")], 1, "no usable entry"),
            (["--app-info", https("/redirect/7/app/appInfo.json")], 69, "redirects"),
            (["--app-info", https("/downgrade/app/appInfo.json"), "--allow-http"], 69, "from https to http"),
            (["--app-info", "https://127.0.0.1:1/appInfo.json"], 69, "refused"),
            (["--app-info", https("/app/appInfo.json"), "--offline"], 69, "--offline"),
            (["--app-info", "nosuch/appInfo.json"], 66, "nosuch/appInfo.json"),
        ]
        for c in cases {
            let result = try await icon(c.arguments + ["--size", "58", "-o", "out.png"])
            #expect(result.status == c.status, "\(c.arguments): \(result)")
            #expect(result.errorLines.count == 1 && result.stderr.hasPrefix("xds: "), "\(c.arguments): \(result.stderr)")
            #expect(result.stderr.contains(c.words), "\(c.arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("out.png").path))
        }
        // Three redirects are fine; http with --allow-http is fine.
        #expect(try await icon(["--app-info", https("/redirect/3/app/appInfo.json"), "--size", "58", "-o", "r.png"]).status == 0)
        #expect(try await icon(["--app-info", server.url("/app/appInfo.json", on: .http), "--allow-http", "--size", "58",
                          "-o", "h.png"]).status == 0)
    }

    @Test("an attribute's http or file: URL is refused as bad data (65); no attribute → 1")
    func attributeRefusals() async throws {
        try await tag("http.txt", appInfoURL: server.url("/app/appInfo.json", on: .http), allowHTTP: true)
        let http = try await icon(["http.txt", "-o", "a.png"])
        #expect(http.status == 65, "\(http)")
        #expect(http.stderr.contains("--allow-http"))
        FileManager.default.createFile(atPath: work.appendingPathComponent("plain.txt").path, contents: nil)
        let none = try await icon(["plain.txt", "-o", "a.png"])
        #expect(none.status == 1 && none.stderr == "xds: plain.txt: no x-document-source attribute; give the icon list with --app-info\n", "\(none)")
        // A file: URL can only get into an attribute by hand (xds set refuses it).
        let file = work.appendingPathComponent("file.txt").path
        FileManager.default.createFile(atPath: file, contents: nil)
        let set = try await python("""
            import os, plistlib, sys
            value = plistlib.dumps({"identifier": "a.b", "name": "N", "appInfoURL": "file:///etc/appInfo.json"}, fmt=plistlib.FMT_BINARY)
            os.setxattr(sys.argv[1], "user.x-document-source", value)
            """, [file])
        try #require(set.status == 0, "\(set)")
        let local = try await icon(["file.txt", "-o", "a.png"])
        #expect(local.status == 65 && local.stderr.contains("file:"), "\(local)")
    }

    @Test("two processes fetching the same icon at once both succeed and leave whole cache entries")
    func concurrentRuns() async throws {
        try server.setRoutes(["headers": ["/app/img/icon-1024.png": ["Cache-Control": "max-age=600"]]])
        let processes = try (0..<2).map { i in
            try ProcessRunner.start(xdsPath, ["icon", "doc.txt", "--size", "600", "-o", "c\(i).png"], in: work.path,
                                    environment: ["SSL_CERT_FILE": server.caCertificatePath, "HOME": home.path,
                                                  "XDG_CACHE_HOME": cache], standardOutput: .discard)
        }
        var runs: [Run] = []
        for process in processes { runs.append(try await process.wait()) }
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs)")
        #expect(try output("c0.png") == output("c1.png"))
        let entries = try FileManager.default.contentsOfDirectory(atPath: cache + "/xds")
        #expect(!entries.isEmpty && entries.allSatisfy { $0.hasSuffix(".entry") }, "\(entries)")
        // Whole entries: the next run is served from them with no request.
        let before = try requests("/app/").count
        #expect(try await icon(["doc.txt", "--size", "600", "--offline", "-o", "c2.png"]).status == 0)
        #expect(try output("c2.png") == output("c0.png"))
        #expect(try requests("/app/").count == before)
    }

    @Test("a run killed mid-download leaves no cache entry or temporary file behind, and the next run works",
          arguments: [SIGKILL, SIGTERM])
    func killedMidDownload(signal: Int32) async throws {
        let list = #"[{"width": 58, "height": 58, "src": "/slow/body?size=400000&interval=0.02&chunk=4000"}]"#
        try server.write("slow/appInfo.json", list)
        // xds is started with the signals at their defaults: the test runner blocks SIGTERM in
        // the processes it starts.
        let p = try ProcessRunner.start(xdsPath, ["icon", "--app-info", server.url("/slow/appInfo.json", on: .https),
                                                  "--size", "58", "-o", "k.png"],
                                        in: work.path, environment: ["SSL_CERT_FILE": server.caCertificatePath,
                                                                     "HOME": home.path, "XDG_CACHE_HOME": cache],
                                        standardOutput: .discard, defaultSignals: true)
        // Ready when the icon's request has come in: its body trickles for about 2 s.
        try #require(await server.requestsStarted(to: "/slow/body"), "xds never asked for the icon")
        p.signal(signal)
        #expect(try await p.wait().killedBySignal)
        let cached = (try? FileManager.default.contentsOfDirectory(atPath: cache + "/xds")) ?? []
        #expect(cached.allSatisfy { $0.hasSuffix(".entry") }, "no temporary file: \(cached)")
        #expect(cached.count <= 1, "only the list may be cached: \(cached)")
        let left = try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.hasPrefix(".k.png") || $0 == "k.png" }
        if signal == SIGTERM { #expect(left.isEmpty, "\(left)") }
        // The list entry (if any) is whole: a run on a fast icon from the same list works.
        try server.write("slow/appInfo.json", #"[{"width": 58, "height": 58, "src": "/app/img/icon-58.png"}]"#)
        let next = try await icon(["--app-info", server.url("/slow/appInfo.json", on: .https), "--size", "58", "--no-cache", "-o", "n.png"])
        #expect(next.status == 0, "\(next)")
    }
}
