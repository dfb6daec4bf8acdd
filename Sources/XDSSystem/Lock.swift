#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The project's one lock: a pthread mutex guarding a value of type `State` (`Void` when the
/// guarded state lives beside it), with conditions to wait on.
///
/// Why not `Synchronization.Mutex`: it needs macOS 15 and the package supports macOS 13; why not
/// `NSLock`: Foundation. The mutex is allocated once and never moves (a pthread mutex must not).
///
/// ```swift
/// let seen = Lock(Set<String>())
/// let isNew = seen.withLock { $0.insert(name).inserted }
/// ```
package final class Lock<State> {
    fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
    private var state: State

    /// A lock guarding `state`.
    package init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held and the guarded state lent to it.
    package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// A condition waited on under this lock.
    package func makeCondition() -> Condition { Condition(self) }

    /// A condition variable tied to one ``Lock``: ``wait()`` must be called inside that lock's
    /// `withLock` (it releases the lock while waiting and holds it again on return, and may
    /// return spuriously, so wait in a loop); ``signal()`` and ``broadcast()`` may be called anywhere.
    package final class Condition: @unchecked Sendable {
        private let condition: UnsafeMutablePointer<pthread_cond_t> = .allocate(capacity: 1)
        /// Held so that the lock's mutex lives as long as the condition.
        private let lock: Lock

        fileprivate init(_ lock: Lock) {
            self.lock = lock
            pthread_cond_init(condition, nil)
        }

        deinit {
            pthread_cond_destroy(condition)
            condition.deallocate()
        }

        /// Waits until signalled (call with the lock held).
        package func wait() { pthread_cond_wait(condition, lock.mutex) }
        /// Wakes one waiter.
        package func signal() { pthread_cond_signal(condition) }
        /// Wakes every waiter.
        package func broadcast() { pthread_cond_broadcast(condition) }
    }
}

// The state is only reached with the mutex held; it must be Sendable itself because
// `withLock` hands it to whichever thread holds the lock.
extension Lock: @unchecked Sendable where State: Sendable {}

extension Lock where State == Void {
    /// A lock guarding state kept elsewhere (properties documented as guarded by it).
    package convenience init() { self.init(()) }

    /// Runs `body` with the lock held.
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        try withLock { (_: inout Void) in try body() }
    }
}
