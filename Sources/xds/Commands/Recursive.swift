#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import CProcessArguments
import XDSSystem
import XDocSource

/// What `show -r` and `remove -r` share: telling folders from files, the progress line,
/// and problems reported with exact (escaped) paths.
enum Recursive {
    /// Whether `root` is a folder (a symbolic link to one counts: the user named it).
    static func isFolder(_ root: String) -> Bool {
        var info = stat()
        return stat(root, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Before a walk: blocks of 32 KiB and more are mapped and unmapped on their own, always.
    /// glibc raises that threshold each time such a block is freed, after which a deep tree's
    /// records (a path grows at every level, and is freed on another thread than the one that
    /// made it) were cut from the heap and never fitted a freed gap again: `show -r -j 2` on a
    /// chain of 20 000 folders peaked at 200–250 MB, 49 MB with the threshold fixed (issue 35).
    static func boundHeap() {
        xds_fix_mmap_threshold(32 * 1024)
    }

    /// Walks the folder `root` on `jobs` threads for `show -r` or `remove -r`: keeps the
    /// progress line (cleared before anything else is written), reports problems, and hands
    /// each archive met, each value found and (when `onRemovable` is given) each value that
    /// does not parse but can be removed to the command. A handler returns false when standard
    /// output failed (it has reported that): the walk stops there.
    /// - Returns: the walk's counts, or nil when a handler stopped it.
    static func walk(
        _ root: String, jobs: Int, progress: inout ProgressLine, diagnostics: inout Diagnostics,
        onArchive: (DocumentSourceTreePath, inout Diagnostics) -> Bool,
        onRemovable: ((DocumentSourceTree.Problem, inout Diagnostics) -> Bool)? = nil,
        onFound: (DocumentSourceTree.Found, inout Diagnostics) -> Bool
    ) -> DocumentSourceTree.Counts? {
        var outputFailed = false
        let counts = DocumentSourceTree(roots: [root], jobs: jobs).walk(archives: { archive in
            progress.clear()
            guard onArchive(archive, &diagnostics) else {
                outputFailed = true
                return .stop
            }
            return .proceed
        }) { event in
            switch event {
            case .progress(let counts):
                progress.update(counts)
            case .problem(let problem):
                progress.clear()
                if let onRemovable, problem.isRemovableValue {
                    guard onRemovable(problem, &diagnostics) else {
                        outputFailed = true
                        return .stop
                    }
                } else {
                    diagnostics.report(problem)
                }
            case .found(let found):
                progress.clear()
                guard onFound(found, &diagnostics) else {
                    outputFailed = true
                    return .stop
                }
            }
            return .proceed
        }
        progress.clear()
        return outputFailed ? nil : counts
    }
}

/// The progress line on standard error, only when it is a terminal: "\rxds: N files, M
/// folders, K tagged", redrawn at most ten times a second and cleared before any other
/// output and at the end.
struct ProgressLine {
    private let enabled = isatty(2) == 1
    private var shown = false
    private var last: Double = 0

    mutating func update(_ counts: DocumentSourceTree.Counts) {
        guard enabled else { return }
        let now = Self.now()
        guard now - last >= 0.1 else { return }
        last = now
        let text = "\rxds: \(counts.files) files, \(counts.folders) folders, \(counts.tagged) tagged\u{1B}[K"
        try? SystemCall.writeAll(2, Array(text.utf8))
        shown = true
    }

    /// Erases the line (before other output, and at the end).
    mutating func clear() {
        guard shown else { return }
        try? SystemCall.writeAll(2, Array("\r\u{1B}[K".utf8))
        shown = false
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

extension Diagnostics {
    /// Reports a failure about a path already made visible (``DocumentSourceTreePath/visible``,
    /// which escapes bytes that are not UTF-8 losslessly; escaping it again would double them).
    mutating func fail(visible path: String, _ reason: String, status: ExitStatus) {
        Diagnostics.printError("xds: \(path): \(VisibleText.escapedMessage(reason))")
        record(status)
    }

    /// Reports a problem met in a walk. Failures count with their status (SPEC §5: an
    /// unreadable folder or a permission problem is 74, a malformed value 65); an entry that
    /// vanished during the walk and a folder that is its own ancestor are facts about the tree,
    /// not failures: reported, status unchanged.
    mutating func report(_ problem: DocumentSourceTree.Problem) {
        let status = problem.error.map { ExitStatus($0) } ?? .success
        fail(visible: problem.path.visible, problem.message, status: status)
    }
}

/// `--jobs N` (`-j N`) of `show -r` and `remove -r`: how many threads walk.
struct JobsOptions: ParsableArguments {
    @Option(name: [.customShort("j"), .long],
            help: ArgumentHelp("With -r: walk with N threads (default: the number of processors; 1 keeps a fixed order).",
                               valueName: "N"))
    var jobs: Int?

    /// Every route checks here: ArgumentParser's, the long file lists handed over beside it
    /// (``XDS/Route/longList(_:)`` parses the options with ArgumentParser too) and the plain
    /// values' `validate()` (``ShowCommandLine``).
    func validate() throws {
        try Self.validate(jobs)
    }

    /// The check of `-j`, for this group and the commands' plain values (``ShowCommandLine``).
    static func validate(_ jobs: Int?) throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1 (got \(jobs)).") }
        // More threads than that only wait for one another; a huge count started a thread per
        // index and starved the machine (issue 24).
        if let jobs, jobs > DocumentSourceTree.maximumJobs {
            throw ValidationError("--jobs must be at most \(DocumentSourceTree.maximumJobs) (got \(jobs)).")
        }
    }

    /// The number of threads to walk with.
    var count: Int { Self.count(jobs) }

    /// The number of threads to walk with for `-j jobs` (nil: not given).
    static func count(_ jobs: Int?) -> Int { jobs ?? DocumentSourceTree.processorCount }
}
