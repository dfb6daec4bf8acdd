#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes the temporary files being written (``TemporaryFile``'s named fallback) when the
/// process is interrupted by SIGINT, SIGTERM or SIGHUP, and then dies of the same signal, as it
/// would have without the handler (git's `tempfile.c` does the same for all its writers).
///
/// The paths live in a few buffers allocated once, before any handler is installed, so the
/// handler only reads memory and calls `unlink`, `signal` and `raise` (all async-signal-safe).
/// A handler is installed for a signal only when the signal's action is the default one: a
/// program that handles SIGINT itself keeps its handler (and its own clean-up duty).
package enum SignalCleanup {
    /// How many files can be protected at once (xds writes one at a time; a library user may
    /// write from a few threads).
    private static let slotCount = 8
    /// PATH_MAX bytes plus the terminating NUL; an empty string means "free slot".
    private static let capacity = 4097
    nonisolated(unsafe) private static let buffer: UnsafeMutablePointer<CChar> = {
        let p = UnsafeMutablePointer<CChar>.allocate(capacity: slotCount * capacity)
        p.initialize(repeating: 0, count: slotCount * capacity)
        return p
    }()
    private static let state = Lock((installed: false, used: [Bool](repeating: false, count: 8)))
    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Records `path` as a file to remove on a signal (installing the handlers the first time);
    /// returns its slot for ``release(_:)``, or nil when it cannot be recorded (too long, all
    /// slots taken). Signals are blocked while a buffer changes, so the handler never sees half a path.
    package static func protect(_ path: String) -> Int? {
        let bytes = Array(path.utf8)
        guard bytes.count < capacity else { return nil }
        return withSignalsBlocked {
            _ = buffer  // allocated before any handler can run
            return state.withLock { state -> Int? in
                guard let slot = state.used.firstIndex(of: false) else { return nil }
                state.used[slot] = true
                let start = buffer + slot * capacity
                for (i, b) in bytes.enumerated() { start[i] = CChar(bitPattern: b) }
                start[bytes.count] = 0
                if !state.installed {
                    state.installed = true
                    for s in signals { installIfDefault(s) }
                }
                return slot
            }
        }
    }

    /// Forgets the file in `slot` (renamed into place or already removed).
    package static func release(_ slot: Int) {
        withSignalsBlocked {
            state.withLock { state in
                buffer[slot * capacity] = 0
                state.used[slot] = false
            }
        }
    }

    /// Runs `body` with SIGINT, SIGTERM and SIGHUP held back on this thread; a signal that
    /// arrives meanwhile is delivered afterwards.
    package static func withSignalsBlocked<T>(_ body: () throws -> T) rethrows -> T {
        var set = sigset_t(), old = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        pthread_sigmask(SIG_BLOCK, &set, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        return try body()
    }

    private static func installIfDefault(_ signal: Int32) {
        var current = sigaction()
        guard sigaction(signal, nil, &current) == 0 else { return }
        #if canImport(Glibc)
        let isDefault = current.__sigaction_handler.sa_handler == nil
        #else
        let isDefault = current.__sigaction_u.__sa_handler == nil
        #endif
        guard isDefault else { return }
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
        #else
        action.__sigaction_u.__sa_handler = handler
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        _ = sigaction(signal, &action, nil)
    }

    private static let handler: @convention(c) (Int32) -> Void = { signalNumber in
        for slot in 0..<SignalCleanup.slotCount {
            let start = SignalCleanup.buffer + slot * SignalCleanup.capacity
            if start[0] != 0 { unlink(start) }
        }
        signal(signalNumber, SIG_DFL)
        raise(signalNumber)
    }
}
