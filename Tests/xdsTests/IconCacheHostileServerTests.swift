import Foundation
import Testing
import XDSTestSupport

/// `xds icon` against a hostile server (issue 14): the built binary and the loopback test
/// server's scripted routes (any status and headers), HOME and the cache in temporary
/// folders. No figure a server sends may crash a run or a later one.
@Suite("xds icon against a hostile server (built binary, loopback)", .serialized, .timeLimit(.minutes(3)))
final class IconCacheHostileServerTests: @unchecked Sendable {
    let server: TestHTTPServer
    let work: URL
    let home: URL

    init() async throws {
        server = try await TestHTTPServer.start(sharing: "IconCacheHostileServerTests")
        work = try ScratchFolder.make(prefix: "xds-hostile-work")
        home = try ScratchFolder.make(prefix: "xds-hostile-home")
        try server.write("app/img/icon-58.png", Repository.bytes("img/icon-58.png"))
        try server.write("app/img/icon-87.png", Repository.bytes("img/icon-87.png"))
        try server.write("b/appInfo.json", Self.list(58))
        try server.write("c/appInfo.json", Self.list(87))
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: work)
        try? FileManager.default.removeItem(at: home)
    }

    /// A list with one entry, the project's icon of that side on this server.
    static func list(_ side: Int) -> String {
        #"[{"width": \#(side), "height": \#(side), "src": "/app/img/icon-\#(side).png"}]"#
    }

    var cache: String { home.appendingPathComponent("cache").path }

    /// Runs `xds icon …` in the work folder, trusting the test CA, with a private home and cache.
    func icon(_ arguments: [String], environment: [String: String] = [:]) async throws -> Run {
        try await run(xdsPath, ["icon"] + arguments, in: work.path,
                environment: ["SSL_CERT_FILE": server.caCertificatePath, "HOME": home.path, "XDG_CACHE_HOME": cache,
                              "HTTPS_PROXY": "", "https_proxy": "", "NO_PROXY": ""].merging(environment) { $1 })
    }

    func https(_ path: String) -> String { server.url(path, on: .https) }

    /// Scripted routes: each path → status, headers, body (see http_test_server.py).
    func script(_ routes: [String: (status: Int, headers: [String: String], body: String)],
                fileHeaders: [String: [String: String]] = [:]) throws {
        var table: [String: Any] = [:]
        for (path, route) in routes { table[path] = ["status": route.status, "headers": route.headers, "body": route.body] }
        try server.setRoutes(["routes": table, "headers": fileHeaders])
    }

    /// Files the work folder holds whose names start with `prefix` (temporary outputs).
    func leftovers(_ prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.hasPrefix(prefix) }
    }

    func count(_ path: String) throws -> Int { try server.requests().filter { $0.path == path }.count }

    /// A file in the work folder whose attribute points at `appInfoURL` (none: no appInfoURL).
    func tag(_ name: String, appInfoURL: String?) async throws {
        FileManager.default.createFile(atPath: work.appendingPathComponent(name).path, contents: Data("x".utf8))
        let set = try await xds(["set", name, "--id", "com.example.app", "--name", "Example"]
                          + (appInfoURL.map { ["--app-info-url", $0] } ?? []), in: work.path)
        try #require(set.status == 0, "\(set)")
    }

    @Test("Age: 9223372036854775807, then a run a second later: no crash, no temporary file (URL typed and from an attribute)")
    func hugeAgeThenALaterRun() async throws {
        let age = "9223372036854775807"
        try script(["/age/appInfo.json": (200, ["Age": age, "Cache-Control": "max-age=600"], Self.list(58))],
                   fileHeaders: ["/app/img/icon-58.png": ["Age": age, "Cache-Control": "max-age=600"]])
        try await tag("doc.txt", appInfoURL: https("/age/appInfo.json"))
        let first = try await icon(["--app-info", https("/age/appInfo.json"), "--size", "58", "-o", "out.png"])
        #expect(first.status == 0, "\(first)")
        try await Task.sleep(for: .milliseconds(1200))  // the crash needed the clock to have moved on
        for arguments in [["--app-info", https("/age/appInfo.json")], ["doc.txt"]] {
            let later = try await icon(arguments + ["--size", "58", "-o", "out.png"])
            #expect(later.status == 0, "\(arguments): \(later)")
            #expect(later.stderr.isEmpty, "\(later.stderr)")
        }
        let left = try leftovers(".out.png")
        #expect(left.isEmpty, "\(left)")
        #expect(try count("/age/appInfo.json") == 3, "an Age past max-age is stale: every run asks")
    }

    @Test("Age: 7200, 0 with max-age=3600 is stale: the next run asks again")
    func ageListFromItsFirstMember() async throws {
        try script(["/agelist/appInfo.json": (200, ["Age": "7200, 0", "Cache-Control": "max-age=3600"], Self.list(58))],
                   fileHeaders: ["/app/img/icon-58.png": ["Cache-Control": "max-age=600"]])
        for _ in 0..<2 { #expect(try await icon(["--app-info", https("/agelist/appInfo.json"), "--size", "58", "-o", "a.png"]).status == 0) }
        #expect(try count("/agelist/appInfo.json") == 2)
        #expect(try count("/app/img/icon-58.png") == 1)
    }

    @Test("Expires that is not a valid HTTP date (or not GMT) means already stale")
    func invalidExpiresIsStale() async throws {
        let values = ["Mon 18 Aug 2050 08:00:00 GMT", "Thu, 18-Aug-2050 08:00:00 GMT", "Thu, 18 Aug 2050 8:00:00 GMT",
                      "Thu, 18 Aug 2050 08:00:00 AEST"]
        var routes: [String: (status: Int, headers: [String: String], body: String)] = [:]
        for (index, value) in values.enumerated() { routes["/expires\(index)/appInfo.json"] = (200, ["Expires": value], Self.list(58)) }
        routes["/valid/appInfo.json"] = (200, ["Expires": "Thu, 18 Aug 2050 08:00:00 GMT"], Self.list(58))
        try script(routes, fileHeaders: ["/app/img/icon-58.png": ["Cache-Control": "max-age=600"]])
        for path in routes.keys {
            for _ in 0..<2 { #expect(try await icon(["--app-info", https(path), "--size", "58", "-o", "a.png"]).status == 0) }
            #expect(try count(path) == (path.hasPrefix("/valid") ? 1 : 2), "\(path)")
        }
    }

    @Test("a 302 is asked again on the next run; its target's entry stays fresh; a changed target is followed")
    func temporaryRedirectChangesTarget() async throws {
        let fresh = ["Cache-Control": "max-age=3600"]
        try script(["/t/appInfo.json": (302, ["Location": "/b/appInfo.json"], "")],
                   fileHeaders: ["/b/appInfo.json": fresh, "/c/appInfo.json": fresh,
                                 "/app/img/icon-58.png": fresh, "/app/img/icon-87.png": fresh])
        #expect(try await icon(["--app-info", https("/t/appInfo.json"), "--size", "58", "-o", "a.png"]).status == 0)
        #expect(try await icon(["--app-info", https("/t/appInfo.json"), "--size", "58", "-o", "a.png"]).status == 0)
        #expect(try count("/t/appInfo.json") == 2, "the temporary redirect is asked again")
        #expect(try count("/b/appInfo.json") == 1, "its fresh target is not")
        try script(["/t/appInfo.json": (302, ["Location": "/c/appInfo.json"], "")],
                   fileHeaders: ["/b/appInfo.json": fresh, "/c/appInfo.json": fresh,
                                 "/app/img/icon-58.png": fresh, "/app/img/icon-87.png": fresh])
        let changed = try await icon(["--app-info", https("/t/appInfo.json"), "--size", "58", "-o", "c.png"])
        #expect(changed.status == 0, "\(changed)")
        #expect(try count("/c/appInfo.json") == 1 && count("/app/img/icon-87.png") == 1, "the new target and its icon")
        let mask = try await xds(["mask", packageRoot + "/img/icon-87.png", "--size", "58", "-o", work.appendingPathComponent("m.png").path])
        try #require(mask.status == 0)
        #expect(try Data(contentsOf: work.appendingPathComponent("c.png")) == Data(contentsOf: work.appendingPathComponent("m.png")))
    }

    @Test("Vary: * is never reused without asking")
    func varyStar() async throws {
        try script(["/vary/appInfo.json": (200, ["Cache-Control": "max-age=600", "Vary": "*"], Self.list(58))],
                   fileHeaders: ["/app/img/icon-58.png": ["Cache-Control": "max-age=600"]])
        for _ in 0..<2 { #expect(try await icon(["--app-info", https("/vary/appInfo.json"), "--size", "58", "-o", "a.png"]).status == 0) }
        #expect(try count("/vary/appInfo.json") == 2)
        #expect(try count("/app/img/icon-58.png") == 1)
    }

    @Test("no hop-by-hop or Proxy-* header is stored in a cache entry")
    func noHopByHopHeadersStored() async throws {
        try script(["/hop/appInfo.json": (200, ["Connection": "keep-alive, X-Hop-Secret", "Keep-Alive": "timeout=5",
                                                "X-Hop-Secret": "1", "Proxy-Authenticate": "Basic realm=x",
                                                "X-Kept": "yes", "Cache-Control": "max-age=600"], Self.list(58))])
        let result = try await icon(["--app-info", https("/hop/appInfo.json"), "--size", "58", "-o", "a.png"])
        #expect(result.status == 0, "\(result)")
        let folder = cache + "/xds"
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".entry") }
        let texts = try entries.map { String(decoding: try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)), as: UTF8.self).lowercased() }
        let list = try #require(texts.first { $0.contains("x-kept") }, "the list's entry")
        for name in ["keep-alive", "x-hop-secret", "proxy-authenticate", "connection"] {
            #expect(!list.contains(name), "\(name) stored")
        }
    }

    @Test("a redirect to file:, data:, ftp: or a URL without a host is a failed fetch (69), one line")
    func redirectToRefusedScheme() async throws {
        let targets = ["file:///etc/passwd", "data:application/json,%5B%5D", "ftp://127.0.0.1/appInfo.json", "https:///x"]
        var routes: [String: (status: Int, headers: [String: String], body: String)] = [:]
        for (index, target) in targets.enumerated() { routes["/r\(index)"] = (302, ["Location": target], "") }
        try script(routes)
        for index in targets.indices {
            let result = try await icon(["--app-info", https("/r\(index)"), "--size", "58", "-o", "a.png"])
            #expect(result.status == 69, "\(targets[index]): \(result)")
            #expect(result.errorLines.count == 1 && result.stderr.contains("redirect"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("a.png").path))
        }
        #expect(try leftovers(".a.png").isEmpty)
    }

    @Test("FILE without an appInfoURL (or without the attribute): 1, one line naming --app-info, nothing written, ./appInfo.json ignored")
    func fileWithoutAppInfoURL() async throws {
        let local = #"[{"width": 58, "height": 58, "src": "\#(https("/app/img/icon-58.png"))"}]"#
        try Data(local.utf8).write(to: work.appendingPathComponent("appInfo.json"))
        try await tag("bare.txt", appInfoURL: nil)
        FileManager.default.createFile(atPath: work.appendingPathComponent("plain.txt").path, contents: Data("x".utf8))
        for file in ["bare.txt", "plain.txt"] {
            let result = try await icon([file, "--size", "58", "-o", "out.png"])
            #expect(result.status == 1, "\(result)")
            #expect(result.errorLines.count == 1 && result.stderr.hasPrefix("xds: \(file): "), "\(result.stderr)")
            #expect(result.stderr.contains("--app-info"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(try leftovers("out.png").isEmpty && leftovers(".out.png").isEmpty, "nothing written")
        }
        let bare = try await icon(["bare.txt", "-o", "out.png"])
        #expect(bare.stderr == "xds: bare.txt: the x-document-source attribute has no appInfoURL; give the icon list with --app-info\n")
        #expect(try server.requests().isEmpty)
        // With no FILE, the current folder's list is used.
        #expect(try await icon(["--size", "58", "-o", "out.png"]).status == 0)
    }

    @Test("a relative HOME (and XDG_CACHE_HOME) is named as not an absolute path")
    func relativeHome() async throws {
        let offline = try await icon(["--app-info", https("/b/appInfo.json"), "--offline", "-o", "a.png"],
                               environment: ["HOME": "relhome", "XDG_CACHE_HOME": ""])
        #expect(offline.status == 69, "\(offline)")
        #expect(offline.stderr.contains("HOME is not an absolute path and XDG_CACHE_HOME is not set"), "\(offline.stderr)")
        let online = try await icon(["--app-info", https("/b/appInfo.json"), "--size", "58", "-o", "a.png"],
                              environment: ["HOME": "relhome", "XDG_CACHE_HOME": "relcache"])
        #expect(online.status == 0, "\(online)")
        #expect(online.stderr.contains("neither XDG_CACHE_HOME nor HOME is an absolute path"), "\(online.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("relhome").path))
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("relcache").path))
    }

    @Test("a cache entry a folder stands in for is named in the warning, not the cache folder")
    func entryReplacedByAFolder() async throws {
        let first = try await icon(["--app-info", https("/b/appInfo.json"), "--size", "58", "-o", "a.png"])
        try #require(first.status == 0, "\(first)")
        let folder = cache + "/xds"
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".entry") }
        for entry in entries {
            try FileManager.default.removeItem(atPath: folder + "/" + entry)
            try FileManager.default.createDirectory(atPath: folder + "/" + entry + "/x", withIntermediateDirectories: true)
        }
        let again = try await icon(["--app-info", https("/b/appInfo.json"), "--size", "58", "-o", "a.png"])
        #expect(again.status == 0, "\(again)")
        #expect(again.errorLines.count == 1, "one warning: \(again.stderr)")
        #expect(entries.contains { again.stderr.contains(folder + "/" + $0 + ":") }, "\(again.stderr)")
    }
}
