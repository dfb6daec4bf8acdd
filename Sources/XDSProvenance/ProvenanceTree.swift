#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDocSource
internal import XDSSystem
import XDSWalk

/// Every mark of every file and folder under folders (`xds where -r`, `xds strip -r`): the walk
/// of XDSWalk's `FileTree` (streaming, memory flat, ``jobs`` threads, symbolic
/// links not followed, loops caught, problems as events, archives handed over by name), with
/// each entry's attribute names from its one `listxattr`, its sidecar `._NAME` and its
/// `NAME:Zone.Identifier` file from the folder's listing, read and decoded on the worker threads.
///
/// An entry with no mark's name, no sidecar and no zone file costs the one `listxattr` of
/// `show -r`. An orphan — a `._NAME` or `NAME:Zone.Identifier` whose NAME is not a regular
/// file or folder — is reported under its own path (``Found/isOrphan``).
///
/// ```swift
/// ProvenanceTree(roots: ["share"], jobs: 4).walk { event in
///     if case .found(let found) = event { print(found.path, found.marks.map(\.kind)) }
///     return .proceed
/// }
/// ```
public struct ProvenanceTree: Sendable {
    /// The files and folders to walk, in order, as text (``rootPaths`` as text, lossy for a
    /// path that is not UTF-8).
    public var roots: [String] {
        get { rootPaths.map(\.lossyString) }
        set { rootPaths = newValue.map(TreePath.init) }
    }
    /// The files and folders to walk, in order, as exact bytes (`FileTree/rootPaths`: a root
    /// need not be UTF-8).
    public var rootPaths: [TreePath]
    /// How many threads walk each root folder (`FileTree/jobs`).
    public var jobs: Int
    /// Whether folder roots are walked (the default); false: each root is read alone, as
    /// ``ProvenanceFile/read()`` reads a path, but by exact bytes (`xds where --files-from`
    /// without `-r`, for a name that is not UTF-8).
    public var walksFolders = true

    /// A walk over `roots` with `jobs` threads.
    public init(roots: [String], jobs: Int = 1) {
        self.init(rootPaths: roots.map(TreePath.init), jobs: jobs)
    }

    /// A walk over `rootPaths` (exact bytes) with `jobs` threads; with `walksFolders` false,
    /// each root is read alone (``walksFolders``).
    public init(rootPaths: [TreePath], jobs: Int = 1, walksFolders: Bool = true) {
        self.rootPaths = rootPaths
        self.jobs = max(1, jobs)
        self.walksFolders = walksFolders
    }

    /// A file or folder with marks, or an orphan sidecar or zone file.
    public struct Found: Sendable, Equatable {
        /// The root as given joined with the path below it, exact bytes (an orphan's own path).
        public let path: TreePath
        /// Whether it is a folder.
        public let isFolder: Bool
        /// Its marks, in ``ProvenanceFile/read()``'s order.
        public let marks: [ProvenanceMark]
        /// Whether this is a `._NAME` or `NAME:Zone.Identifier` whose NAME is not there (or not
        /// a regular file or folder): its marks belong to nothing else the walk reports.
        public let isOrphan: Bool
        /// A store of the entry that could not be read (a malformed sidecar) while others
        /// could: ``marks`` holds what was read.
        public let problem: FileAccessError?

        /// Creates a record.
        public init(path: TreePath, isFolder: Bool, marks: [ProvenanceMark], isOrphan: Bool,
                    problem: FileAccessError? = nil) {
            self.path = path
            self.isFolder = isFolder
            self.marks = marks
            self.isOrphan = isOrphan
            self.problem = problem
        }
    }

    /// An entry whose marks were (or, with `dryRun`, would be) removed.
    public struct Stripped: Sendable, Equatable {
        /// The entry's path (an orphan's own path).
        public let path: TreePath
        /// Whether it is a folder.
        public let isFolder: Bool
        /// What went, one location per kind and store.
        public let locations: [ProvenanceMarkLocation]
        /// Whether this was an orphan sidecar or zone file.
        public let isOrphan: Bool

        /// Creates a record.
        public init(path: TreePath, isFolder: Bool, locations: [ProvenanceMarkLocation], isOrphan: Bool) {
            self.path = path
            self.isFolder = isFolder
            self.locations = locations
            self.isOrphan = isOrphan
        }
    }

    /// What a walk reports, in the order it finds things.
    public enum Event<Record: Sendable>: Sendable {
        /// An entry with marks (``Found``), or one stripped (``Stripped``).
        case found(Record)
        /// Something that could not be read, vanished, or was not walked (the walk goes on).
        case problem(FileTree.Problem)
        /// The counts so far (`FileTree/Counts/tagged`: entries with marks).
        case progress(FileTree.Counts)
    }

    // MARK: - Walking

    /// Walks every root, calling `visit` on the calling thread for each entry with marks,
    /// each problem and the progress, until the end or until `visit` says `FileTree/Decision/stop`.
    @discardableResult
    public func walk(_ visit: (Event<Found>) -> FileTree.Decision) -> FileTree.Counts {
        tree.walk(inspecting: Reader(walksFolders: walksFolders)) { visit(Self.event($0)) }
    }

    /// ``walk(_:)``, also handing over every regular file whose name is an archive's to
    /// `archive` (as `FileTree/walk(inspecting:archives:_:)` does), for the caller to scan.
    @discardableResult
    public func walk(
        archives archive: (TreePath) -> FileTree.Decision,
        _ visit: (Event<Found>) -> FileTree.Decision
    ) -> FileTree.Counts {
        tree.walk(inspecting: Reader(walksFolders: walksFolders), archives: archive) { visit(Self.event($0)) }
    }

    /// Removes the marks of `kinds` from every entry under the roots (with `dryRun`, changes
    /// nothing and reports what would go), on the worker threads, as ``ProvenanceFile/strip(_:dryRun:)``
    /// does for one path; orphan sidecars lose their marks' entries (deleted when nothing else
    /// is left), orphan zone files are deleted. Archives are handed to `archive` by name,
    /// never rewritten. A store that refuses is a ``Event/problem(_:)``.
    @discardableResult
    public func strip(
        _ kinds: Set<ProvenanceKind>, dryRun: Bool,
        archives archive: (TreePath) -> FileTree.Decision = { _ in .proceed },
        _ visit: (Event<Stripped>) -> FileTree.Decision
    ) -> FileTree.Counts {
        tree.walk(inspecting: Stripper(kinds: kinds, dryRun: dryRun, walksFolders: walksFolders), archives: archive) { visit(Self.event($0)) }
    }

    private var tree: FileTree { FileTree(rootPaths: rootPaths, jobs: jobs) }

    private static func event<Record>(_ event: FileTree.InspectionEvent<Record>) -> Event<Record> {
        switch event {
        case .inspected(let record): .found(record)
        case .problem(let problem): .problem(problem)
        case .progress(let counts): .progress(counts)
        }
    }
}

// MARK: - The inspectors

extension ProvenanceTree {
    /// The names the walk asks about: one of the table's, in any road's spelling.
    static func isMarkName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        ProvenanceNames.mayMatch(attributeName: name) && ProvenanceNames.match(attributeName: name) != nil
    }

    /// Reads and decodes every mark of an entry.
    struct Reader: FileTreeInspector {
        typealias Record = Found
        /// ``ProvenanceTree/walksFolders``.
        var walksFolders = true

        func wantsAttribute(named name: UnsafeBufferPointer<UInt8>) -> Bool { isMarkName(name) }
        var companionSuffix: [UInt8]? { ProvenanceNames.zoneFileSuffix }

        func inspect(_ entry: FileTree.InspectedEntry) throws(FileAccessError) -> Found? {
            // A malformed sidecar is kept with what the other stores hold (thrown when they
            // hold nothing).
            var problem: FileAccessError?
            let found = try ProvenanceReading.find(in: entry, kinds: nil, readValues: true) { problem = $0 }
            let marks = ProvenanceReading.marks(found)
            if marks.isEmpty {
                if let problem { throw problem }
                return nil
            }
            return Found(path: entry.path, isFolder: entry.isFolder, marks: marks, isOrphan: entry.isOrphan, problem: problem)
        }
    }

    /// Removes (or lists) the marks of some kinds from an entry.
    struct Stripper: FileTreeInspector {
        typealias Record = Stripped
        let kinds: Set<ProvenanceKind>
        let dryRun: Bool
        /// ``ProvenanceTree/walksFolders``.
        var walksFolders = true

        func wantsAttribute(named name: UnsafeBufferPointer<UInt8>) -> Bool {
            guard ProvenanceNames.mayMatch(attributeName: name), let match = ProvenanceNames.match(attributeName: name)
            else { return false }
            return kinds.contains(match.kind)
        }
        var companionSuffix: [UInt8]? { ProvenanceNames.zoneFileSuffix }

        func inspect(_ entry: FileTree.InspectedEntry) throws(FileAccessError) -> Stripped? {
            // The marks' names from the walk's one listing (exact bytes): no second listxattr.
            var attributes: [(raw: ArraySlice<UInt8>, name: String, match: ProvenanceNames.Match)] = []
            for raw in entry.attributeNames {
                guard let match = ProvenanceNames.match(attributeName: raw), kinds.contains(match.kind) else { continue }
                attributes.append((raw, String(decoding: raw, as: UTF8.self), match))
            }
            let zone = kinds.contains(.zoneIdentifier) ? entry.companionName : nil
            let locations = dryRun ? try wouldGo(entry) : try remove(entry, attributes, zone: zone)
            guard !locations.isEmpty else { return nil }
            return Stripped(path: entry.path, isFolder: entry.isFolder, locations: locations, isOrphan: entry.isOrphan)
        }

        /// What would go (`-n`): the listed names, the sidecar's entries (its start, as read),
        /// the zone file when it is a regular file, found by the marks' one reading function
        /// (names alone). Nothing is opened for writing.
        private func wouldGo(_ entry: FileTree.InspectedEntry) throws(FileAccessError) -> [ProvenanceMarkLocation] {
            ProvenanceReading.locations(
                try ProvenanceReading.find(in: entry, kinds: kinds, readValues: false) { (error) throws(FileAccessError) in
                    throw error
                })
        }

        /// Removes the marks under the entry's writers' lock, as `remove -r` removes a value:
        /// the entry opened relative to its folder, attributes removed through its descriptor,
        /// the sidecar edited (one atomic write) and the zone file deleted relative to the
        /// folder. The sidecar goes first, so a malformed one stops before anything changed (it
        /// is left as it was); any other failure leaves the other stores tried, the first
        /// failure thrown.
        private func remove(
            _ entry: FileTree.InspectedEntry, _ attributes: [(raw: ArraySlice<UInt8>, name: String, match: ProvenanceNames.Match)],
            zone: [UInt8]?
        ) throws(FileAccessError) -> [ProvenanceMarkLocation] {
            guard !attributes.isEmpty || entry.sidecarName != nil || zone != nil else { return [] }
            return try entry.withWriterLock { (writer) throws(FileAccessError) -> [ProvenanceMarkLocation] in
                var firstFailure: FileAccessError?
                var sidecarMarks: [(name: String, match: ProvenanceNames.Match)] = []
                if entry.sidecarName != nil {
                    do throws(FileAccessError) {
                        // Decided on the whole sidecar as read under the lock.
                        let changed = try writer.editSidecar { (current) throws(AppleDoubleError) -> AppleDouble.Edit in
                            sidecarMarks = marks(of: try AppleDouble(bytes: current, fileSize: current.count))
                            guard !sidecarMarks.isEmpty else { return .unchanged }
                            return try AppleDouble.edited(current, removing: Set(sidecarMarks.map(\.name)))
                        }
                        if !changed { sidecarMarks = [] }
                    } catch {
                        if error.kind == .malformedSidecar { throw error }
                        firstFailure = error
                        sidecarMarks = []
                    }
                }
                var removed: [(raw: ArraySlice<UInt8>, name: String, match: ProvenanceNames.Match)] = []
                for attribute in attributes {
                    do throws(FileAccessError) {
                        if try writer.removeAttribute(named: attribute.raw) { removed.append(attribute) }
                    } catch {
                        if firstFailure == nil { firstFailure = error }
                    }
                }
                var zoneRemoved = false
                if zone != nil {
                    do throws(FileAccessError) {
                        zoneRemoved = try writer.removeCompanion(describedAs: "zone file")
                    } catch {
                        if firstFailure == nil { firstFailure = error }
                    }
                }
                if let firstFailure { throw firstFailure }
                return Self.locations(removed, sidecar: sidecarMarks, zone: zoneRemoved ? zone : nil)
            }
        }

        /// The sidecar entries that are marks of ``kinds``.
        private func marks(of double: AppleDouble) -> [(name: String, match: ProvenanceNames.Match)] {
            double.attributes.compactMap { attribute in
                guard let match = ProvenanceNames.match(plainName: Array(attribute.name.utf8)), kinds.contains(match.kind)
                else { return nil }
                return (attribute.name, match)
            }
        }

        /// One location per kind and store, in the marks' store order (``ProvenanceReading/stores``).
        private static func locations(
            _ attributes: [(raw: ArraySlice<UInt8>, name: String, match: ProvenanceNames.Match)],
            sidecar: [(name: String, match: ProvenanceNames.Match)], zone: [UInt8]?
        ) -> [ProvenanceMarkLocation] {
            var found = ProvenanceReading.Found()
            for attribute in attributes {
                found.append(ProvenanceValue(name: attribute.name, match: attribute.match, bytes: []),
                             in: attribute.match.isSambaStream ? .sambaStream : .xattr)
            }
            for mark in sidecar { found.append(ProvenanceValue(name: mark.name, match: mark.match, bytes: []), in: .appleDouble) }
            if let zone {
                let match = ProvenanceNames.Match(kind: .zoneIdentifier, field: nil, isSambaStream: false)
                found.append(ProvenanceValue(name: String(decoding: zone, as: UTF8.self), match: match, bytes: []), in: .zoneFile)
            }
            return ProvenanceReading.locations(found)
        }
    }
}
