#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDocSource
import XDSWalk

/// The marks and the Mac metadata (``MacMetadata``) of every file and folder under folders, found
/// or removed: the one producer of what `xds check` reports and `xds strip --mac-metadata`
/// lists (`-n`) or removes (SPEC §6 "Before publishing"). The walk is `ProvenanceTree`'s
/// (XDSWalk's `FileTree` with an inspector: streaming, ``jobs`` threads, links
/// never followed), with names claimed as they are listed: `.DS_Store`, `__MACOSX`,
/// `.AppleDouble`, and a link (or anything but a regular file) named `._NAME` or
/// `NAME:Zone.Identifier`, each reported (or deleted) whole and never walked into — but a
/// `__MACOSX` or `.AppleDouble` holding a kept sidecar or a `._` with a kept mark, walked as
/// any folder and reported as staying (``Record/stays``), and a regular `._NAME` named as a
/// root, read first as one met in the walk is.
///
/// What is found, per entry, in this order: its marks of the selected kinds (one finding per
/// kind and store, as `strip -n` lists them), its Apple attributes (one per name), its sidecar
/// `._NAME` (one ``MacMetadata/What/sidecar`` finding for a sidecar deleted whole; when it
/// holds a kept mark, or sidecars are kept, the marks and Apple attributes in it under the
/// entry's path, store appledouble), its zone file. With ``namesOnly``, names alone: no
/// attribute or sidecar is read (what a commit hook asks: git stores no attributes).
///
/// ```swift
/// MacMetadataTree(roots: ["release"], selection: .everything).walk(dryRun: true) { event in
///     if case .found(let record) = event { for finding in record.findings { print(finding.path.visible, finding.what) } }
///     return .proceed
/// }
/// ```
public struct MacMetadataTree: Sendable {
    /// The files and folders to look at, in order.
    public var roots: [String]
    /// How many threads walk each root folder.
    public var jobs: Int
    /// What is reported or removed.
    public var selection: MacMetadataSelection
    /// Names alone on disk (`check --names-only`): no attribute or sidecar is read.
    public var namesOnly: Bool
    /// Whether folder roots are walked (`-r`, `check`); false: each root alone, as `strip FILE`.
    public var recursive: Bool

    /// A walk over `roots`.
    public init(roots: [String], jobs: Int = 1, selection: MacMetadataSelection, namesOnly: Bool = false, recursive: Bool = true) {
        self.roots = roots
        self.jobs = max(1, jobs)
        self.selection = selection
        self.namesOnly = namesOnly
        self.recursive = recursive
    }

    /// What one entry held (or lost): its findings, in the order above; or the `__MACOSX` and
    /// `.AppleDouble` folders found to stay (then without findings).
    public struct Record: Sendable, Equatable {
        /// The findings (empty only in a record of ``stays``).
        public let findings: [MacMetadataFinding]
        /// `__MACOSX` and `.AppleDouble` folders that stay because something in them is kept
        /// (SPEC §6: their Mac files go and the folder is reported).
        public let stays: [MacMetadataFolderStay]

        /// Creates one.
        public init(findings: [MacMetadataFinding], stays: [MacMetadataFolderStay] = []) {
            self.findings = findings
            self.stays = stays
        }
    }

    /// Walks every root, calling `visit` on the calling thread for each entry with findings
    /// (with `dryRun`, nothing is changed; without, what is reported is what went), each
    /// problem and the progress; archives are handed to `archive` by name, never changed.
    @discardableResult
    public func walk(
        dryRun: Bool,
        archives archive: (TreePath) -> FileTree.Decision = { _ in .proceed },
        _ visit: (ProvenanceTree.Event<Record>) -> FileTree.Decision
    ) -> FileTree.Counts {
        let stays = FolderStays()
        let inspector = Inspector(selection: selection, namesOnly: namesOnly, dryRun: dryRun, walksFolders: recursive, stays: stays)
        // A folder that stays is decided on a worker thread as it is declined (and then walked):
        // reported with the next event, or at the end.
        func reportStays() -> FileTree.Decision {
            let found = stays.take()
            return found.isEmpty ? .proceed : visit(.found(Record(findings: [], stays: found)))
        }
        let counts = FileTree(roots: roots, jobs: recursive ? jobs : 1).walk(inspecting: inspector, archives: archive) { event in
            guard reportStays() == .proceed else { return .stop }
            switch event {
            case .inspected(let record): return visit(.found(record))
            case .problem(let problem): return visit(.problem(problem))
            case .progress(let counts): return visit(.progress(counts))
            }
        }
        _ = reportStays()
        return counts
    }

    /// The folders found to stay, handed from the workers to the calling thread.
    final class FolderStays: Sendable {
        private let found = Lock<[MacMetadataFolderStay]>([])

        func add(_ stay: MacMetadataFolderStay) { found.withLock { $0.append(stay) } }

        func take() -> [MacMetadataFolderStay] {
            found.withLock { found in
                defer { found.removeAll() }
                return found
            }
        }
    }
}

extension MacMetadataTree {
    /// The inspector: finds (and, unless dry, removes) on the worker threads.
    struct Inspector: FileTreeInspector {
        typealias Record = MacMetadataTree.Record
        let selection: MacMetadataSelection
        let namesOnly: Bool
        let dryRun: Bool
        let walksFolders: Bool
        /// Where a `__MACOSX` or `.AppleDouble` declined because something in it stays is told.
        let stays: FolderStays

        var claimsEntries: Bool { true }

        func wantsAttribute(named name: UnsafeBufferPointer<UInt8>) -> Bool {
            guard !namesOnly else { return false }
            if ProvenanceNames.mayMatch(attributeName: name), let match = ProvenanceNames.match(attributeName: name) {
                return selection.removes(match.kind)
            }
            return selection.removes(.appleAttribute) && MacMetadata.mayBeAppleAttribute(attributeName: name)
                && MacMetadata.isAppleAttribute(attributeName: name)
        }

        var companionSuffix: [UInt8]? { namesOnly ? nil : ProvenanceNames.zoneFileSuffix }

        func claimsEntry(named name: ArraySlice<UInt8>) -> Bool {
            MacMetadata.mayBeMacName(name) && MacMetadata.what(fileName: name) != nil
        }

        func inspect(claimed entry: FileTree.ClaimedEntry) throws(FileAccessError) -> FileTree.Claim<Record> {
            // A root is Mac metadata by its own name or by a folder it is in (`__MACOSX/x`).
            let own = MacMetadata.what(fileName: entry.name)
            guard let what = own ?? (entry.isRoot ? MacMetadata.what(entryPath: entry.path.bytes) : nil) else { return .declined }
            // A `._NAME` named itself, when what it holds decides: read first, as one met in the walk.
            if !namesOnly, own == .sidecar, entry.isRoot, entry.type == .file,
                !(selection.removes(.sidecar) && selection.removesEveryKind)
            {
                return try inspectRootSidecar(entry)
            }
            guard selection.removes(what) else { return .declined }
            if !namesOnly {
                switch what {
                case .sidecar:
                    // A regular `._NAME` below a root goes with NAME's entry (or as an orphan).
                    if entry.type == .file && !entry.isRoot { return .declined }
                case .zoneFile:
                    // A regular one goes with NAME; a folder of that name is no zone file.
                    if entry.type == .folder || (entry.type == .file && !entry.isRoot) { return .declined }
                case .macOSXFolder, .appleDoubleFolder:
                    if entry.type == .file && own != nil { return .declined }
                    // Sidecars in it kept, or one holding a kept mark: walked as any folder
                    // (what goes in it goes, what is kept stays, and the folder with it, reported).
                    if own != nil, entry.type == .folder, let reason = keptContent(entry, what) {
                        stays.add(MacMetadataFolderStay(folder: entry.path, what: what, reason: reason))
                        return .declined
                    }
                default:
                    break
                }
            }
            if !dryRun { guard try entry.remove() else { return .taken(nil) } }
            return .taken(Record(findings: [MacMetadataFinding(file: entry.path, what: what)]))
        }

        /// Why the `__MACOSX` or `.AppleDouble` folder `entry` stays, if it does: it holds a
        /// sidecar and sidecars are kept (any file of `.AppleDouble`, Netatalk's AppleDouble
        /// files; a `._NAME` file of `__MACOSX`), or a `._NAME` file holding a kept mark.
        func keptContent(_ entry: FileTree.ClaimedEntry, _ what: MacMetadata.What) -> MacMetadataFolderStay.Reason? {
            if !selection.removes(.sidecar), entry.containsFile(limit: 0, where: { name, _, _ in
                what == .appleDoubleFolder || MacMetadata.what(fileName: name) == .sidecar
            }) {
                return .keptSidecars
            }
            return holdsKeptMark(entry) ? .keptMark : nil
        }

        /// Whether a `._NAME` file in the folder `entry` holds a mark of a kind kept (read only
        /// when some kind is kept).
        func holdsKeptMark(_ entry: FileTree.ClaimedEntry) -> Bool {
            guard !selection.removesEveryKind else { return false }
            return entry.containsFile(limit: AppleDouble.attributeAreaLimit) { name, start, size in
                guard MacMetadata.what(fileName: name) == .sidecar, let double = try? AppleDouble(bytes: start, fileSize: size)
                else { return false }
                return double.attributes.contains { attribute in
                    ProvenanceNames.match(plainName: Array(attribute.name.utf8)).map { !selection.removes($0.kind) } ?? false
                }
            }
        }

        func inspect(_ entry: FileTree.InspectedEntry) throws(FileAccessError) -> Record? {
            guard !namesOnly else { return nil }
            var marks: [(raw: ArraySlice<UInt8>, name: String, match: ProvenanceNames.Match)] = []
            var apple: [(raw: ArraySlice<UInt8>, name: String)] = []
            for raw in entry.attributeNames {
                if let match = ProvenanceNames.match(attributeName: raw) {
                    if selection.removes(match.kind) { marks.append((raw, String(decoding: raw, as: UTF8.self), match)) }
                } else if selection.removes(.appleAttribute), MacMetadata.isAppleAttribute(attributeName: raw) {
                    apple.append((raw, String(decoding: raw, as: UTF8.self)))
                }
            }
            let zone = selection.removes(.zoneFile) ? entry.companionName : nil
            let findings = dryRun
                ? try wouldGo(entry, marks: marks, apple: apple, zone: zone)
                : try remove(entry, marks: marks, apple: apple, zone: zone)
            return findings.isEmpty ? nil : Record(findings: findings)
        }

        // MARK: Sidecars

        /// What becomes of a sidecar `._NAME`.
        enum SidecarPlan {
            /// Nothing (none there, or nothing in it goes).
            case none
            /// Deleted whole: it is Mac metadata and holds no kept mark.
            case delete
            /// Rewritten: these entries (marks of the selection, Apple attributes) go; with
            /// `only`, the file is rebuilt to hold only what is kept (a kept mark was in it).
            case edit(removing: [String], findings: [(kind: ProvenanceKind?, name: String)], rebuild: Bool)
        }

        /// The plan for the sidecar whose start is `double` (nil: not read, or malformed).
        func plan(_ double: AppleDouble?) -> SidecarPlan {
            let removesSidecar = selection.removes(.sidecar)
            guard let double else { return removesSidecar ? .delete : .none }
            var removing: [String] = []
            var findings: [(kind: ProvenanceKind?, name: String)] = []
            var holdsKeptMark = false
            for attribute in double.attributes {
                let bytes = Array(attribute.name.utf8)
                if let match = ProvenanceNames.match(plainName: bytes) {
                    if selection.removes(match.kind) {
                        removing.append(attribute.name)
                        findings.append((match.kind, attribute.name))
                    } else {
                        holdsKeptMark = true
                    }
                } else if selection.removes(.appleAttribute), MacMetadata.isAppleAttribute(plainName: bytes) {
                    removing.append(attribute.name)
                    findings.append((nil, attribute.name))
                }
            }
            if removesSidecar && !holdsKeptMark { return .delete }
            if removing.isEmpty && !(removesSidecar && holdsKeptMark) { return .none }
            return .edit(removing: removing, findings: findings, rebuild: removesSidecar)
        }

        /// Reads the sidecar when its fate depends on what it holds: always when sidecars are
        /// kept, else only when some kind is kept (a `._` holding a kept mark stays).
        func readSidecar(_ entry: FileTree.InspectedEntry) throws(FileAccessError) -> AppleDouble? {
            guard entry.sidecarName != nil else { return nil }
            if selection.removes(.sidecar) && selection.removesEveryKind { return nil }
            do {
                return try entry.readSidecar()
            } catch where error.kind == .malformedSidecar {
                // Whatever it holds, a `._` is Mac metadata; a malformed one kept is left as is.
                if selection.removes(.sidecar) { return nil }
                throw error
            }
        }

        /// The findings of a plan, in order: one sidecar line, or its entries under the entry's path.
        func findings(_ plan: SidecarPlan, entry: FileTree.InspectedEntry) -> [MacMetadataFinding] {
            findings(plan, path: entry.path, sidecar: entry.sidecar)
        }

        /// The findings of a plan for the sidecar at `sidecar`: one sidecar line, or its
        /// entries under `path` (the file it describes, or itself for an orphan).
        func findings(_ plan: SidecarPlan, path: TreePath, sidecar: TreePath?) -> [MacMetadataFinding] {
            switch plan {
            case .none:
                return []
            case .delete:
                guard let sidecar else { return [] }
                return [MacMetadataFinding(file: sidecar, what: .sidecar)]
            case .edit(_, let found, _):
                var result: [MacMetadataFinding] = []
                let marks = found.compactMap { item in
                    item.kind.map { (name: item.name, match: ProvenanceNames.Match(kind: $0, field: nil, isSambaStream: false)) }
                }
                for location in ProvenanceMarkLocation.grouped(store: .appleDouble, marks) {
                    result.append(MacMetadataFinding(file: path, what: .mark, kind: location.kind, store: .appleDouble))
                }
                for item in found where item.kind == nil {
                    result.append(MacMetadataFinding(file: path, what: .appleAttribute, name: item.name))
                }
                return result
            }
        }

        // MARK: Finding and removing

        private func wouldGo(
            _ entry: FileTree.InspectedEntry, marks: [(raw: ArraySlice<UInt8>, name: String, match: ProvenanceNames.Match)],
            apple: [(raw: ArraySlice<UInt8>, name: String)], zone: [UInt8]?
        ) throws(FileAccessError) -> [MacMetadataFinding] {
            var result = attributeFindings(entry.path, marks: marks, apple: apple)
            if entry.sidecarName != nil { result += findings(plan(try readSidecar(entry)), entry: entry) }
            if zone != nil, entry.hasCompanion, let zoneFile = entry.companion {
                result.append(MacMetadataFinding(file: zoneFile, what: .zoneFile))
            }
            return result
        }

        private func remove(
            _ entry: FileTree.InspectedEntry, marks: [(raw: ArraySlice<UInt8>, name: String, match: ProvenanceNames.Match)],
            apple: [(raw: ArraySlice<UInt8>, name: String)], zone: [UInt8]?
        ) throws(FileAccessError) -> [MacMetadataFinding] {
            guard !marks.isEmpty || !apple.isEmpty || entry.sidecarName != nil || zone != nil else { return [] }
            return try entry.withWriterLock { (writer) throws(FileAccessError) -> [MacMetadataFinding] in
                var firstFailure: FileAccessError?
                var result: [MacMetadataFinding] = []
                var sidecarFindings: [MacMetadataFinding] = []
                if entry.sidecarName != nil {
                    do throws(FileAccessError) {
                        sidecarFindings = try removeSidecar(entry, writer)
                    } catch {
                        firstFailure = error
                    }
                }
                var removedMarks: [(raw: ArraySlice<UInt8>, name: String, match: ProvenanceNames.Match)] = []
                var removedApple: [(raw: ArraySlice<UInt8>, name: String)] = []
                for mark in marks {
                    do throws(FileAccessError) {
                        if try writer.removeAttribute(named: mark.raw) { removedMarks.append(mark) }
                    } catch {
                        if firstFailure == nil { firstFailure = error }
                    }
                }
                for attribute in apple {
                    do throws(FileAccessError) {
                        if try writer.removeAttribute(named: attribute.raw) { removedApple.append(attribute) }
                    } catch {
                        if firstFailure == nil { firstFailure = error }
                    }
                }
                result += attributeFindings(entry.path, marks: removedMarks, apple: removedApple)
                result += sidecarFindings
                if zone != nil, let zoneFile = entry.companion {
                    do throws(FileAccessError) {
                        if try writer.removeCompanion(describedAs: "zone file") { result.append(MacMetadataFinding(file: zoneFile, what: .zoneFile)) }
                    } catch {
                        if firstFailure == nil { firstFailure = error }
                    }
                }
                if let firstFailure { throw firstFailure }
                return result
            }
        }

        /// Deletes or edits the sidecar under the lock, deciding on it as read then.
        private func removeSidecar(
            _ entry: FileTree.InspectedEntry, _ writer: DocumentSourceTree.EntryWriter
        ) throws(FileAccessError) -> [MacMetadataFinding] {
            let planned = plan(try readSidecar(entry))
            switch planned {
            case .none:
                return []
            case .delete:
                return try writer.removeSidecarFile() ? findings(.delete, entry: entry) : []
            case .edit(let removing, _, let rebuild):
                let changed = try writer.editSidecar { (current) throws(AppleDoubleError) -> AppleDouble.Edit in
                    try Self.edit(current, removing: Set(removing), rebuild: rebuild)
                }
                return changed ? findings(planned, entry: entry) : []
            }
        }

        /// The change of an ``SidecarPlan/edit(removing:findings:rebuild:)`` to the whole
        /// sidecar `current`: the entries `names` removed, or with `rebuild` only what is kept
        /// (no Finder info, no resource fork).
        static func edit(_ current: [UInt8], removing names: Set<String>, rebuild: Bool) throws(AppleDoubleError) -> AppleDouble.Edit {
            guard rebuild else { return try AppleDouble.edited(current, removing: names) }
            let kept = try AppleDouble(bytes: current, fileSize: current.count).attributes.filter { !names.contains($0.name) }
            return .replace(try AppleDouble.newFile(attributes: kept))
        }

        /// The findings of an entry's own attributes: marks grouped per kind and store, then
        /// Apple attributes one by one.
        private func attributeFindings(
            _ path: TreePath, marks: [(raw: ArraySlice<UInt8>, name: String, match: ProvenanceNames.Match)],
            apple: [(raw: ArraySlice<UInt8>, name: String)]
        ) -> [MacMetadataFinding] {
            var locations = ProvenanceMarkLocation.grouped(
                store: .xattr, marks.filter { !$0.match.isSambaStream }.map { ($0.name, $0.match) })
            locations += ProvenanceMarkLocation.grouped(
                store: .sambaStream, marks.filter { $0.match.isSambaStream }.map { ($0.name, $0.match) })
            var result = locations.map { MacMetadataFinding(file: path, what: .mark, kind: $0.kind, store: $0.store) }
            result += apple.map { MacMetadataFinding(file: path, what: .appleAttribute, name: $0.name) }
            return result
        }
    }
}
