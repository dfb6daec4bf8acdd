import Foundation

/// Where things are in the repository the tests were built from. Every path is found from this
/// source file's own location, so a clone tests on its own, wherever it is.
public enum Repository {
    /// The repository's root folder (the one holding Package.swift).
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // XDSTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// A file or folder given relative to the root, e.g. "img/icon-87.png".
    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// The bytes of a file given relative to the root.
    public static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relative)))
    }

    /// The `xds` executable built with the tests: `$XDS_BINARY` when set, else the one beside
    /// the test bundle (SwiftPM builds the products a test target depends on next to it), else
    /// `.build/debug/xds`.
    public static let xdsExecutable: String = {
        if let path = ProcessInfo.processInfo.environment["XDS_BINARY"], !path.isEmpty { return path }
        var folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("xds").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return url(".build/debug/xds").path
    }()
}

/// The fixtures under Tests/Fixtures (see its README for each item's origin and licence).
public enum Fixtures {
    /// Tests/Fixtures.
    public static let root: URL = Repository.url("Tests/Fixtures")

    /// A fixture given relative to Tests/Fixtures, e.g. "pngsuite/MANIFEST.json".
    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// The bytes of a fixture.
    public static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relative)))
    }
}
