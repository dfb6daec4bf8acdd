import Foundation

/// What one run of a program gave back.
public struct Run: CustomStringConvertible, Sendable {
    /// The exit status (or the signal number when the program was killed).
    public var status: Int32
    /// Standard output as UTF-8 text (invalid bytes replaced).
    public var stdout: String
    /// Standard error as UTF-8 text (invalid bytes replaced).
    public var stderr: String
    /// Standard output exactly as written.
    public var stdoutBytes: Data

    public init(status: Int32, stdout: String, stderr: String, stdoutBytes: Data) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.stdoutBytes = stdoutBytes
    }

    public var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }

    /// Standard error split into lines.
    public var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }

    /// Standard output parsed as JSON Lines, one object a line.
    public func jsonLines() throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            let value = try JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed])
            guard let object = value as? [String: Any] else { throw NotAnObject(line: String(line)) }
            return object
        }
    }

    /// A JSON line that is valid JSON but not an object.
    public struct NotAnObject: Error, CustomStringConvertible {
        public let line: String
        public var description: String { "not a JSON object: \(line)" }
    }
}

/// The one way the tests run a program.
public enum ProcessRunner {
    /// Runs `executable` (a path; use `/usr/bin/env` to search PATH) with `arguments` in `folder`,
    /// feeding `input` on standard input (none: /dev/null), with `environment` added to (or
    /// replacing names in) the test process's own. Output goes to files rather than pipes, so
    /// no size of output can block the child.
    public static func run(_ executable: String, _ arguments: [String], in folder: String? = nil,
                           input: Data? = nil, environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let scratch = try ScratchFolder.make(prefix: "xds-run")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out"), err = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: out), errHandle = try FileHandle(forWritingTo: err)
        defer { try? outHandle.close(); try? errHandle.close() }
        process.standardOutput = outHandle
        process.standardError = errHandle
        var inHandle: FileHandle?
        if let input {
            let inFile = scratch.appendingPathComponent("in")
            try input.write(to: inFile)
            inHandle = try FileHandle(forReadingFrom: inFile)
            process.standardInput = inHandle
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        defer { try? inHandle?.close() }
        try spawnUnblocked(process)
        process.waitUntilExit()
        let stdout = try Data(contentsOf: out)
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self), stdoutBytes: stdout)
    }

    /// Runs a program found on PATH (through /usr/bin/env).
    public static func runOnPath(_ arguments: [String], in folder: String? = nil, input: Data? = nil,
                                 environment: [String: String] = [:]) throws -> Run {
        try run("/usr/bin/env", arguments, in: folder, input: input, environment: environment)
    }
}

/// Starts `process` with no signal blocked. The child inherits the signal mask of the thread
/// that spawns it, and the test runner's threads (libdispatch workers) block nearly every
/// signal: a `sh -c '… kill $pid; wait $pid'` then never sees SIGCHLD and waits forever, and a
/// program that relies on SIGINT or SIGTERM reaching it does not get them.
public func spawnUnblocked(_ process: Process) throws {
    var none = sigset_t(), old = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, &old)
    defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
    try process.run()
}
