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
         environment: [String: String] = [:], terminal: Bool = false) async throws -> Run {
    try await ProcessRunner.run(executable, arguments, in: folder, input: input, environment: environment, terminal: terminal)
}

/// Runs `xds` with arguments.
func xds(_ arguments: String..., in folder: String? = nil) async throws -> Run {
    try await run(xdsPath, arguments, in: folder)
}

/// Runs `xds` with an argument array.
func xds(_ arguments: [String], in folder: String? = nil) async throws -> Run {
    try await run(xdsPath, arguments, in: folder)
}

/// Runs a shell command line (for setfattr/getfattr/plistutil pipelines).
func sh(_ command: String, in folder: String? = nil) async throws -> Run {
    try await run("/bin/sh", ["-c", command], in: folder)
}

/// Runs a Python 3 script; arguments are in sys.argv[1:].
func python(_ script: String, _ arguments: [String] = [], in folder: String? = nil) async throws -> Run {
    try await run("/usr/bin/env", ["python3", "-c", script] + arguments, in: folder)
}

/// Makes property lists with Python's plistlib: `expression` is a Python expression for the
/// value, `format` is "BINARY" or "XML". Returns the bytes.
func plistlib(_ expression: String, format: String = "BINARY") async throws -> [UInt8] {
    let script = """
        import plistlib, sys, datetime
        value = \(expression)
        sys.stdout.buffer.write(plistlib.dumps(value, fmt=plistlib.FMT_\(format), sort_keys=True))
        """
    let result = try await python(script)
    #expect(result.status == 0, "python failed: \(result.stderr)")
    return [UInt8](result.stdoutBytes)
}
