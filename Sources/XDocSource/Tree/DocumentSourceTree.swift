#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import XDSWalk

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
/// The walk is XDSWalk's `FileTree` (streaming, memory flat in the tree size, a few dozen
/// descriptors at any depth, ``jobs`` threads, symbolic links not followed, loops caught,
/// problems as events, archives handed over by name; its documentation says how), with the
/// `x-document-source` reader (`DocumentSourceTree.Reader`) as its inspector: an entry costs
/// one `listxattr`, and only an entry with one of the reader's names or a sidecar `._NAME` in
/// its folder's listing is read, in the one store order of ``DocumentSourceFile/read()``.
///
/// - `._NAME` files themselves and `.DS_Store` are never reported as documents; a sidecar whose
///   NAME is not a regular file or folder and that holds a value is reported under its own
///   path (``Found/isOrphanSidecar``).
/// - A root that is not a folder is read like ``DocumentSourceFile/read()``; a root folder's
///   own attribute is reported first (its sidecar, in its parent folder, included).
/// - **Other attributes**: ``walk(inspecting:_:)`` walks the same way with a caller's
///   ``DocumentSourceTreeInspector`` (what `xds where -r` and `xds strip -r` walk with).
///
/// Paths are the root as given joined with the names below it, as exact bytes
/// (``DocumentSourceTreePath``: names need not be UTF-8).
public struct DocumentSourceTree: Sendable {
    /// The files and folders to walk, in order.
    public var roots: [String]

    /// How many threads walk each root folder (at least 1; default 1): `FileTree/jobs`.
    public var jobs: Int

    /// The most threads a walk starts, whatever ``jobs`` asks (`FileTree/maximumJobs`).
    public static var maximumJobs: Int { FileTree.maximumJobs }

    /// The number of processors online (a default for ``jobs``).
    public static var processorCount: Int { FileTree.processorCount }

    /// How many entries (files and folders) pass between two ``Event/progress(_:)`` events.
    public static var progressInterval: Int { FileTree.progressInterval }

    /// A walk over `roots` with `jobs` threads (see ``jobs``).
    public init(roots: [String], jobs: Int = 1) {
        self.roots = roots
        self.jobs = max(1, jobs)
    }

    /// The walk itself.
    var tree: FileTree { FileTree(roots: roots, jobs: jobs) }

    /// Walks every root in order, calling `visit` for each event as it happens (on the calling
    /// thread), until the end or until `visit` returns `Decision/stop`.
    /// - Returns: the final counts.
    @discardableResult
    public func walk(_ visit: (Event) -> Decision) -> Counts {
        tree.walk(inspecting: Reader()) { visit(Self.event($0)) }
    }

    /// ``walk(_:)``, also handing over every regular file whose name is an archive's
    /// (`ArchiveKind(fileName:)`; a root file too) to `archive`, right after its own
    /// attribute is reported, for the caller to scan (`XDocSourceArchive`'s `ArchiveScanner`) or note. Files are
    /// chosen by name from the listing the walk has anyway: no file is opened or sniffed.
    @discardableResult
    public func walk(
        archives archive: (DocumentSourceTreePath) -> Decision, _ visit: (Event) -> Decision
    ) -> Counts {
        tree.walk(inspecting: Reader(), archives: archive) { visit(Self.event($0)) }
    }

    /// Walks every root with a caller's inspector instead of the `x-document-source` reader:
    /// `FileTree/walk(inspecting:_:)`.
    @discardableResult
    public func walk<Inspector: DocumentSourceTreeInspector>(
        inspecting inspector: Inspector, _ visit: (InspectionEvent<Inspector.Record>) -> Decision
    ) -> Counts {
        tree.walk(inspecting: inspector, visit)
    }

    /// ``walk(inspecting:_:)``, also handing over archives by name:
    /// `FileTree/walk(inspecting:archives:_:)`.
    @discardableResult
    public func walk<Inspector: DocumentSourceTreeInspector>(
        inspecting inspector: Inspector, archives archive: (DocumentSourceTreePath) -> Decision,
        _ visit: (InspectionEvent<Inspector.Record>) -> Decision
    ) -> Counts {
        tree.walk(inspecting: inspector, archives: archive, visit)
    }

    private static func event(_ event: InspectionEvent<Found>) -> Event {
        switch event {
        case .inspected(let found): .found(found)
        case .problem(let problem): .problem(problem)
        case .progress(let counts): .progress(counts)
        }
    }
}

extension DocumentSourceTree {
    /// What a walk reports, in the order it finds things.
    public enum Event: Sendable {
        /// A file or folder that carries the attribute in some store.
        case found(Found)
        /// Something that could not be read, vanished, or was not walked (the walk goes on).
        case problem(Problem)
        /// The counts so far, sent every ``DocumentSourceTree/progressInterval`` entries (for a
        /// progress line; the last counts are also what ``DocumentSourceTree/walk(_:)`` returns).
        case progress(Counts)
    }

    /// What the callback wants next: `FileTree/Decision`.
    public typealias Decision = FileTree.Decision
    /// Something the walk could not do: `FileTree/Problem`.
    public typealias Problem = FileTree.Problem
    /// How much of the tree has been seen: `FileTree/Counts` (`Counts/tagged`: the files
    /// and folders found carrying the attribute).
    public typealias Counts = FileTree.Counts
    /// What a walk with an inspector reports: `FileTree/InspectionEvent`.
    public typealias InspectionEvent<Record: Sendable> = FileTree.InspectionEvent<Record>
    /// One entry a walk hands to an inspector: `FileTree/InspectedEntry`.
    public typealias InspectedEntry = FileTree.InspectedEntry
    /// An entry an inspector may claim by name: `FileTree/ClaimedEntry`.
    public typealias ClaimedEntry = FileTree.ClaimedEntry
    /// What an inspector says of a claimed entry: `FileTree/Claim`.
    public typealias Claim<Record: Sendable> = FileTree.Claim<Record>
    /// The attribute names of one entry as listed: `FileTree/AttributeNameList`.
    public typealias AttributeNameList = FileTree.AttributeNameList

    /// A file or folder that carries the attribute, or an orphan AppleDouble sidecar that
    /// holds a value.
    public struct Found: Sendable, Equatable {
        /// The root as given joined with the path below it (`ROOT/a/b.txt`), exact bytes. For
        /// an orphan sidecar (``isOrphanSidecar``), the sidecar's own path `ROOT/a/._b.txt`.
        public let path: DocumentSourceTreePath
        /// Whether it is a folder.
        public let isFolder: Bool
        /// The value and the store it was read from (the first store that has one, in the
        /// order of ``DocumentSourceFile/read()``). An AppleDouble location is the sidecar's
        /// path as text (lossy for names that are not UTF-8).
        public let stored: StoredDocumentSource
        /// The AppleDouble sidecar `._NAME` beside it, when the folder listing has one (whether
        /// or not it holds a value: ``stored`` tells where the value was read from).
        public let sidecar: DocumentSourceTreePath?
        /// Whether this is a sidecar `._NAME` whose NAME is not a regular file or folder (it was
        /// deleted or renamed, as often happens on shares, or it is a symbolic link, which
        /// Linux lets carry no attribute): the value belongs to nothing the walk reports, so
        /// the sidecar is reported under its own path, and ``remove(sidecar:)`` edits only it.
        public let isOrphanSidecar: Bool

        /// Creates a record.
        public init(path: DocumentSourceTreePath, isFolder: Bool, stored: StoredDocumentSource,
                    sidecar: DocumentSourceTreePath?, isOrphanSidecar: Bool = false) {
            self.path = path
            self.isFolder = isFolder
            self.stored = stored
            self.sidecar = sidecar
            self.isOrphanSidecar = isOrphanSidecar
        }
    }
}

extension FileTree.Problem {
    /// Whether this is a value that does not parse (`DocumentSourceFileError/Kind/malformedValue`)
    /// on an entry the walk met: `remove -r` removes it, as `xds remove FILE` does (a value
    /// need not be read to be removed). A sidecar that is not AppleDouble is not one: it
    /// cannot be edited without losing what is in it.
    public var isRemovableValue: Bool {
        entry != nil && error?.kind == .malformedValue
    }

    /// Removes the value from every store of `entry`, as ``DocumentSourceTree/Found/remove(sidecar:)`` with
    /// `sidecar` true does.
    /// - Throws: ``DocumentSourceFileError``; `notFound` when there is no `entry`.
    @discardableResult
    public func removeValue() throws(DocumentSourceFileError) -> DocumentSourceRemoval {
        guard let entry else {
            throw DocumentSourceFileError(.notFound, path: path.lossyString, message: "no entry to remove a value from")
        }
        return try DocumentSourceTree.Found.remove(entry, sidecar: true)
    }
}
