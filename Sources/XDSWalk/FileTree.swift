#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Walks folders and hands every entry worth looking at to a reader (a ``FileTreeInspector``)
/// on the worker threads, with its attribute names as listed and its companions in its
/// folder's listing: the walk under `xds show -r` and `remove -r` (XDocSource's
/// `DocumentSourceTree`, which reads `x-document-source`), `where -r` and `strip -r`
/// (XDSProvenance's `ProvenanceTree`, every mark), and `check` (`MacMetadataTree`). The walk
/// knows no attribute name and no store: each reader says which names it wants.
///
/// ```swift
/// struct Tagged: FileTreeInspector {
///     func wantsAttribute(named name: UnsafeBufferPointer<UInt8>) -> Bool { name.starts(with: "user.".utf8) }
///     func inspect(_ entry: FileTree.InspectedEntry) throws(FileAccessError) -> TreePath? { entry.path }
/// }
/// FileTree(roots: ["share"]).walk(inspecting: Tagged()) { event in
///     if case .inspected(let path) = event { print(path) }
///     return .proceed
/// }
/// ```
///
/// How it walks:
/// - **Streaming, memory flat in the tree size**: depth first, a stack of folders (their names
///   to enter still) bounded by the depth; a folder's listing is held only while the
///   folder is on the stack (its files are examined first, then only its subfolder names are
///   kept), so memory grows with the largest folder and the depth, never with the tree.
/// - **Any depth, a few dozen descriptors**: only the newest 32 folders of the stack are kept
///   open (32 per walk: shared among the workers, at least 4 each, and each worker's first
///   folder), as fts does; a folder closed on the way down is opened again when the walk comes
///   back to it, through `..` of its subfolder, checked by device and inode (else name by name
///   from an open folder below it, each checked). A folder moved during the walk is followed,
///   never one that took its name; one that cannot be reached again is a
///   ``Problem/Kind/vanished`` problem, its remaining subfolders not walked. Paths longer than
///   `PATH_MAX` are read through the folder's descriptor and removed piece by piece.
/// - **Several threads when asked** (``jobs``): each worker walks depth first as above and
///   hands a folder (already open, with its ancestors' device and inode for loop detection)
///   to another worker only when that one is idle, so at most ``jobs`` folders wait; events
///   reach `visit` on the calling thread through a bounded channel (a worker sends a
///   folder's events together, at most 32 at a time), in the order they are found.
/// - **Each folder is read once** (`openat` + `getdents64`, or `readdir` where glibc has no
///   `getdents64`, whose `d_type` tells
///   files from folders without a `stat`; only entries of type "unknown" are `fstatat`-ed).
///   AppleDouble sidecars `._NAME` (and the reader's companion files) are found in that
///   listing, never with a `stat` per file.
/// - **One attribute call per entry the reader has nothing for**: `listxattrat` relative to the
///   open folder (Linux 6.13), else `llistxattr` on the folder's path and the name (through
///   `/proc/self/fd/N/NAME` when that path nears `PATH_MAX`); the reader reads only the
///   attributes that are there, relative to the folder too where the kernel can (`getxattrat`).
///   A folder costs `openat`, `fstat`, `listxattr` and the listing.
/// - **Symbolic links are not followed and not reported**, to folders or to files: a link's
///   target is either in the tree (reported there) or outside it (not what was asked about, and
///   `remove -r` must never change files outside the tree). A root that is a link is followed
///   (it was named on purpose).
/// - **Problems do not stop the walk**: an unreadable folder or value, an entry that vanished
///   between the listing and its turn, and a folder that is one of its own ancestors (a bind
///   mount loop, told by device and inode) are reported as ``InspectionEvent/problem(_:)`` events.
/// - `._NAME` files themselves and `.DS_Store` are never handed over as entries of their own
///   (a sidecar goes with its NAME). FIFOs, sockets and devices are skipped (Linux lets them
///   carry no `user.` attribute).
/// - Each root is inspected too (a file root as a file; a folder root before what is in it).
///
/// Paths are the root as given joined with the names below it, as exact bytes
/// (``TreePath``: names need not be UTF-8).
public struct FileTree: Sendable {
    /// The files and folders to walk, in order, as text (``rootPaths`` as text, lossy for a
    /// path that is not UTF-8).
    public var roots: [String] {
        get { rootPaths.map(\.lossyString) }
        set { rootPaths = newValue.map(TreePath.init) }
    }

    /// The files and folders to walk, in order, as exact bytes: a root need not be UTF-8 (a
    /// name read from a list of files, as `xds where --files-from` reads them).
    public var rootPaths: [TreePath]

    /// How many threads walk each root folder (at least 1; default 1).
    ///
    /// With 1, the walk runs on the calling thread and events come in a fixed order: depth
    /// first, each folder's files in listing order before its subfolders. With more, that many
    /// worker threads walk (each depth first, handing a folder to another worker only when that
    /// one is idle) and send what they find through a bounded channel to the calling thread,
    /// where `visit` (and the archive callback) still run one event at a time: events come in
    /// the order they are found, which differs from run to run (sort them for a stable order).
    /// Every promise above holds at any number of threads (memory bounded, links not followed,
    /// loops caught, problems reported, ``Decision/stop`` ends every worker soon). At most
    /// ``maximumJobs`` threads are started; when the system refuses one, the walk goes on with
    /// those already started (on the calling thread if none).
    public var jobs: Int

    /// The most threads a walk starts, whatever ``jobs`` asks (more only wait for one another).
    public static let maximumJobs = 256

    /// The number of processors online (a default for ``jobs``).
    public static var processorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// How many entries (files and folders) pass between two ``InspectionEvent/progress(_:)`` events.
    public static let progressInterval = 512

    /// A walk over `roots` with `jobs` threads (see ``jobs``).
    public init(roots: [String], jobs: Int = 1) {
        self.init(rootPaths: roots.map(TreePath.init), jobs: jobs)
    }

    /// A walk over `rootPaths` (exact bytes) with `jobs` threads (see ``jobs``).
    public init(rootPaths: [TreePath], jobs: Int = 1) {
        self.rootPaths = rootPaths
        self.jobs = max(1, jobs)
    }

    /// The one walk of every public entry point: problems and progress to `visit`, archives to
    /// `archive`, each entry to the inspector, its records to the second closure.
    func walk(
        archive: ((TreePath) -> Decision)?, _ visit: @escaping (Event) -> Decision,
        inspection: (TreeInspection, (any Sendable) -> Decision)
    ) -> Counts {
        guard jobs > 1 else {
            var walker = TreeWalker(visit: visit, inspection: inspection.0, record: inspection.1)
            walker.archive = archive
            for root in rootPaths where !walker.stopped {
                walker.walk(root: root)
            }
            return walker.counts
        }
        var counts = Counts()
        for root in rootPaths {
            let walked = TreeWorkPool.walk(
                root: root, jobs: jobs, archive: archive, inspection: inspection, visit: visit)
            counts.add(walked.counts)
            if walked.stopped { break }
        }
        return counts
    }
}
