#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDocSource
import XDSWalk

/// The marks and the Mac metadata (``MacMetadata``) of every file and folder under folders, found
/// or removed: the one producer of what `xds check` reports and `xds strip --mac-metadata`
/// lists (`-n`) or removes (SPEC §6 "Before publishing"). The walk is `ProvenanceTree`'s
/// (XDSWalk's `FileTree` with an inspector: streaming, ``jobs`` threads, links
/// never followed), with names claimed as they are listed: `.DS_Store`, `__MACOSX`,
/// `.AppleDouble`, and a link (or anything but a regular file) named `._NAME` or
/// `NAME:Zone.Identifier`, each reported (or deleted) whole and never walked into.
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

    /// What one entry held (or lost): its findings, in the order above.
    public struct Record: Sendable, Equatable {
        /// The findings, never empty.
        public let findings: [MacMetadataFinding]

        /// Creates one.
        public init(findings: [MacMetadataFinding]) { self.findings = findings }
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
        let inspector = Inspector(selection: selection, namesOnly: namesOnly, dryRun: dryRun, walksFolders: recursive)
        return FileTree(roots: roots, jobs: recursive ? jobs : 1).walk(inspecting: inspector, archives: archive) { event in
            switch event {
            case .inspected(let record): visit(.found(record))
            case .problem(let problem): visit(.problem(problem))
            case .progress(let counts): visit(.progress(counts))
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
            guard let what = own ?? (entry.isRoot ? MacMetadata.what(entryPath: entry.path.bytes) : nil), selection.removes(what)
            else { return .declined }
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
                    // Sidecars kept, or one in it holding a kept mark: walked as any folder
                    // (what goes in it goes, what is kept stays, and the folder with it).
                    if own != nil, entry.type == .folder, !selection.removes(.sidecar) || holdsKeptMark(entry) {
                        return .declined
                    }
                default:
                    break
                }
            }
            if !dryRun { guard try entry.remove() else { return .taken(nil) } }
            return .taken(Record(findings: [MacMetadataFinding(file: entry.path, what: what)]))
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

        /// The findings of a plan, in order: one sidecar line, or its entries under `path`.
        func findings(_ plan: SidecarPlan, entry: FileTree.InspectedEntry) -> [MacMetadataFinding] {
            switch plan {
            case .none:
                return []
            case .delete:
                guard let sidecar = entry.sidecar else { return [] }
                return [MacMetadataFinding(file: sidecar, what: .sidecar)]
            case .edit(_, let found, _):
                var result: [MacMetadataFinding] = []
                let marks = found.compactMap { item in
                    item.kind.map { (name: item.name, match: ProvenanceNames.Match(kind: $0, field: nil, isSambaStream: false)) }
                }
                for location in ProvenanceMarkLocation.grouped(store: .appleDouble, marks) {
                    result.append(MacMetadataFinding(file: entry.path, what: .mark, kind: location.kind, store: .appleDouble))
                }
                for item in found where item.kind == nil {
                    result.append(MacMetadataFinding(file: entry.path, what: .appleAttribute, name: item.name))
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
                let names = Set(removing)
                let changed = try writer.editSidecar { (current) throws(AppleDoubleError) -> AppleDouble.Edit in
                    guard rebuild else { return try AppleDouble.edited(current, removing: names) }
                    // Only what is kept stays: no Finder info, no resource fork.
                    let kept = try AppleDouble(bytes: current, fileSize: current.count).attributes.filter { !names.contains($0.name) }
                    return .replace(try AppleDouble.newFile(attributes: kept))
                }
                return changed ? findings(planned, entry: entry) : []
            }
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
