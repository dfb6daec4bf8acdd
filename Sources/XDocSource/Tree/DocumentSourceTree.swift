#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Walks folders and reports every file and folder that carries the `x-document-source`
/// attribute in any store (SPEC §2: the native attribute, Samba's stream, an AppleDouble
/// sidecar), as it finds them: what `xds show -r` and `xds remove -r` do, for indexers too.
///
/// ```swift
/// let counts = DocumentSourceTree(roots: ["share"]).walk { event in
///     if case .found(let found) = event { print(found.path, found.stored.source.name ?? "?") }
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
/// - **Each folder is read once** (`openat` + `fdopendir` + `readdir`, whose `d_type` tells
///   files from folders without a `stat`; only entries of type "unknown" are `fstatat`-ed).
///   AppleDouble sidecars `._NAME` are found in that listing, never with a `stat` per file.
/// - **One attribute call per untagged file**: `listxattrat` relative to the open folder
///   (Linux 6.13), else `llistxattr` on the folder's path and the name (through
///   `/proc/self/fd/N/NAME` when that path nears `PATH_MAX`), then only the attributes that
///   are there are read, relative to the folder too where the kernel can (`getxattrat`). A
///   folder costs `openat`, `fstat`, `listxattr` and the listing.
/// - **Symbolic links are not followed and not reported**, to folders or to files: a link's
///   target is either in the tree (reported there) or outside it (not what was asked about, and
///   `remove -r` must never change files outside the tree). A root that is a link is followed
///   (it was named on purpose).
/// - **Problems do not stop the walk**: an unreadable folder or value, an entry that vanished
///   between the listing and its turn, and a folder that is one of its own ancestors (a bind
///   mount loop, told by device and inode) are reported as ``Event/problem(_:)`` events.
/// - `._NAME` files themselves and `.DS_Store` are never reported as documents. FIFOs,
///   sockets and devices are skipped (Linux lets them carry no `user.` attribute).
/// - A root that is not a folder is read like ``DocumentSourceFile/read()``; a root folder's
///   own attribute is reported first (its sidecar, in its parent folder, included).
///
/// - **Other attributes**: ``walk(inspecting:_:)`` walks the same way but hands each entry
///   with a wanted attribute name, a sidecar or a zone file to a caller's
///   ``DocumentSourceTreeInspector`` on the worker threads instead of reading
///   `x-document-source` (what `xds where -r` and `xds strip -r` walk with).
///
/// Paths are the root as given joined with the names below it, as exact bytes
/// (``DocumentSourceTreePath``: names need not be UTF-8).
public struct DocumentSourceTree: Sendable {
    /// The files and folders to walk, in order.
    public var roots: [String]

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

    /// How many entries (files and folders) pass between two ``Event/progress(_:)`` events.
    public static let progressInterval = 512

    /// A walk over `roots` with `jobs` threads (see ``jobs``).
    public init(roots: [String], jobs: Int = 1) {
        self.roots = roots
        self.jobs = max(1, jobs)
    }

    /// Walks every root in order, calling `visit` for each event as it happens (on the calling
    /// thread), until the end or until `visit` returns ``Decision/stop``.
    /// - Returns: the final counts.
    @discardableResult
    public func walk(_ visit: (Event) -> Decision) -> Counts {
        withoutActuallyEscaping(visit) { visit in
            walk(archive: nil, visit)
        }
    }

    /// The one walk of every public entry point: events to `visit`, archives to `archive`,
    /// and with `inspection` each entry to the inspector instead of the built-in reading, its
    /// records to the second closure.
    func walk(
        archive: ((DocumentSourceTreePath) -> Decision)?, _ visit: @escaping (Event) -> Decision,
        inspection: (TreeInspection, (any Sendable) -> Decision)? = nil
    ) -> Counts {
        guard jobs > 1 else {
            var walker = TreeWalker(visit: visit)
            walker.archive = archive
            walker.inspection = inspection?.0
            walker.record = inspection?.1
            for root in roots where !walker.stopped {
                walker.walk(root: root)
            }
            return walker.counts
        }
        var counts = Counts()
        for root in roots {
            let walked = TreeWorkPool.walk(
                root: root, jobs: jobs, archive: archive, inspection: inspection, visit: visit)
            counts.add(walked.counts)
            if walked.stopped { break }
        }
        return counts
    }

    /// ``walk(_:)``, also handing over every regular file whose name is an archive's
    /// (`ArchiveKind(fileName:)`; a root file too) to `archive`, right after its own
    /// attribute is reported, for the caller to scan (`XDocSourceArchive`'s `ArchiveScanner`) or note. Files are
    /// chosen by name from the listing the walk has anyway: no file is opened or sniffed.
    @discardableResult
    public func walk(
        archives archive: (DocumentSourceTreePath) -> Decision, _ visit: (Event) -> Decision
    ) -> Counts {
        withoutActuallyEscaping(visit) { visit in
            withoutActuallyEscaping(archive) { archive in
                walk(archive: archive, visit)
            }
        }
    }
}
