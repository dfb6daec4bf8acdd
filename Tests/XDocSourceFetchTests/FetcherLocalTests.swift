import Foundation
import XDSTestSupport
import Testing
@testable import XDocSourceFetch

/// A transport answering from a closure and recording the requests: for the cache logic only
/// (the network behaviour is tested against a real server in XDocSourceHTTPTests).
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var log: [HTTPRequest] = []
    private let answer: @Sendable (HTTPRequest) -> HTTPResponse

    init(_ answer: @escaping @Sendable (HTTPRequest) -> HTTPResponse) { self.answer = answer }

    var requests: [HTTPRequest] { lock.withLock { log } }

    func get(_ request: HTTPRequest, maximumBodySize: Int) async throws(FetchError) -> HTTPResponse {
        lock.withLock { log.append(request) }
        return answer(request)
    }
}

/// A clock the test moves.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int64
    init(_ start: Int64) { value = start }
    var now: Int64 { lock.withLock { value } }
    func advance(_ seconds: Int64) { lock.withLock { value += seconds } }
}

@Suite("Fetcher: local files and cache logic")
struct FetcherLocalTests {
    static let list = #"{"icons": [{"width": 29, "height": 29, "src": "img/a.png"}, {"width": 58, "height": 58, "src": "img/b.png"}]}"#

    func makeFolder() -> TemporaryFolder {
        let folder = TemporaryFolder()
        folder.file("appInfo.json", Self.list)
        try? FileManager.default.createDirectory(atPath: folder.path + "/img", withIntermediateDirectories: true)
        folder.file("img/a.png", "small")
        folder.file("img/b.png", "large")
        return folder
    }

    @Test func localListAndRelativeSrc() async throws {
        let folder = makeFolder()
        let fetcher = AppInfoFetcher(transport: nil, cache: nil)
        let icon = try await fetcher.iconImage(pixelSize: 40, from: .commandLine(folder.path + "/appInfo.json"))
        #expect(icon.bytes == Array("large".utf8))
        #expect(icon.entry.src == "img/b.png")
        #expect(icon.requests == 0 && !icon.fromCache)
        let viaURL = try await fetcher.iconImage(pixelSize: 29, from: .commandLine("file://" + folder.path + "/appInfo.json"))
        #expect(viaURL.bytes == Array("small".utf8))
    }

    @Test func localListURLIsAFileURL() async throws {
        let folder = makeFolder()
        let fetcher = AppInfoFetcher(transport: nil, cache: nil)
        let list = try await fetcher.appInfo(at: .commandLine(folder.path + "/./appInfo.json"))
        #expect(list.appInfo.icons.count == 2)
        #expect(list.url.hasPrefix("file:///") && list.url.hasSuffix("/appInfo.json"))
    }

    @Test func localSrcMustStayInsideTheFolder() async throws {
        let folder = makeFolder()
        folder.file("secret.png", "secret")
        try FileManager.default.createDirectory(atPath: folder.path + "/app", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/app/link.png", withDestinationPath: folder.path + "/secret.png")
        folder.file("app/inside.png", "inside")
        let fetcher = AppInfoFetcher(transport: nil, cache: nil)
        for src in ["../secret.png", "link.png", "/etc/passwd", "file:///etc/passwd", "sub/../../secret.png"] {
            folder.file("app/appInfo.json", #"[{"width": 8, "height": 8, "src": "\#(src)"}]"#)
            await #expect(throws: FetchError.self, "src \(src)") {
                try await fetcher.iconImage(pixelSize: 8, from: .commandLine(folder.path + "/app/appInfo.json"))
            }
            do {
                _ = try await fetcher.iconImage(pixelSize: 8, from: .commandLine(folder.path + "/app/appInfo.json"))
            } catch {
                #expect(error.kind == .refused, "src \(src): \(error)")
            }
        }
        folder.file("app/appInfo.json", #"[{"width": 8, "height": 8, "src": "./x/../inside.png"}]"#)
        let ok = try await fetcher.iconImage(pixelSize: 8, from: .commandLine(folder.path + "/app/appInfo.json"))
        #expect(ok.bytes == Array("inside".utf8))
    }

    @Test func attributesMayNotNameLocalFilesAndHTTPIsRefused() async {
        let folder = makeFolder()
        let fetcher = AppInfoFetcher(transport: ScriptedTransport { _ in HTTPResponse(status: 500, headers: [], body: []) }, cache: nil)
        for (text, kind) in [(folder.path + "/appInfo.json", FetchError.Kind.refused), ("file://" + folder.path + "/appInfo.json", .refused),
                             ("http://example.test/appInfo.json", .refused), ("ftp://example.test/a", .refused)] {
            do {
                _ = try await fetcher.appInfo(at: .attribute(text))
                Issue.record("\(text) accepted")
            } catch {
                #expect(error.kind == kind, "\(text): \(error)")
            }
        }
    }

    @Test func localFilesAreCheckedBeforeReading() async throws {
        let folder = makeFolder()
        let fetcher = AppInfoFetcher(transport: nil, policy: FetchPolicy(maximumAppInfoSize: 10), cache: nil)
        await #expect(throws: FetchError(.tooLarge, url: folder.path + "/appInfo.json",
                                         message: "appInfo.json is \(Self.list.utf8.count) bytes, over the 10 bytes limit")) {
            try await fetcher.appInfo(at: .commandLine(folder.path + "/appInfo.json"))
        }
        #expect(mkfifo(folder.path + "/fifo.json", 0o600) == 0)
        do {
            _ = try await fetcher.appInfo(at: .commandLine(folder.path + "/fifo.json"))
            Issue.record("a FIFO was read")
        } catch { #expect(error.kind == .io && error.message.contains("not a regular file")) }
        do {
            _ = try await fetcher.appInfo(at: .commandLine(folder.path + "/missing.json"))
            Issue.record("a missing file was read")
        } catch { #expect(error.kind == .io && error.errorNumber == ENOENT) }
        do {
            _ = try await AppInfoFetcher(transport: nil, cache: nil).appInfo(at: .commandLine("https://example.test/appInfo.json"))
            Issue.record("fetched without a transport")
        } catch { #expect(error.kind == .network) }
    }

    // MARK: Cache logic with a scripted transport

    @Test func freshEntryMakesNoRequestStaleOneRevalidates() async throws {
        let cacheFolder = TemporaryFolder()
        let clock = TestClock(1_700_000_000)
        let transport = ScriptedTransport { request in
            if request.headers.contains(where: { $0.name == "If-None-Match" && $0.value == "\"v1\"" }) {
                return HTTPResponse(status: 304, headers: [HTTPHeader(name: "Cache-Control", value: "max-age=100")], body: [])
            }
            return HTTPResponse(status: 200, headers: [HTTPHeader(name: "ETag", value: "\"v1\""), HTTPHeader(name: "Cache-Control", value: "max-age=100")],
                                body: Array(#"[{"width": 8, "height": 8, "src": "i.png"}]"#.utf8))
        }
        let settings = CacheSettings(directory: cacheFolder.path + "/xds")
        let url = "https://example.test/appInfo.json"
        func fetch() async throws -> FetchedAppInfo {
            try await AppInfoFetcher(transport: transport, cache: settings, now: { clock.now }).appInfo(at: .attribute(url))
        }
        let first = try await fetch()
        #expect(first.requests == 1 && !first.fromCache)
        clock.advance(99)
        let second = try await fetch()
        #expect(second.requests == 0 && second.fromCache && second.appInfo == first.appInfo)
        clock.advance(1)
        let third = try await fetch()
        #expect(third.requests == 1 && third.fromCache && third.appInfo == first.appInfo)
        #expect(transport.requests.count == 2)
        #expect(transport.requests.last?.headers == [HTTPHeader(name: "If-None-Match", value: "\"v1\"")])
        // The 304's max-age=100 counts from the revalidation.
        clock.advance(99)
        #expect(try await fetch().requests == 0)

        let offline = CacheSettings(directory: settings.directory, mode: .offline)
        clock.advance(100_000)
        let stale = try await AppInfoFetcher(transport: transport, cache: offline, now: { clock.now }).appInfo(at: .attribute(url))
        #expect(stale.requests == 0 && stale.fromCache)
        await #expect(throws: FetchError.self) {
            try await AppInfoFetcher(transport: transport, cache: offline).appInfo(at: .attribute("https://example.test/other.json"))
        }
        let bypass = CacheSettings(directory: settings.directory, mode: .bypass)
        #expect(try await AppInfoFetcher(transport: transport, cache: bypass, now: { clock.now }).appInfo(at: .attribute(url)).requests == 1)
    }

    @Test func unwritableCacheFolderWarnsAndFetches() async throws {
        let folder = TemporaryFolder()
        folder.file("not-a-folder", "x")
        let transport = ScriptedTransport { _ in HTTPResponse(status: 200, headers: [], body: Array("[]".utf8)) }
        let fetcher = AppInfoFetcher(transport: transport, cache: CacheSettings(directory: folder.path + "/not-a-folder/xds"))
        let list = try await fetcher.appInfo(at: .attribute("https://example.test/a.json"))
        #expect(list.requests == 1)
        let warnings = await fetcher.warnings
        #expect(warnings.count == 1 && warnings[0].contains("fetching without caching"), "\(warnings)")
    }

    /// Paths are compared as bytes: Swift's String comparison treats "café" (NFC) and
    /// "cafe\u{301}" (NFD) as equal, but on Linux they are two different folders, so a symlink
    /// from one to the other leads outside.
    @Test func aLinkToACanonicallyEquivalentSiblingLeadsOutside() async throws {
        let root = TemporaryFolder()
        let inside = root.path + "/caf\u{E9}", sibling = root.path + "/cafe\u{301}"
        #expect(mkdir(inside, 0o755) == 0 && mkdir(sibling, 0o755) == 0 && mkdir(sibling + "/img", 0o755) == 0)
        root.file("cafe\u{301}/img/secret.png", "secret")
        root.file("caf\u{E9}/appInfo.json", #"{"icons": [{"width": 29, "height": 29, "src": "img/secret.png"}]}"#)
        #expect(symlink("../cafe\u{301}/img", inside + "/img") == 0)
        let fetcher = AppInfoFetcher(transport: nil, cache: nil)
        do {
            let icon = try await fetcher.iconImage(pixelSize: 29, from: .commandLine(inside + "/appInfo.json"))
            Issue.record("read \(icon.bytes.count) bytes from outside the list's folder")
        } catch {
            #expect(error.kind == .refused, "\(error)")
        }
    }
}
