import Foundation

/// What one run of a program gave back: the one result type of the tests.
public struct Run: CustomStringConvertible, Sendable {
    /// The exit status (or the signal number when the program was killed).
    public var status: Int32
    /// Standard output as UTF-8 text (invalid bytes replaced).
    public var stdout: String
    /// Standard error as UTF-8 text (invalid bytes replaced).
    public var stderr: String
    /// Standard output exactly as written.
    public var stdoutBytes: Data
    /// True when a signal ended the program (``status`` is then the signal's number).
    public var killedBySignal: Bool
    /// True when the runner killed the program because it outlived its time limit.
    public var timedOut: Bool

    public init(status: Int32, stdout: String, stderr: String, stdoutBytes: Data,
                killedBySignal: Bool = false, timedOut: Bool = false) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.stdoutBytes = stdoutBytes
        self.killedBySignal = killedBySignal
        self.timedOut = timedOut
    }

    public var description: String {
        let how = timedOut ? " (killed: over its time limit)" : killedBySignal ? " (signal)" : ""
        return "exit \(status)\(how)\nstdout: \(stdout)\nstderr: \(stderr)"
    }

    /// Standard output as bytes.
    public var output: [UInt8] { [UInt8](stdoutBytes) }

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

/// The one way the tests run a program: ``run(_:_:in:input:environment:terminal:defaultSignals:timeLimit:)``
/// to run it to its end, ``start(_:_:in:input:environment:standardOutput:defaultSignals:timeLimit:)``
/// to do something while it runs (read its output as it comes, signal it) and then ``Running/wait()``.
public enum ProcessRunner {
    /// Where a started program's standard output goes.
    public enum Output {
        /// A file, read back by ``Running/wait()`` (no size of output can block the child).
        case capture
        /// A pipe the test reads from while the program runs (``Running/output``); what is left
        /// unread when ``Running/wait()`` is called ends up in the result.
        case pipe
        /// An open file given by the test (for example /dev/full); the result's output is empty.
        case file(FileHandle)
        /// /dev/null.
        case discard
    }

    /// Runs `executable` (a path; use ``runOnPath(_:in:input:environment:terminal:defaultSignals:timeLimit:)``
    /// to search PATH) with `arguments` in `folder` and waits for it to end.
    /// - Parameters:
    ///   - input: fed on standard input (none: /dev/null).
    ///   - environment: added to (or replacing names in) the test process's own.
    ///   - terminal: standard output on a pseudo-terminal (Tests/Support/run_in_pty.py); the
    ///     result's output is exactly what the program wrote there.
    ///   - defaultSignals: the program starts with SIGINT, SIGTERM, SIGHUP, SIGCHLD and SIGPIPE
    ///     at their defaults, as a shell leaves them (through a small python3 exec).
    ///   - timeLimit: seconds after which the program is killed (SIGKILL) and the result says
    ///     ``Run/timedOut``; nil: no limit.
    public static func run(_ executable: String, _ arguments: [String], in folder: String? = nil,
                           input: Data? = nil, environment: [String: String] = [:], terminal: Bool = false,
                           defaultSignals: Bool = false, timeLimit: Double? = nil) async throws -> Run {
        var executable = executable, arguments = arguments
        if terminal {
            arguments = ["python3", Repository.url("Tests/Support/run_in_pty.py").path, executable] + arguments
            executable = "/usr/bin/env"
        }
        return try await start(executable, arguments, in: folder, input: input, environment: environment,
                               defaultSignals: defaultSignals, timeLimit: timeLimit).wait()
    }

    /// ``run(_:_:in:input:environment:terminal:defaultSignals:timeLimit:)`` on the calling
    /// thread, blocking it: only for XDSTestSupport's own code that already runs off the pool
    /// (inside ``offPool(_:)`` or on a thread of its own), never public.
    static func runBlocking(_ executable: String, _ arguments: [String], in folder: String? = nil,
                            environment: [String: String] = [:], timeLimit: Double? = nil) throws -> Run {
        try start(executable, arguments, in: folder, environment: environment, timeLimit: timeLimit).waitBlocking()
    }

    /// Runs a program found on PATH (through /usr/bin/env).
    public static func runOnPath(_ arguments: [String], in folder: String? = nil, input: Data? = nil,
                                 environment: [String: String] = [:], terminal: Bool = false,
                                 defaultSignals: Bool = false, timeLimit: Double? = nil) async throws -> Run {
        try await run("/usr/bin/env", arguments, in: folder, input: input, environment: environment,
                terminal: terminal, defaultSignals: defaultSignals, timeLimit: timeLimit)
    }

    /// The python3 program that resets the signals ``run(_:_:in:input:environment:terminal:defaultSignals:timeLimit:)``
    /// names and then becomes `sys.argv[1:]`.
    public static let defaultSignalsScript = """
        import os, signal, sys
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGPIPE):
            signal.signal(s, signal.SIG_DFL)
        os.execv(sys.argv[1], sys.argv[1:])
        """

    /// Starts `executable` and returns at once; see ``run(_:_:in:input:environment:terminal:defaultSignals:timeLimit:)``
    /// for the parameters. The caller must ``Running/wait()``. With `holdInput`, standard input
    /// is a pipe the runner holds open until ``Running/closeInput()`` or ``Running/wait()`` (a
    /// server that ends at end of input then never outlives the tests).
    public static func start(_ executable: String, _ arguments: [String], in folder: String? = nil,
                             input: Data? = nil, holdInput: Bool = false, environment: [String: String] = [:],
                             standardOutput: Output = .capture, defaultSignals: Bool = false,
                             timeLimit: Double? = nil) throws -> Running {
        let process = Process()
        if defaultSignals {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", defaultSignalsScript, executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let scratch = try ScratchFolder.make(prefix: "xds-run")
        let running = Running(process: process, scratch: scratch)
        do {
            let err = scratch.appendingPathComponent("err")
            _ = FileManager.default.createFile(atPath: err.path, contents: nil)
            let errHandle = try FileHandle(forWritingTo: err)
            running.handles.append(errHandle)
            process.standardError = errHandle
            switch standardOutput {
            case .capture:
                let out = scratch.appendingPathComponent("out")
                _ = FileManager.default.createFile(atPath: out.path, contents: nil)
                let outHandle = try FileHandle(forWritingTo: out)
                running.handles.append(outHandle)
                running.outputFile = out
                process.standardOutput = outHandle
            case .pipe:
                let pipe = Pipe()
                running.pipe = pipe
                process.standardOutput = pipe
            case .file(let handle):
                process.standardOutput = handle
            case .discard:
                process.standardOutput = FileHandle.nullDevice
            }
            if holdInput {
                let pipe = Pipe()
                running.inputPipe = pipe
                process.standardInput = pipe
            } else if let input {
                let inFile = scratch.appendingPathComponent("in")
                try input.write(to: inFile)
                let inHandle = try FileHandle(forReadingFrom: inFile)
                running.handles.append(inHandle)
                process.standardInput = inHandle
            } else {
                process.standardInput = FileHandle.nullDevice
            }
            try spawnUnblocked(process)
        } catch {
            running.cleanUp()
            throw error
        }
        // The parent's copies of the child's ends are not needed any more.
        try? running.pipe?.fileHandleForWriting.close()
        try? running.inputPipe?.fileHandleForReading.close()
        if let timeLimit {
            let watchdog = DispatchWorkItem { [weak running] in running?.expire() }
            running.watchdog = watchdog
            DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit, execute: watchdog)
        }
        return running
    }

    /// A program started by ``ProcessRunner/start(_:_:in:input:environment:standardOutput:defaultSignals:timeLimit:)``.
    public final class Running: @unchecked Sendable {
        let process: Process
        let scratch: URL
        var handles: [FileHandle] = []
        var outputFile: URL?
        var pipe: Pipe?
        var inputPipe: Pipe?
        var watchdog: DispatchWorkItem?
        private let lock = NSLock()
        private var expired = false
        private var finished = false

        init(process: Process, scratch: URL) {
            self.process = process
            self.scratch = scratch
        }

        deinit {
            if !finished {
                // Never waited for (a test that threw first): killed, and reaped on a thread of
                // its own, as ``wait()`` does, so that no deinit holds a thread of the pool.
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                let process = self.process, handles = self.handles, pipe = self.pipe, scratch = self.scratch
                Thread.detachNewThread {
                    _ = Running.blockingWait(process, pipe: nil)
                    Running.cleanUp(handles: handles, pipe: pipe, scratch: scratch)
                }
            }
        }

        /// The program's process id.
        public var processIdentifier: Int32 { process.processIdentifier }

        /// The read end of standard output, with ``ProcessRunner/Output/pipe``.
        public var output: FileHandle? { pipe?.fileHandleForReading }

        /// Reads standard output (``ProcessRunner/Output/pipe``) byte by byte up to the next
        /// newline, so no more is taken from the pipe than that line: the readiness line of a
        /// server, or the first result of a stream. Nil at end of output.
        public func readLine() async -> String? {
            await offPool { [self] in readLineBlocking() }
        }

        /// ``readLine()`` on the calling thread: only for the servers of XDSTestSupport, which
        /// call it off the pool (inside ``offPool(_:)``) where a lock pairs a command with its answer.
        func readLineBlocking() -> String? {
            guard let fd = pipe?.fileHandleForReading.fileDescriptor else { return nil }
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while true {
                let n = read(fd, &byte, 1)
                if n == 1 {
                    if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
                    line.append(byte)
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
                }
            }
        }

        /// Closes standard input (with `holdInput`): the program reads end of input.
        public func closeInput() {
            try? inputPipe?.fileHandleForWriting.close()
        }

        /// Writes `data` to standard input (with `holdInput`); false if it could not.
        public func send(_ data: Data) -> Bool {
            guard let handle = inputPipe?.fileHandleForWriting else { return false }
            return (try? handle.write(contentsOf: data)) != nil
        }

        /// Sends `signal` to the program (if it still runs).
        public func signal(_ signal: Int32) {
            if process.isRunning { kill(process.processIdentifier, signal) }
        }

        fileprivate func expire() {
            lock.lock()
            expired = true
            lock.unlock()
            signal(SIGKILL)
        }

        /// Waits for the program to end and returns what it gave back.
        /// The waiting (reading the pipe to its end, then the exit) happens on a thread of its
        /// own, never on a thread of the Swift concurrency pool: on a machine of 2 cores, two
        /// tests waiting for slow programs would otherwise leave no thread for any other test.
        public func wait() async throws -> Run {
            try await offPool { [self] in try waitBlocking() }
        }

        /// ``wait()`` on the calling thread, blocking it: only for XDSTestSupport's own code that
        /// already runs off the pool (inside ``offPool(_:)`` or on a thread of its own).
        func waitBlocking() throws -> Run {
            closeInput()
            let rest = Running.blockingWait(process, pipe: pipe)
            watchdog?.cancel()
            defer { cleanUp() }
            let stdout = try outputFile.map { try Data(contentsOf: $0) } ?? rest ?? Data()
            let stderr = try Data(contentsOf: scratch.appendingPathComponent("err"))
            lock.lock()
            let timedOut = expired
            lock.unlock()
            return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                       stderr: String(decoding: stderr, as: UTF8.self), stdoutBytes: stdout,
                       killedBySignal: process.terminationReason == .uncaughtSignal, timedOut: timedOut)
        }

        /// Closes standard input and reaps the program on a thread of its own, then runs
        /// `then` there: for a server's `stop()` (called from a deinit or a defer, which cannot
        /// wait): the caller has signalled it, and waiting for it holds no thread of the pool.
        func finishInBackground(then: @escaping @Sendable () -> Void = {}) {
            closeInput()
            Thread.detachNewThread { [self] in
                _ = try? waitBlocking()
                then()
            }
        }

        func cleanUp() {
            finished = true
            Running.cleanUp(handles: handles, pipe: pipe, scratch: scratch)
            handles = []
        }

        private static func cleanUp(handles: [FileHandle], pipe: Pipe?, scratch: URL) {
            for handle in handles { try? handle.close() }
            try? pipe?.fileHandleForReading.close()
            try? FileManager.default.removeItem(at: scratch)
        }

        /// Reads `pipe` to its end and waits for `process` to exit; blocks, so only ever called
        /// off the pool (from ``wait()`` through ``offPool(_:)``, or from a thread of its own).
        private static func blockingWait(_ process: Process, pipe: Pipe?) -> Data? {
            let rest = pipe.map { $0.fileHandleForReading.readDataToEndOfFile() }
            process.waitUntilExit()
            return rest
        }
    }
}

/// Waits up to `seconds` for `condition` to hold, checking every few milliseconds; returns
/// whether it did. For readiness signals (a file appearing, a line in a log), never as a timer.
/// Sleeps with `Task.sleep`, so the thread of the pool is free in between.
@discardableResult
public func waitUntil(seconds: Double = 60, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        if try condition() { return true }
        if Date() > deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
}

/// ``waitUntil(seconds:_:)`` on the calling thread, blocking it: only for XDSTestSupport's own
/// code that already runs off the pool.
func waitUntilBlocking(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        if condition() { return true }
        if Date() > deadline { return false }
        usleep(5_000)
    }
}

/// Runs `body` on a thread of its own (not one of the Swift concurrency pool's, which are as
/// many as the cores) and returns what it gives back: for whatever blocks while a program or
/// another thread works (waiting for a process, joining threads, a long synchronous call), so
/// that a waiting test leaves the pool to the others.
public func offPool<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
    let result: Result<T, E> = await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: Result { () throws(E) -> T in try body() })
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
    return try result.get()
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

/// Runs `body`, then `cleanup` whether `body` threw or not: a `defer` that may await (a
/// `defer` body cannot), for undoing what a program did (a mount, a chattr) before the
/// test's folder goes away.
public func withCleanup<T>(_ body: () async throws -> T, cleanup: () async -> Void) async rethrows -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}
