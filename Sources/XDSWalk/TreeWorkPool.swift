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
/// ``channelCapacity`` events, and a worker that finds it full waits for the consumer.
final class TreeWorkPool: @unchecked Sendable {
    enum Message {
        case event(FileTree.Event)
        case archive(TreePath)
        /// What an inspector returned (``FileTree/walk(inspecting:_:)``).
        case record(any Sendable)
    }

    static let channelCapacity = 256
    /// Messages a worker gathers before sending them (it also sends at each folder's end).
    static let batchSize = 32
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
    private var ring: [Message?]
    private var head = 0
    private var count = 0
    /// Every worker's counts so far (added at progress ticks and when a worker ends).
    private(set) var totals = FileTree.Counts()
    /// Whether a progress message is in the channel (one at a time is enough).
    private var progressQueued = false

    init(jobs: Int) {
        self.jobs = jobs
        busy = jobs
        ring = Array(repeating: nil, count: Self.channelCapacity)
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

    /// Puts messages in the channel, in order, waiting while it is full; false when the walk
    /// was stopped (the rest are dropped).
    func send(_ messages: [Message]) -> Bool {
        locked {
            for message in messages {
                while count == ring.count && !stopped {
                    messageReady.signal()
                    spaceFree.wait()
                }
                guard !stopped else { return false }
                ring[(head + count) % ring.count] = message
                count += 1
            }
            messageReady.signal()
            return true
        }
    }

    /// Adds a worker's counts since its last call; a progress event is queued when none is
    /// waiting and there is room (progress is never worth waiting for).
    func progress(_ delta: FileTree.Counts) -> Bool {
        locked {
            totals.add(delta)
            guard !stopped else { return false }
            if !progressQueued && count < ring.count {
                // The counts are read when the consumer takes the message (the newest then).
                ring[(head + count) % ring.count] = .event(.progress(FileTree.Counts()))
                count += 1
                progressQueued = true
                messageReady.signal()
            }
            return true
        }
    }

    /// A worker ends, adding its last counts.
    func finish(_ delta: FileTree.Counts) {
        locked {
            totals.add(delta)
            exited += 1
            messageReady.signal()
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

    /// The next message, waiting for one; nil when every worker has ended and the channel is
    /// empty.
    func receive() -> Message? {
        locked {
            while count == 0 && exited < jobs { messageReady.wait() }
            guard count > 0 else { return nil }
            var message = ring[head]!
            ring[head] = nil
            head = (head + 1) % ring.count
            count -= 1
            spaceFree.signal()
            if case .event(.progress) = message {
                progressQueued = false
                message = .event(.progress(totals))
            }
            return message
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
        root: String, jobs: Int, archive: ((TreePath) -> FileTree.Decision)?,
        inspection: (TreeInspection, (any Sendable) -> FileTree.Decision),
        visit: @escaping (FileTree.Event) -> FileTree.Decision
    ) -> (counts: FileTree.Counts, stopped: Bool) {
        let jobs = min(jobs, FileTree.maximumJobs)
        let pool = TreeWorkPool(jobs: jobs)
        let scanArchives = archive != nil
        var threads: [pthread_t] = []
        for index in 0..<jobs {
            let work = WorkerStart(
                pool: pool, root: index == 0 ? root : nil, archives: scanArchives, inspection: inspection.0)
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
        while let message = pool.receive() {
            let decision: FileTree.Decision
            switch message {
            case .event(let event): decision = visit(event)
            case .archive(let path): decision = archive?(path) ?? .proceed
            case .record(let record): decision = inspection.1(record)
            }
            if decision == .stop {
                stopped = true
                pool.stop()
                break
            }
        }
        for thread in threads { pthread_join(thread, nil) }
        return (pool.totals, stopped)
    }
}

/// What one worker thread is given.
private final class WorkerStart {
    let pool: TreeWorkPool
    let root: String?
    let archives: Bool
    let inspection: TreeInspection

    init(pool: TreeWorkPool, root: String?, archives: Bool, inspection: TreeInspection) {
        self.pool = pool
        self.root = root
        self.archives = archives
        self.inspection = inspection
    }

    func run() {
        // Events go to the pool's channel (TreeWalker.post), never to these closures.
        var walker = TreeWalker(visit: { _ in .proceed }, inspection: inspection, record: { _ in .proceed })
        walker.pool = pool
        // The descriptors of a walk stay a few dozen however many workers share it.
        walker.window = max(4, 32 / pool.jobs)
        if archives { walker.archive = { _ in .proceed } }
        if let root { walker.walk(root: root) }
        walker.flush()
        while !walker.stopped, let task = pool.nextTask() {
            walker.run(task)
            walker.flush()
        }
        pool.finish(walker.unreportedCounts())
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
