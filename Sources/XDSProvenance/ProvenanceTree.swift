#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDocSource
internal import XDSSystem

/// Every mark of every file and folder under folders (`xds where -r`, `xds strip -r`): the walk
/// of XDocSource's `DocumentSourceTree` (streaming, memory flat, ``jobs`` threads, symbolic
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
    /// The files and folders to walk, in order.
    public var roots: [String]
    /// How many threads walk each root folder (`DocumentSourceTree/jobs`).
    public var jobs: Int

    /// A walk over `roots` with `jobs` threads.
    public init(roots: [String], jobs: Int = 1) {
        self.roots = roots
        self.jobs = max(1, jobs)
    }

    /// A file or folder with marks, or an orphan sidecar or zone file.
    public struct Found: Sendable, Equatable {
        /// The root as given joined with the path below it, exact bytes (an orphan's own path).
        public let path: DocumentSourceTreePath
        /// Whether it is a folder.
        public let isFolder: Bool
        /// Its marks, in ``ProvenanceFile/read()``'s order.
        public let marks: [ProvenanceMark]
        /// Whether this is a `._NAME` or `NAME:Zone.Identifier` whose NAME is not there (or not
        /// a regular file or folder): its marks belong to nothing else the walk reports.
        public let isOrphan: Bool
        /// A store of the entry that could not be read (a malformed sidecar) while others
        /// could: ``marks`` holds what was read.
        public let problem: DocumentSourceFileError?

        /// Creates a record.
        public init(path: DocumentSourceTreePath, isFolder: Bool, marks: [ProvenanceMark], isOrphan: Bool,
                    problem: DocumentSourceFileError? = nil) {
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
        public let path: DocumentSourceTreePath
        /// Whether it is a folder.
        public let isFolder: Bool
        /// What went, one location per kind and store.
        public let locations: [ProvenanceMarkLocation]
        /// Whether this was an orphan sidecar or zone file.
        public let isOrphan: Bool

        /// Creates a record.
        public init(path: DocumentSourceTreePath, isFolder: Bool, locations: [ProvenanceMarkLocation], isOrphan: Bool) {
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
        case problem(DocumentSourceTree.Problem)
        /// The counts so far (`DocumentSourceTree/Counts/tagged`: entries with marks).
        case progress(DocumentSourceTree.Counts)
    }

    // MARK: - Walking

    /// Walks every root, calling `visit` on the calling thread for each entry with marks,
    /// each problem and the progress, until the end or until `visit` says `DocumentSourceTree/Decision/stop`.
    @discardableResult
    public func walk(_ visit: (Event<Found>) -> DocumentSourceTree.Decision) -> DocumentSourceTree.Counts {
        tree.walk(inspecting: Reader()) { visit(Self.event($0)) }
    }

    /// ``walk(_:)``, also handing over every regular file whose name is an archive's to
    /// `archive` (as `DocumentSourceTree/walk(archives:_:)` does), for the caller to scan.
    @discardableResult
    public func walk(
        archives archive: (DocumentSourceTreePath) -> DocumentSourceTree.Decision,
        _ visit: (Event<Found>) -> DocumentSourceTree.Decision
    ) -> DocumentSourceTree.Counts {
        tree.walk(inspecting: Reader(), archives: archive) { visit(Self.event($0)) }
    }

    /// Removes the marks of `kinds` from every entry under the roots (with `dryRun`, changes
    /// nothing and reports what would go), on the worker threads, as ``ProvenanceFile/strip(_:dryRun:)``
    /// does for one path; orphan sidecars lose their marks' entries (deleted when nothing else
    /// is left), orphan zone files are deleted. Archives are handed to `archive` by name,
    /// never rewritten. A store that refuses is a ``Event/problem(_:)``.
    @discardableResult
    public func strip(
        _ kinds: Set<ProvenanceKind>, dryRun: Bool,
        archives archive: (DocumentSourceTreePath) -> DocumentSourceTree.Decision = { _ in .proceed },
        _ visit: (Event<Stripped>) -> DocumentSourceTree.Decision
    ) -> DocumentSourceTree.Counts {
        tree.walk(inspecting: Stripper(kinds: kinds, dryRun: dryRun), archives: archive) { visit(Self.event($0)) }
    }

    private var tree: DocumentSourceTree { DocumentSourceTree(roots: roots, jobs: jobs) }

    private static func event<Record>(_ event: DocumentSourceTree.InspectionEvent<Record>) -> Event<Record> {
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
    struct Reader: DocumentSourceTreeInspector {
        typealias Record = Found

        func wantsAttribute(named name: UnsafeBufferPointer<UInt8>) -> Bool { isMarkName(name) }
        func zoneFileOwner(_ fileName: ArraySlice<UInt8>) -> [UInt8]? { ProvenanceNames.zoneFileOwner(fileName) }
        func zoneFileName(for name: [UInt8]) -> [UInt8]? { ProvenanceNames.zoneFileName(for: name) }

        func inspect(_ entry: DocumentSourceTree.InspectedEntry) throws(DocumentSourceFileError) -> Found? {
            var marks: [ProvenanceMark] = []
            var attributes: [(store: ProvenanceStore, value: ProvenanceValue)] = []
            for name in entry.attributeNames {
                guard let match = ProvenanceNames.match(attributeName: name) else { continue }
                let text = String(decoding: name, as: UTF8.self)
                let value: ProvenanceValue
                do {
                    guard let bytes = try entry.value(ofAttribute: name) else { continue }
                    value = ProvenanceValue(name: text, match: match, bytes: bytes)
                } catch where error.errorNumber == E2BIG {
                    value = ProvenanceValue(name: text, match: match, bytes: [], tooLarge: true)
                }
                attributes.append((match.isSambaStream ? .sambaStream : .xattr, value))
            }
            for store in [ProvenanceStore.xattr, .sambaStream] {
                marks += ProvenanceDecoder.marks(store: store, values: attributes.filter { $0.store == store }.map(\.value))
            }
            var problem: DocumentSourceFileError?
            do {
                if let double = try entry.readSidecar() {
                    let values = double.attributes.compactMap { attribute -> ProvenanceValue? in
                        guard let match = ProvenanceNames.match(plainName: Array(attribute.name.utf8)) else { return nil }
                        return ProvenanceValue(name: attribute.name, match: match, bytes: attribute.value)
                    }
                    marks += ProvenanceDecoder.marks(store: .appleDouble, values: values)
                }
            } catch where error.kind == .malformedSidecar {
                problem = error
            }
            let limit = ProvenanceDecoder.maximumSize(of: .zoneIdentifier)
            if let zoneName = entry.zoneFileName, let zone = try entry.readZoneFile(upTo: limit + 1) {
                let match = ProvenanceNames.Match(kind: .zoneIdentifier, field: nil, isSambaStream: false)
                let value = ProvenanceValue(
                    name: String(decoding: zoneName, as: UTF8.self), match: match, bytes: zone.bytes,
                    size: zone.fileSize > zone.bytes.count ? zone.fileSize : nil)
                marks += ProvenanceDecoder.marks(store: .zoneFile, values: [value])
            }
            if marks.isEmpty {
                if let problem { throw problem }
                return nil
            }
            return Found(path: entry.path, isFolder: entry.isFolder, marks: marks, isOrphan: entry.isOrphan, problem: problem)
        }
    }

    /// Removes (or lists) the marks of some kinds from an entry.
    struct Stripper: DocumentSourceTreeInspector {
        typealias Record = Stripped
        let kinds: Set<ProvenanceKind>
        let dryRun: Bool

        func wantsAttribute(named name: UnsafeBufferPointer<UInt8>) -> Bool {
            guard ProvenanceNames.mayMatch(attributeName: name), let match = ProvenanceNames.match(attributeName: name)
            else { return false }
            return kinds.contains(match.kind)
        }
        func zoneFileOwner(_ fileName: ArraySlice<UInt8>) -> [UInt8]? { ProvenanceNames.zoneFileOwner(fileName) }
        func zoneFileName(for name: [UInt8]) -> [UInt8]? { ProvenanceNames.zoneFileName(for: name) }

        func inspect(_ entry: DocumentSourceTree.InspectedEntry) throws(DocumentSourceFileError) -> Stripped? {
            let locations: [ProvenanceMarkLocation]
            if entry.isOrphan {
                locations = try stripOrphan(entry)
            } else if entry.path.string == nil {
                locations = try stripByBytes(entry)
            } else {
                // The entry's own path (a root named through a link is its target's: followed).
                locations = try ProvenanceFile(path: entry.path.lossyString).strip(kinds, dryRun: dryRun)
            }
            guard !locations.isEmpty else { return nil }
            return Stripped(path: entry.path, isFolder: entry.isFolder, locations: locations, isOrphan: entry.isOrphan)
        }

        /// An entry whose path is not UTF-8 (ProvenanceFile takes a `String`, which cannot
        /// name it): its attributes are removed and its zone file deleted through the exact
        /// bytes the walk gives. Its sidecar is not rewritten (the sidecar writer takes a
        /// `String` path too, as `remove -r` says): when it holds marks of `kinds`, that is the
        /// entry's problem and nothing is changed.
        private func stripByBytes(_ entry: DocumentSourceTree.InspectedEntry) throws(DocumentSourceFileError) -> [ProvenanceMarkLocation] {
            let label = entry.path.lossyString
            if let double = try entry.readSidecar(),
               double.attributes.contains(where: { ProvenanceNames.match(plainName: Array($0.name.utf8)).map { kinds.contains($0.kind) } ?? false }) {
                throw DocumentSourceFileError(.ioError, path: label, message: "its name is not UTF-8, so its sidecar is not rewritten",
                                              errorNumber: EILSEQ)
            }
            // One location per kind and store, stores in order and kinds in table order, as ProvenanceFile gives them.
            var found: [(match: ProvenanceNames.Match, store: ProvenanceStore, names: [String])] = []
            for rawName in entry.attributeNames {
                guard let match = ProvenanceNames.match(attributeName: rawName), kinds.contains(match.kind) else { continue }
                let store: ProvenanceStore = match.isSambaStream ? .sambaStream : .xattr
                let name = String(decoding: rawName, as: UTF8.self)
                if let index = found.firstIndex(where: { $0.match.kind == match.kind && $0.store == store }) {
                    found[index].names.append(name)
                } else {
                    found.append((match, store, [name]))
                }
            }
            found.sort { a, b in
                a.store != b.store ? a.store == .xattr : ProvenanceDecoder.tableOrder(a.match) < ProvenanceDecoder.tableOrder(b.match)
            }
            var locations = found.map { ProvenanceMarkLocation(kind: $0.match.kind, store: $0.store, names: $0.names) }
            if !dryRun {
                let removed = Set(try entry.removeAttributesLocked(found.flatMap(\.names)))
                locations = locations.compactMap { location in
                    let names = location.names.filter { removed.contains($0) }
                    return names.isEmpty ? nil : ProvenanceMarkLocation(kind: location.kind, store: location.store, names: names)
                }
            }
            if kinds.contains(.zoneIdentifier), entry.zoneFile != nil, let zoneName = entry.zoneFileName {
                if !dryRun {
                    let cName = zoneName.map { CChar(bitPattern: $0) } + [0]
                    if SystemCall.retrying({ unlinkat(entry.folderDescriptor, cName, 0) }) != 0 && errno != ENOENT {
                        throw DocumentSourceFileError(errno: errno, path: label, context: "cannot remove the zone file: ")
                    }
                }
                locations.append(ProvenanceMarkLocation(kind: .zoneIdentifier, store: .zoneFile,
                                                        names: [String(decoding: zoneName, as: UTF8.self)]))
            }
            return locations
        }

        /// An orphan `._NAME` loses its marks' entries (the file deleted when nothing else is
        /// left in it); an orphan `NAME:Zone.Identifier` is deleted.
        private func stripOrphan(_ entry: DocumentSourceTree.InspectedEntry) throws(DocumentSourceFileError) -> [ProvenanceMarkLocation] {
            let path = entry.path.lossyString
            if entry.zoneFile != nil {
                guard kinds.contains(.zoneIdentifier), let zoneName = entry.zoneFileName else { return [] }
                let name = String(decoding: zoneName, as: UTF8.self)
                if !dryRun {
                    let cName = zoneName.map { CChar(bitPattern: $0) } + [0]
                    if SystemCall.retrying({ unlinkat(entry.folderDescriptor, cName, 0) }) != 0 && errno != ENOENT {
                        throw DocumentSourceFileError(errno: errno, path: path, context: "cannot remove the zone file: ")
                    }
                }
                return [ProvenanceMarkLocation(kind: .zoneIdentifier, store: .zoneFile, names: [name])]
            }
            guard let double = try entry.readSidecar() else { return [] }
            var byKind: [(kind: ProvenanceKind, names: [String])] = []
            for attribute in double.attributes {
                guard let match = ProvenanceNames.match(plainName: Array(attribute.name.utf8)), kinds.contains(match.kind)
                else { continue }
                if let index = byKind.firstIndex(where: { $0.kind == match.kind }) {
                    byKind[index].names.append(attribute.name)
                } else {
                    byKind.append((match.kind, [attribute.name]))
                }
            }
            byKind.sort { ProvenanceDecoder.tableOrder(.init(kind: $0.kind, field: nil, isSambaStream: false)) < ProvenanceDecoder.tableOrder(.init(kind: $1.kind, field: nil, isSambaStream: false)) }
            guard !byKind.isEmpty else { return [] }
            if !dryRun {
                // The sidecar's owner path: DIR/NAME for DIR/._NAME (NAME is gone: no lock to take on it).
                let owner = Self.ownerPath(of: path)
                try DocumentSourceFile(path: owner, followSymlinks: false)
                    .removeSidecarEntriesLocked(Set(byKind.flatMap(\.names)), orphan: true)
            }
            return byKind.map { ProvenanceMarkLocation(kind: $0.kind, store: .appleDouble, names: $0.names) }
        }

        /// `DIR/NAME` for the sidecar path `DIR/._NAME`.
        static func ownerPath(of sidecar: String) -> String {
            guard let slash = sidecar.lastIndex(of: "/") else { return String(sidecar.dropFirst(2)) }
            return String(sidecar[...slash]) + String(sidecar[sidecar.index(after: slash)...].dropFirst(2))
        }
    }
}
