import Foundation
import Testing
import XDSTestSupport

/// Every ```swift block of README.md and docs/*.md type-checks against the libraries as this
/// test run built them (`swiftc -typecheck`, the modules and C module maps of the build folder):
/// a renamed API, a wrong label or an undefined name in a sample fails here, with the compiler's
/// message pointing at the Markdown file's own line (docs/doc-examples.md).
@Suite("the Swift samples in README.md and docs/ (compiled)", .timeLimit(.minutes(3)))
struct DocSwiftSampleTests {
    static let swiftBlocks = DocBlock.all("swift", root: Repository.root)

    @Test("the docs have Swift samples to compile")
    func samplesAreFound() {
        #expect(DocSwiftSampleTests.swiftBlocks.contains { $0.file == "docs/library.md" })
    }

    @Test("a Swift sample compiles", arguments: DocSwiftSampleTests.swiftBlocks)
    func sampleCompiles(_ block: DocBlock) async throws {
        let build = try BuildFolder.locate()
        let scratch = TemporaryFolder()
        var flags = ["-I", build.modules] + build.moduleMaps.flatMap { ["-Xcc", "-fmodule-map-file=" + $0] }
            + build.includes.flatMap { ["-I", $0] }
        for package in block.needs {
            let declarations = try #require(OtherPackages.declarations[package],
                                            "\(block.testDescription): no declarations of \(package) for the check (OtherPackages)")
            let folder = scratch.folder("needs-" + package)
            let source = scratch.file(package + ".swift", declarations)
            let made = try await ProcessRunner.runOnPath(["swiftc", "-parse-as-library", "-emit-module", "-module-name", package,
                                                    "-emit-module-path", folder + "/" + package + ".swiftmodule", source],
                                                   timeLimit: 120)
            try #require(made.status == 0, "declarations of \(package): \(made.stderr)")
            flags += ["-I", folder]
        }
        // #sourceLocation: the compiler's messages name the Markdown file and its lines.
        let markdown = Repository.url(block.file).path
        let sample = scratch.file("main.swift", "#sourceLocation(file: \"\(markdown)\", line: \(block.line + 1))\n"
                                    + block.body.joined(separator: "\n") + "\n")
        let result = try await ProcessRunner.runOnPath(["swiftc", "-typecheck", "-swift-version", "6"] + flags + [sample],
                                                 timeLimit: 240)
        #expect(result.status == 0, "\(block.testDescription): the sample does not compile:\n\(result.stderr)\(result.stdout)")
    }
}

/// The build folder of this test run: where the modules the samples import were written.
struct BuildFolder {
    /// The folder of the Swift modules (`-I`).
    var modules: String
    /// The module maps SwiftPM wrote for the C targets with an umbrella header (CPlist, CZlib, …).
    var moduleMaps: [String]
    /// The include folders of every C target: those with their own module map (CCurl, CArchive)
    /// are found there, and their headers include others' (clibraryloader.h).
    var includes: [String]

    /// The folder of the running test executable (SwiftPM's debug folder, which holds Modules/),
    /// else the repository's .build/debug.
    static func locate() throws -> BuildFolder {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [executable, Repository.url(".build/debug").resolvingSymlinksInPath()]
        let files = FileManager.default
        for folder in candidates where files.fileExists(atPath: folder.appendingPathComponent("Modules/XDocSource.swiftmodule").path) {
            let maps = try files.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".build") }.sorted()
                .map { folder.appendingPathComponent($0).appendingPathComponent("module.modulemap").path }
                .filter { files.fileExists(atPath: $0) }
            let sources = Repository.url("Sources")
            let includes = try files.contentsOfDirectory(atPath: sources.path).sorted()
                .map { sources.appendingPathComponent($0).appendingPathComponent("include").path }
                .filter { files.fileExists(atPath: $0) }
            return BuildFolder(modules: folder.appendingPathComponent("Modules").path, moduleMaps: maps, includes: includes)
        }
        throw NotFound(searched: candidates.map(\.path))
    }

    struct NotFound: Error, CustomStringConvertible {
        var searched: [String]
        var description: String { "no Modules/XDocSource.swiftmodule in \(searched.joined(separator: " or "))" }
    }
}

/// Declarations of the few calls of other packages that samples use (a sample names the package
/// on its fence line): the signatures of the real packages, copied, with bodies that are never
/// run. They let the check hold the sample's use of this package's API (HTTPTransport and its
/// types) without fetching and building those packages.
enum OtherPackages {
    static let declarations: [String: String] = [
        // AsyncHTTPClient 1.x with the NIO types its API uses (NIOCore's ByteBuffer and
        // TimeAmount, NIOHTTP1's HTTPHeaders and HTTPResponseStatus).
        "AsyncHTTPClient": """
            public struct TimeAmount: Sendable {
                public let nanoseconds: Int64
                public static func seconds(_ amount: Int64) -> TimeAmount { TimeAmount(nanoseconds: amount * 1_000_000_000) }
            }
            public struct ByteBufferView: RandomAccessCollection, Sendable {
                public var startIndex: Int { 0 }
                public var endIndex: Int { 0 }
                public subscript(position: Int) -> UInt8 { 0 }
            }
            public struct ByteBuffer: Sendable {
                public var readableBytesView: ByteBufferView { ByteBufferView() }
            }
            public struct HTTPHeaders: Sequence, Sendable {
                public init() {}
                public mutating func add(name: String, value: String) {}
                public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { [].makeIterator() }
            }
            public struct HTTPResponseStatus: Sendable {
                public var code: UInt { 200 }
            }
            public struct HTTPClientRequest: Sendable {
                public var url: String
                public var headers: HTTPHeaders
                public init(url: String) { self.url = url; self.headers = HTTPHeaders() }
            }
            public struct HTTPClientResponse: Sendable {
                public struct Body: Sendable {
                    public func collect(upTo maxBytes: Int) async throws -> ByteBuffer { ByteBuffer() }
                }
                public var status: HTTPResponseStatus
                public var headers: HTTPHeaders
                public var body: Body
            }
            public final class HTTPClient: Sendable {
                public func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
                    HTTPClientResponse(status: HTTPResponseStatus(), headers: HTTPHeaders(), body: .init())
                }
            }
            """,
    ]
}
