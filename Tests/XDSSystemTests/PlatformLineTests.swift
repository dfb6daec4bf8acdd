import Foundation
import Testing
import XDSTestSupport

/// Package.swift promises macOS 13: no code in Sources/ may call standard-library API that
/// macOS 13 lacks unless it is behind `#available` (or inside an `@available` declaration).
///
/// On Linux the compiler does not check availability, so this test does it by text: it reads the
/// running toolchain's interfaces of `Swift`, `_Concurrency`, `_StringProcessing` and
/// `Synchronization` (found through `swift -print-target-info`), lists every declaration marked
/// `@available(macOS 14…)` or later (directly or through its extension), and looks for their
/// names in Sources/*.swift: a type by its name, an initialiser as `Type(label:`, a function as
/// `name(label:`, a property as `.name`. A name that also has an older declaration with the same
/// first label (an overload told apart only by types), or that the package declares itself, is
/// left out: text cannot tell which one a line calls. Lines inside `#available`/`@available`
/// scopes, and comments, are skipped.
///
/// Foundation is not covered (its interfaces on Linux are swift-corelibs-foundation's, without
/// Apple's availability), nor operators and subscripts: the macOS build is the check for those.
@Suite("Platform line")
struct PlatformLineTests {
    /// Package.swift's macOS version: declarations introduced after it are the ones looked for.
    static let platformMajor = 13

    @Test func sourcesCallNoStandardLibraryAPIAbovePlatformLine() async throws {
        let interfaces = try await StandardLibraryInterfaces.locate()
        #expect(!interfaces.isEmpty)
        var catalogue = NewerAPICatalogue(above: Self.platformMajor)
        for file in interfaces { try catalogue.read(String(contentsOfFile: file, encoding: .utf8)) }
        // The parser's own check: the call issue 36 found must be in the list, so an empty
        // result below means the Sources are clean, not that the interfaces were misread.
        #expect(catalogue.newer.contains { $0.description.hasPrefix("String.init(validating:") })
        let sources = try SourceFiles.swiftFiles(under: Repository.url("Sources").path)
        let findings = catalogue.uses(in: sources)
        let list = findings.joined(separator: "\n")
        #expect(findings.isEmpty, "API above macOS \(Self.platformMajor) outside #available:\n\(list)")
    }
}

/// The .swiftinterface files of the standard-library modules of the toolchain that runs the tests.
enum StandardLibraryInterfaces {
    static let modules = ["Swift", "_Concurrency", "_StringProcessing", "Synchronization"]

    static func locate() async throws -> [String] {
        let run = try await ProcessRunner.runOnPath(["swift", "-print-target-info"], timeLimit: 120)
        let info = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let paths = info?["paths"] as? [String: Any] ?? [:]
        let target = info?["target"] as? [String: Any] ?? [:]
        guard let resource = paths["runtimeResourcePath"] as? String,
              let triple = (target["moduleTriple"] ?? target["triple"]) as? String else { return [] }
        var folders = ["linux", "macosx"].map { "\(resource)/\($0)" }
        if let sdk = paths["sdkPath"] as? String { folders.append("\(sdk)/usr/lib/swift") }
        return modules.compactMap { module in
            folders.lazy.map { "\($0)/\(module).swiftmodule/\(triple).swiftinterface" }
                .first { FileManager.default.fileExists(atPath: $0) }
        }
    }
}

/// The Swift files under a folder, read once: (path relative to the repository, lines).
enum SourceFiles {
    static func swiftFiles(under folder: String) throws -> [(String, [Substring])] {
        let names = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return try names.filter { $0.hasSuffix(".swift") }.sorted().map { name in
            let text = try String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8)
            return ("Sources/\(name)", text.split(separator: "\n", omittingEmptySubsequences: false))
        }
    }
}
