#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes the one temporary output file of `xds mask` when the process is interrupted
/// (SIGINT, SIGTERM, SIGHUP) and then dies of the same signal, as it would have without the
/// handler. The path lives in a buffer allocated once, before any handler is installed, so
/// the handler only reads memory and calls `unlink`, `signal` and `raise` (all async-signal-safe).
enum TemporaryFileCleanup {
    /// PATH_MAX bytes plus the terminating NUL; an empty string means "no file to remove".
    private static let capacity = 4097
    nonisolated(unsafe) private static let path: UnsafeMutablePointer<CChar> = {
        let p = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        p.initialize(repeating: 0, count: capacity)
        return p
    }()
    nonisolated(unsafe) private static var installed = false
    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Records `temp` as the file to remove on a signal (installing the handlers the first
    /// time). Signals are blocked while the buffer changes, so the handler never sees half a path.
    static func protect(_ temp: String) {
        let bytes = Array(temp.utf8)
        guard bytes.count < capacity else { return }  // mkstemp could not have made it
        withSignalsBlocked {
            _ = path  // allocate before any handler can run
            for (i, b) in bytes.enumerated() { path[i] = CChar(bitPattern: b) }
            path[bytes.count] = 0
            if !installed {
                installed = true
                for s in signals { signal(s, handler) }
            }
        }
    }

    /// Forgets the file (renamed into place or already removed).
    static func release() {
        withSignalsBlocked { path[0] = 0 }
    }

    /// Runs `body` with SIGINT, SIGTERM and SIGHUP held back; a signal that arrives meanwhile
    /// is delivered afterwards.
    static func withSignalsBlocked<T>(_ body: () throws -> T) rethrows -> T {
        var set = sigset_t(), old = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        pthread_sigmask(SIG_BLOCK, &set, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        return try body()
    }

    private static let handler: @convention(c) (Int32) -> Void = { signal_number in
        if TemporaryFileCleanup.path[0] != 0 { unlink(TemporaryFileCleanup.path) }
        signal(signal_number, SIG_DFL)
        raise(signal_number)
    }
}
