import Foundation
import Testing
import XDocSource
import XDSTestSupport

/// The result of running a program (defined in XDSTestSupport).
typealias Run = XDSTestSupport.Run

/// The `xds` binary built next to the test bundle (`swift build --build-tests` builds it).
let xdsPath: String = Repository.xdsExecutable

/// The package's root folder.
let packageRoot: String = Repository.root.path

/// Runs a program with arguments in `folder` (see ``ProcessRunner/run(_:_:in:input:environment:terminal:defaultSignals:timeLimit:)``).
func run(_ executable: String, _ arguments: [String], in folder: String? = nil, input: Data? = nil,
         environment: [String: String] = [:], terminal: Bool = false) throws -> Run {
    try ProcessRunner.run(executable, arguments, in: folder, input: input, environment: environment, terminal: terminal)
}

/// Runs `xds` with arguments.
func xds(_ arguments: String..., in folder: String? = nil) throws -> Run {
    try run(xdsPath, arguments, in: folder)
}

/// Runs `xds` with an argument array.
func xds(_ arguments: [String], in folder: String? = nil) throws -> Run {
    try run(xdsPath, arguments, in: folder)
}

/// Runs a shell command line (for setfattr/getfattr/plistutil pipelines).
func sh(_ command: String, in folder: String? = nil) throws -> Run {
    try run("/bin/sh", ["-c", command], in: folder)
}

/// Runs a Python 3 script; arguments are in sys.argv[1:].
func python(_ script: String, _ arguments: [String] = [], in folder: String? = nil) throws -> Run {
    try run("/usr/bin/env", ["python3", "-c", script] + arguments, in: folder)
}

/// A fresh folder, removed on deinit. Under /tmp by default; `bigValues` picks /dev/shm
/// (tmpfs takes values up to 64 KiB, ext4 only about 4 KiB) when it is there.
final class Folder {
    let path: String

    /// Whether this folder's filesystem takes values of 50 KB (tmpfs on Linux 6.6 and later).
    let takesBigValues: Bool

    init(bigValues: Bool = false) {
        func make(_ base: String) -> String? {
            var template = Array("\(base)/xds-cli-tests.XXXXXX".utf8CString)
            return template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } }
        }
        if bigValues, let shm = make("/dev/shm") {
            if Folder.probeBigValue(in: shm) {
                path = shm
                takesBigValues = true
                return
            }
            try? FileManager.default.removeItem(atPath: shm)
        }
        path = make("/tmp")!
        takesBigValues = Folder.probeBigValue(in: path)
    }

    private static func probeBigValue(in folder: String) -> Bool {
        let probe = folder + "/.probe"
        _ = FileManager.default.createFile(atPath: probe, contents: Data())
        defer { try? FileManager.default.removeItem(atPath: probe) }
        return (try? DocumentSourceFile(path: probe).writeRawValue([UInt8](repeating: 1, count: 50_000))) != nil
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    @discardableResult
    func file(_ name: String, _ contents: String = "content\n") -> String {
        let full = path + "/" + name
        _ = FileManager.default.createFile(atPath: full, contents: Data(contents.utf8))
        return full
    }

    /// Raw attribute bytes via getfattr (an independent implementation), nil when absent.
    func attribute(_ file: String, name: String = "user.x-document-source") throws -> Data? {
        let result = try run("/usr/bin/getfattr", ["--only-values", "-n", name, file], in: path)
        return result.status == 0 ? result.stdoutBytes : nil
    }

    /// Sets an attribute via setfattr with a hex value.
    func setAttribute(_ file: String, _ value: [UInt8], name: String = "user.x-document-source") throws {
        let hex = "0x" + value.map { String(format: "%02x", $0) }.joined()
        let result = try run("/usr/bin/setfattr", ["-n", name, "-v", hex, file], in: path)
        #expect(result.status == 0, "setfattr failed: \(result.stderr)")
    }
}

/// Makes property lists with Python's plistlib: `expression` is a Python expression for the
/// value, `format` is "BINARY" or "XML". Returns the bytes.
func plistlib(_ expression: String, format: String = "BINARY") throws -> [UInt8] {
    let script = """
        import plistlib, sys, datetime
        value = \(expression)
        sys.stdout.buffer.write(plistlib.dumps(value, fmt=plistlib.FMT_\(format), sort_keys=True))
        """
    let result = try python(script)
    #expect(result.status == 0, "python failed: \(result.stderr)")
    return [UInt8](result.stdoutBytes)
}
