#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// An open folder handed from one worker to another; its own attribute has been examined.
struct TreeTask: @unchecked Sendable {
    let descriptor: Int32
    let path: TreePath
    let info: stat
    let ancestors: TreeAncestors?
}

/// What a multi-threaded walk shares (``FileTree/jobs``): the folders handed from a
/// busy worker to an idle one, and the bounded channel of events to the consumer (the thread
/// that called ``FileTree/walk(inspecting:_:)``).
///
/// Memory stays bounded: each worker walks depth first on its own stack, and hands over a
/// folder (its shallowest pending one: the most work) only when another worker waits for one,
/// so at most `jobs` open folders wait in ``tasks``; the channel holds at most
/// ``channelCapacity`` events and about ``channelBytes`` bytes of them, and a worker that
/// finds it full waits for the consumer.
///
/// A worker's messages travel as one batch (an array handed over whole), and the consumer
/// gives each batch back once it is done with it: the worker empties it, so that what its
/// records hold is freed on the thread that made it (freed on the consumer, every block went
/// back to the worker's malloc arena under that arena's lock, and the worker's own cache never
/// refilled: 5 k instructions a record, issue 35), and reuses the array for its next batch.
final class TreeWorkPool: @unchecked Sendable {
    enum Message {
        case event(FileTree.Event)
        case archive(TreePath)
        /// What an inspector returned (``FileTree/walk(inspecting:_:)``).
        case record(any Sendable)
    }

    /// What the consumer takes from the channel.
    enum Received {
        /// A worker's messages, in order; give them back (``giveBack(_:worker:)``) when done.
        case batch(messages: [Message], worker: Int, bytes: Int)
        /// The counts so far (at most one waits at a time).
        case progress(FileTree.Counts)
    }

    private struct Batch {
        var messages: [Message]
        let worker: Int
        let bytes: Int
    }

    static let channelCapacity = 256
    /// About how many bytes the messages in the channel may hold (their paths, mostly: a record
    /// 20 000 folders deep holds a path of 40 KB); one batch always fits.
    static let channelBytes = 64 * 1024
    /// Messages a worker gathers before sending them (it also sends at each folder's end).
    static let batchSize = 32
    /// Bytes (``cost(_:)``) a worker gathers before sending them.
    static let batchBytes = 16 * 1024
    /// How long (ns) a worker keeps fewer than ``batchSize`` messages before a checkpoint sends
    /// them: records still reach the output within a few hundredths of a second.
    static let flushInterval: UInt64 = 10_000_000

    let jobs: Int
    private let lock = Lock()
    /// Signalled when a task arrives, and broadcast when the walk ends or stops.
    private let taskReady: Lock<Void>.Condition
    /// Signalled when the channel gets a message or a worker ends.
    private let messageReady: Lock<Void>.Condition
    /// Signalled when the consumer takes a message, broadcast on stop.
    private let spaceFree: Lock<Void>.Condition

    // Guarded by `lock`:
    private var tasks: [TreeTask] = []
    private var waiting = 0
    private var busy: Int
    private var exited = 0
    private var stopped = false
    private var ring: [Batch?]
    private var head = 0
    private var count = 0
    private var queuedMessages = 0
    private var queuedBytes = 0
    /// Per worker, the batches the consumer is done with, for the worker to empty.
    private var returned: [[(messages: [Message], bytes: Int)]]
    private var finished: [Bool]
    /// Every worker's counts so far (added at progress ticks and when a worker ends).
    private(set) var totals = FileTree.Counts()
    /// Whether a progress message is in the channel (one at a time is enough).
    private var progressQueued = false

    init(jobs: Int) {
        self.jobs = jobs
        busy = jobs
        ring = Array(repeating: nil, count: Self.channelCapacity)
        returned = Array(repeating: [], count: jobs)
        finished = Array(repeating: false, count: jobs)
        taskReady = lock.makeCondition()
        messageReady = lock.makeCondition()
        spaceFree = lock.makeCondition()
    }

    deinit {
        for task in tasks { SystemCall.close(task.descriptor) }
    }

    private func locked<R>(_ body: () -> R) -> R {
        lock.withLock(body)
    }

    // MARK: - Workers

    /// Whether the walk was stopped, and whether a worker waits for a folder (then the caller
    /// hands one over with ``share(_:)``).
    func checkpoint() -> (stop: Bool, share: Bool) {
        locked { (stopped, !stopped && waiting > tasks.count) }
    }

    /// Hands an open folder to a waiting worker (closed when the walk has stopped).
    func share(_ task: TreeTask) {
        let taken: Bool = locked {
            guard !stopped else { return false }
            tasks.append(task)
            taskReady.signal()
            return true
        }
        if !taken { SystemCall.close(task.descriptor) }
    }

    /// The next folder for a worker that has finished its walk; nil when every worker is idle
    /// with nothing left (the walk is over) or the walk was stopped.
    func nextTask() -> TreeTask? {
        locked {
            busy -= 1
            while true {
                if stopped { return nil }
                if !tasks.isEmpty {
                    busy += 1
                    return tasks.removeFirst()
                }
                if busy == 0 {
                    taskReady.broadcast()
                    return nil
                }
                waiting += 1
                taskReady.wait()
                waiting -= 1
            }
        }
    }

    /// About how much memory a message holds, for ``channelBytes``: its path and a little more.
    static func cost(pathBytes: Int) -> Int { pathBytes + 256 }

    /// Puts a worker's messages in the channel as one batch, waiting while it is full, and
    /// hands back the batches the consumer is done with (to be emptied on the worker's thread);
    /// false when the walk was stopped (the messages are dropped).
    func send(
        _ messages: __owned [Message], bytes: Int, worker: Int, returned back: inout [(messages: [Message], bytes: Int)]
    ) -> Bool {
        locked {
            while count > 0 && !stopped
                && (count == ring.count || queuedMessages + messages.count > Self.channelCapacity
                    || queuedBytes + bytes > Self.channelBytes)
            {
                messageReady.signal()
                spaceFree.wait()
            }
            swap(&back, &returned[worker])
            guard !stopped else { return false }
            ring[(head + count) % ring.count] = Batch(messages: messages, worker: worker, bytes: bytes)
            count += 1
            queuedMessages += messages.count
            queuedBytes += bytes
            messageReady.signal()
            return true
        }
    }

    /// Takes a batch the consumer was done with back to its worker, which empties it after its
    /// next send (nothing when that worker has ended or the walk stopped: `messages` is left
    /// to the caller, who drops it).
    func giveBack(_ messages: inout [Message], worker: Int, bytes: Int) {
        locked {
            guard !stopped && !finished[worker] else { return }
            returned[worker].append(([], bytes))
            swap(&returned[worker][returned[worker].count - 1].messages, &messages)
        }
    }

    /// Adds a worker's counts since its last call; a progress event is queued when none is
    /// waiting and there is room (progress is never worth waiting for).
    func progress(_ delta: FileTree.Counts) -> Bool {
        locked {
            totals.add(delta)
            guard !stopped else { return false }
            if !progressQueued {
                // The counts are read when the consumer takes it (the newest then).
                progressQueued = true
                messageReady.signal()
            }
            return true
        }
    }

    /// A worker ends, adding its last counts; the batches given back to it are returned, to
    /// be dropped on its thread.
    func finish(_ delta: FileTree.Counts, worker: Int) -> [(messages: [Message], bytes: Int)] {
        locked {
            totals.add(delta)
            exited += 1
            finished[worker] = true
            messageReady.signal()
            defer { returned[worker] = [] }
            return returned[worker]
        }
    }

    /// Workers that never started: they are neither busy nor running.
    func abandon(_ workers: Int) {
        locked {
            busy -= workers
            exited += workers
            if busy == 0 { taskReady.broadcast() }
            messageReady.signal()
        }
    }

    // MARK: - The consumer

    /// The next batch of messages or the progress, waiting for one; nil when every worker has
    /// ended and the channel is empty.
    func receive() -> Received? {
        locked {
            while count == 0 && !progressQueued && exited < jobs { messageReady.wait() }
            if progressQueued {
                progressQueued = false
                return .progress(totals)
            }
            guard count > 0 else { return nil }
            let batch = ring[head].take()!
            head = (head + 1) % ring.count
            count -= 1
            queuedMessages -= batch.messages.count
            queuedBytes -= batch.bytes
            spaceFree.signal()
            return .batch(messages: batch.messages, worker: batch.worker, bytes: batch.bytes)
        }
    }

    /// Ends the walk: workers stop at their next check, pending folders are closed, pending
    /// messages dropped.
    func stop() {
        let pending: [TreeTask] = locked {
            stopped = true
            let pending = tasks
            tasks = []
            count = 0
            queuedMessages = 0
            queuedBytes = 0
            ring = Array(repeating: nil, count: ring.count)
            taskReady.broadcast()
            spaceFree.broadcast()
            return pending
        }
        for task in pending { SystemCall.close(task.descriptor) }
    }

    // MARK: - Running

    /// Walks `root` with ``jobs`` worker threads, calling `visit` and `archive` on the calling
    /// thread for what they find, in the order they send it.
    static func walk(
        root: TreePath, jobs: Int, archive: ((TreePath) -> FileTree.Decision)?,
        inspection: (TreeInspection, (any Sendable) -> FileTree.Decision),
        visit: @escaping (FileTree.Event) -> FileTree.Decision
    ) -> (counts: FileTree.Counts, stopped: Bool) {
        let jobs = min(jobs, FileTree.maximumJobs)
        let pool = TreeWorkPool(jobs: jobs)
        let scanArchives = archive != nil
        var threads: [pthread_t] = []
        for index in 0..<jobs {
            let work = WorkerStart(
                pool: pool, index: index, root: index == 0 ? root : nil, archives: scanArchives, inspection: inspection.0)
            let context = Unmanaged.passRetained(work).toOpaque()
            #if canImport(Glibc)
            var thread = pthread_t()
            #else
            var thread: pthread_t?
            #endif
            let result = pthread_create(&thread, nil, { context in
                #if canImport(Glibc)
                let work = Unmanaged<WorkerStart>.fromOpaque(context!).takeRetainedValue()
                #else
                let work = Unmanaged<WorkerStart>.fromOpaque(context).takeRetainedValue()
                #endif
                work.run()
                return nil
            }, context)
            if result != 0 {
                // No thread: the work is shared by those already started (the first one runs
                // here, on this thread, if it cannot start). The rest are not tried: a system
                // out of threads or memory refuses them too, one failed call each (issue 24).
                Unmanaged<WorkerStart>.fromOpaque(context).release()
                if index == 0 {
                    pool.stop()
                    for thread in threads { pthread_join(thread, nil) }
                    var walker = TreeWalker(visit: visit, inspection: inspection.0, record: inspection.1)
                    walker.archive = archive
                    walker.walk(root: root)
                    return (walker.counts, walker.stopped)
                }
                pool.abandon(jobs - index)
                break
            }
            #if canImport(Glibc)
            threads.append(thread)
            #else
            threads.append(thread!)
            #endif
        }
        var stopped = false
        receiving: while let received = pool.receive() {
            switch received {
            case .progress(let counts):
                if visit(.progress(counts)) == .stop {
                    stopped = true
                    pool.stop()
                    break receiving
                }
            case .batch(var messages, let worker, let bytes):
                for index in messages.indices {
                    let decision: FileTree.Decision
                    switch messages[index] {
                    case .event(let event): decision = visit(event)
                    case .archive(let path): decision = archive?(path) ?? .proceed
                    case .record(let record): decision = inspection.1(record)
                    }
                    if decision == .stop {
                        stopped = true
                        pool.stop()
                        break receiving
                    }
                }
                pool.giveBack(&messages, worker: worker, bytes: bytes)
            }
        }
        for thread in threads { pthread_join(thread, nil) }
        return (pool.totals, stopped)
    }
}

/// What one worker thread is given.
private final class WorkerStart {
    let pool: TreeWorkPool
    let index: Int
    let root: TreePath?
    let archives: Bool
    let inspection: TreeInspection

    init(pool: TreeWorkPool, index: Int, root: TreePath?, archives: Bool, inspection: TreeInspection) {
        self.pool = pool
        self.index = index
        self.root = root
        self.archives = archives
        self.inspection = inspection
    }

    func run() {
        // Events go to the pool's channel (TreeWalker.post), never to these closures.
        var walker = TreeWalker(visit: { _ in .proceed }, inspection: inspection, record: { _ in .proceed })
        walker.pool = pool
        walker.worker = index
        // The descriptors of a walk stay a few dozen however many workers share it.
        walker.window = max(4, 32 / pool.jobs)
        if archives { walker.archive = { _ in .proceed } }
        if let root { walker.walk(root: root) }
        walker.flush()
        walker.releaseAll()
        while !walker.stopped, let task = pool.nextTask() {
            walker.run(task)
            walker.flush()
            walker.releaseAll()
        }
        let left = pool.finish(walker.unreportedCounts(), worker: index)
        _ = left  // dropped here, on this worker's thread
    }
}

extension FileTree.Counts {
    mutating func add(_ other: Self) {
        files += other.files
        folders += other.folders
        tagged += other.tagged
        problems += other.problems
    }

    func subtracting(_ other: Self) -> Self {
        var result = self
        result.files -= other.files
        result.folders -= other.folders
        result.tagged -= other.tagged
        result.problems -= other.problems
        return result
    }
}
