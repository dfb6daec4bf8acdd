#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The walker's events and records, and with a pool the batches that carry them to the consumer
// and come back to be freed on the worker that made them (issue 35).
extension TreeWalker {
    mutating func emit(_ event: Event) {
        guard pool == nil else {
            var bytes = 0
            if case .problem(let problem) = event { bytes = problem.path.bytes.count + problem.message.utf8.count }
            post(.event(event), bytes: TreeWorkPool.cost(pathBytes: bytes))
            return
        }
        if visit(event) == .stop { stopped = true }
    }

    /// With a pool: queues a message for the consumer, sent with the next few (a folder's, or
    /// ``TreeWorkPool/batchSize``) in one go, so the consumer is woken less often.
    mutating func post(_ message: TreeWorkPool.Message, bytes: Int) {
        releaseOne()
        outbox.append(message)
        outboxBytes += bytes
        if outbox.count >= TreeWorkPool.batchSize || outboxBytes >= TreeWorkPool.batchBytes { flush() }
    }

    /// Sends the queued messages (a full batch, at a checkpoint once ``TreeWorkPool/flushInterval``
    /// has passed, and when the worker's task ends), and empties the batches the consumer gave
    /// back: what their records hold is freed here, on the thread that made it.
    mutating func flush() {
        guard let pool, !outbox.isEmpty else { return }
        var batch = spares.popLast() ?? []
        if batch.capacity < TreeWorkPool.batchSize { batch.reserveCapacity(TreeWorkPool.batchSize) }
        swap(&batch, &outbox)
        var back: [(messages: [TreeWorkPool.Message], bytes: Int)] = []
        if !pool.send(batch, bytes: outboxBytes, worker: worker, returned: &back) { stopped = true }
        outboxBytes = 0
        for returned in back { garbageCount += returned.messages.count }
        if garbage.isEmpty { swap(&garbage, &back) } else { garbage += back }
        releaseHeavy()
        lastFlush = Self.now()
    }

    /// Frees the oldest message given back (a record's blocks go to this thread's malloc cache,
    /// where the next record takes them, as at one thread; emptying a batch of 32 at once
    /// overflowed that cache); whole batches first when too many wait or they hold large
    /// messages (``releaseHeavy()``: deep paths held megabytes at 20 000 levels, waiting behind
    /// small ones).
    private mutating func releaseOne() {
        releaseHeavy()
        guard !garbage.isEmpty else { return }
        garbage[0].messages[garbageNext] = .record(())
        garbageNext += 1
        garbageCount -= 1
        if garbageNext == garbage[0].messages.count { recycle(garbage.removeFirst().messages) }
    }

    /// Frees whole batches while more than ``TreeWorkPool/batchSize`` * 2 messages wait, and
    /// batches of large messages (as soon as they are back: the next record is not made yet).
    private mutating func releaseHeavy() {
        while let first = garbage.first,
            garbageCount > 2 * TreeWorkPool.batchSize || first.bytes > 2048 * first.messages.count
        {
            garbageCount -= first.messages.count - garbageNext
            recycle(garbage.removeFirst().messages)
        }
    }

    /// Keeps an emptied batch for the next ones.
    private mutating func recycle(_ batch: __owned [TreeWorkPool.Message]) {
        garbageNext = 0
        var emptied = batch
        emptied.removeAll(keepingCapacity: true)
        if spares.count < 4 { spares.append(emptied) }
    }

    /// Frees every message given back (when the worker's part of the walk ends).
    mutating func releaseAll() {
        garbage.removeAll()
        garbageNext = 0
        garbageCount = 0
    }

    /// CLOCK_MONOTONIC in nanoseconds.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    mutating func problem(
        _ path: TreePath, _ kind: FileTree.Problem.Kind, _ message: String,
        _ error: FileAccessError? = nil
    ) {
        counts.problems += 1
        emit(.problem(.init(path: path, kind: kind, message: message, error: error)))
    }

    mutating func failed(
        _ path: TreePath, _ error: FileAccessError, entry: FileTree.Entry? = nil
    ) {
        counts.problems += 1
        emit(.problem(.init(path: path, kind: .failed, message: error.message, error: error, entry: entry)))
    }

    /// What the inspector returned for an entry (at `path`).
    mutating func inspected(_ value: any Sendable, path: TreePath) {
        counts.tagged += 1
        if pool != nil {
            post(.record(value), bytes: TreeWorkPool.cost(pathBytes: path.bytes.count))
        } else if record(value) == .stop {
            stopped = true
        }
    }

    mutating func tick() {
        sinceProgress += 1
        if sinceProgress >= FileTree.progressInterval {
            sinceProgress = 0
            if let pool {
                if !pool.progress(unreportedCounts()) { stopped = true }
            } else {
                emit(.progress(counts))
            }
        }
    }

    /// The counts since the last call (or the start), for the pool's totals.
    mutating func unreportedCounts() -> FileTree.Counts {
        defer { reported = counts }
        return counts.subtracting(reported)
    }
}
