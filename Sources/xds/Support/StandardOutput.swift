#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDSSystem

/// Standard output written with write(2), so a failed write is seen (Swift's `print` buffers
/// and drops errors, so `xds show f > /dev/full` used to exit 0). Outside a walk, one call per
/// result, so each file's result leaves the process as soon as it is known. Inside a walk
/// (``buffered(_:)``), records are gathered and written in batches: when 32 KB are waiting,
/// before any line on standard error, at the end, and otherwise at the latest 25 ms after they
/// were gathered (a small thread writes what waits): SPEC §5's "as they are found (at the
/// latest when a folder is done, and every 50 ms)". One write(2) a record was a tenth of
/// `show -r --json`'s CPU on a fully labelled tree (issue 35).
///
/// A closed pipe: with SIGPIPE at its default the process ends on the signal, quietly, as
/// other Unix tools do (`xds show … | head -1`). When SIGPIPE is ignored the write fails with
/// EPIPE, which is reported like any other failed write (SPEC §5: status 74).
enum StandardOutput {
    /// Writes `text` to standard output in full (or gathers it, in a walk), or throws the
    /// errno of the failed write (in a walk: of the first failed batch).
    static func write(_ text: String) throws(Errno) {
        if let batch = Batch.current {
            try batch.append(text)
        } else {
            try SystemCall.writeAll(1, Array(text.utf8))
        }
    }

    /// Writes the bytes `body` appends (to the walk's batch itself, when in a walk: no copy),
    /// or throws as ``write(_:)``.
    static func write(_ body: (inout [UInt8]) -> Void) throws(Errno) {
        if let batch = Batch.current {
            try batch.append(body)
        } else {
            var bytes: [UInt8] = []
            body(&bytes)
            try SystemCall.writeAll(1, bytes)
        }
    }

    /// Writes what a walk has gathered so far (before a line on standard error).
    static func flush() {
        guard let batch = Batch.current else { return }
        try? batch.flush()
    }

    /// Runs `body` (a walk) with its records gathered and written in batches; what is left is
    /// written at the end, and a failed last write is reported.
    static func buffered<R>(_ diagnostics: inout Diagnostics, _ body: (inout Diagnostics) -> R) -> R {
        guard Batch.current == nil else { return body(&diagnostics) }
        let batch = Batch()
        Batch.current = batch
        batch.startFlusher()
        let result = body(&diagnostics)
        batch.stopFlusher()
        Batch.current = nil
        do throws(Errno) { try batch.flush() } catch {
            if !batch.reported { diagnostics.failedOutput(error) }
        }
        return result
    }

    /// The bytes waiting to be written, under one mutex shared by the walk's consumer (which
    /// appends) and the flusher thread (which writes what waits every 25 ms).
    final class Batch: @unchecked Sendable {
        nonisolated(unsafe) static var current: Batch?
        /// The size that is written at once.
        static let size = 32 * 1024
        private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
        private let condition: UnsafeMutablePointer<pthread_cond_t> = .allocate(capacity: 1)
        private var bytes: [UInt8] = []
        private var failure: Errno?
        private var stopping = false
        private var thread: pthread_t?
        /// Whether the failure was handed to a caller already (reported by it).
        private(set) var reported = false

        init() {
            pthread_mutex_init(mutex, nil)
            pthread_cond_init(condition, nil)
            bytes.reserveCapacity(Self.size + 4096)
        }

        deinit {
            pthread_cond_destroy(condition)
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
            condition.deallocate()
        }

        func append(_ text: String) throws(Errno) {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            if let failure {
                reported = true
                throw failure
            }
            var text = text
            text.withUTF8 { bytes.append(contentsOf: $0) }
            try writeIfFull()
        }

        func append(_ body: (inout [UInt8]) -> Void) throws(Errno) {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            if let failure {
                reported = true
                throw failure
            }
            body(&bytes)
            try writeIfFull()
        }

        /// Writes what waits once it is ``size`` bytes or more (the mutex held).
        private func writeIfFull() throws(Errno) {
            if bytes.count >= Self.size {
                do throws(Errno) { try writeLocked() } catch {
                    reported = true
                    throw error
                }
            }
        }

        func flush() throws(Errno) {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            if let failure { throw failure }
            try writeLocked()
        }

        /// Writes what waits (the mutex held); a failure is kept for the next append.
        private func writeLocked() throws(Errno) {
            guard !bytes.isEmpty else { return }
            do throws(Errno) {
                try SystemCall.writeAll(1, bytes)
                bytes.removeAll(keepingCapacity: true)
            } catch {
                failure = error
                throw error
            }
        }

        /// The flusher: every 25 ms, what waits is written.
        func startFlusher() {
            let context = Unmanaged.passRetained(self).toOpaque()
            var thread = pthread_t()
            let result = pthread_create(&thread, nil, { context in
                let batch = Unmanaged<Batch>.fromOpaque(context!).takeRetainedValue()
                batch.runFlusher()
                return nil
            }, context)
            if result == 0 { self.thread = thread } else { Unmanaged<Batch>.fromOpaque(context).release() }
        }

        private func runFlusher() {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            while !stopping {
                var now = timespec()
                clock_gettime(CLOCK_REALTIME, &now)
                var deadline = now
                deadline.tv_nsec += 25_000_000
                if deadline.tv_nsec >= 1_000_000_000 {
                    deadline.tv_sec += 1
                    deadline.tv_nsec -= 1_000_000_000
                }
                pthread_cond_timedwait(condition, mutex, &deadline)
                if failure == nil { try? writeLocked() }
            }
        }

        func stopFlusher() {
            guard let thread else { return }
            pthread_mutex_lock(mutex)
            stopping = true
            pthread_cond_signal(condition)
            pthread_mutex_unlock(mutex)
            pthread_join(thread, nil)
            self.thread = nil
        }
    }
}

extension Diagnostics {
    /// Reports a failed write to standard output: `xds: standard output: <words>`, status 74.
    mutating func failedOutput(_ error: Errno) {
        fail("standard output", error.words, status: .ioError)
    }

    /// Writes the bytes `body` appends, as ``write(_:)-(String)`` writes text.
    mutating func write(_ body: (inout [UInt8]) -> Void) -> Bool {
        do throws(Errno) {
            try StandardOutput.write(body)
            return true
        } catch {
            failedOutput(error)
            return false
        }
    }

    /// Writes `text` to standard output in one call; false (reported) when that failed.
    mutating func write(_ text: String) -> Bool {
        do throws(Errno) {
            try StandardOutput.write(text)
            return true
        } catch {
            failedOutput(error)
            return false
        }
    }
}
