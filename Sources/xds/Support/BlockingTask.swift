import Dispatch

/// Runs async library code from a synchronous `run()`: the command's thread waits while the
/// work runs on the concurrency pool (the main thread is not part of that pool, so this
/// cannot starve it). Only `xds icon` and `xds show --icon` need it; the other commands stay
/// synchronous and never start the concurrency runtime. Work that needs the main actor would
/// deadlock here; none does.
///
/// Why not `AsyncParsableCommand`: ArgumentParser then wants an async root, and `XDS.main` is
/// synchronous so that `xds show FILE` can skip ArgumentParser (see FileArguments.swift); and
/// `show --icon` fetches per file from inside the synchronous `Show.show` that the fast path
/// shares. Two call sites at the leaves cost less than making those paths async.
enum BlockingTask {
    /// Runs `work` and returns its result.
    static func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () async throws(E) -> T) throws(E) -> T {
        let box = ResultBox<T, E>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do throws(E) {
                box.result = .success(try await work())
            } catch {
                box.result = .failure(error)
            }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    /// The result handed from the task to the waiting thread; the semaphore orders the accesses.
    private final class ResultBox<T, E: Error>: @unchecked Sendable {
        var result: Result<T, E>?
    }
}
