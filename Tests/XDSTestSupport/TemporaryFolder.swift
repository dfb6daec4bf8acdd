import Foundation

/// A fresh folder for one test, removed when the value goes away: under /tmp (a real ext4 or
/// tmpfs that takes `user.` attributes), or with ``withBigValues()`` under /dev/shm when that takes
/// values of 50 KB (tmpfs on Linux 6.6 and later; ext4 takes only about 4 KiB).
public final class TemporaryFolder: @unchecked Sendable {
    /// The folder's path.
    public let path: String

    /// Whether this folder's filesystem takes attribute values of 50 KB.
    public let takesBigValues: Bool

    /// The folder as a file URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// A folder under /tmp.
    public convenience init() {
        self.init(path: TemporaryFolder.make("/tmp")!, takesBigValues: false)
    }

    private init(path: String, takesBigValues: Bool) {
        self.path = path
        self.takesBigValues = takesBigValues
    }

    /// A folder under /dev/shm when that takes values of 50 KB, else under /tmp (see
    /// ``takesBigValues``); the probe (a python3 run) is waited for off the pool.
    public static func withBigValues() async -> TemporaryFolder {
        await offPool {
            if let shm = make("/dev/shm") {
                if probeBigValue(in: shm) { return TemporaryFolder(path: shm, takesBigValues: true) }
                try? FileManager.default.removeItem(atPath: shm)
            }
            let path = make("/tmp")!
            return TemporaryFolder(path: path, takesBigValues: probeBigValue(in: path))
        }
    }

    private static func make(_ base: String) -> String? {
        var template = Array("\(base)/xds-tests.XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } }
    }

    /// Sets a 50 000-byte `user.` attribute on a scratch file (with Python's os.setxattr, so
    /// the test support needs none of the project's libraries); blocks: called off the pool.
    private static func probeBigValue(in folder: String) -> Bool {
        let probe = folder + "/.probe"
        _ = FileManager.default.createFile(atPath: probe, contents: Data())
        defer { try? FileManager.default.removeItem(atPath: probe) }
        let run = try? ProcessRunner.runBlocking("/usr/bin/env", ["python3", "-c", "import os, sys; os.setxattr(sys.argv[1], 'user.x-probe', bytes(50000))", probe])
        return run?.status == 0
    }

    deinit {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            // Folders deeper than PATH_MAX (the deep-tree walks) defeat FileManager.
            Self.removeDeep(path)
        }
    }

    /// Creates a file with `contents` and returns its path.
    @discardableResult
    public func file(_ name: String, _ contents: String = "content\n") -> String {
        let full = path + "/" + name
        _ = FileManager.default.createFile(atPath: full, contents: Data(contents.utf8))
        return full
    }

    /// Creates a folder (and its parents) and returns its path.
    @discardableResult
    public func folder(_ name: String) -> String {
        let full = path + "/" + name
        try! FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        return full
    }

    /// Writes raw bytes as a file and returns its path.
    @discardableResult
    public func write(_ name: String, bytes: [UInt8]) -> String {
        let full = path + "/" + name
        _ = FileManager.default.createFile(atPath: full, contents: Data(bytes))
        return full
    }

    /// Raw attribute bytes via getfattr (an implementation independent of ours), nil when absent.
    public func attribute(_ file: String, name: String = "user.x-document-source") async throws -> Data? {
        let result = try await ProcessRunner.run("/usr/bin/getfattr", ["--only-values", "-n", name, file], in: path)
        return result.status == 0 ? result.stdoutBytes : nil
    }

    /// Sets an attribute via setfattr with a hex value.
    public func setAttribute(_ file: String, _ value: [UInt8], name: String = "user.x-document-source") async throws {
        let hex = "0x" + value.map { String(format: "%02x", $0) }.joined()
        let result = try await ProcessRunner.run("/usr/bin/setfattr", ["-n", name, "-v", hex, file], in: path)
        guard result.status == 0 else { throw SetAttributeFailed(run: result) }
    }

    /// setfattr failed.
    public struct SetAttributeFailed: Error, CustomStringConvertible {
        public let run: Run
        public var description: String { "setfattr failed: \(run.stderr)" }
    }
}
