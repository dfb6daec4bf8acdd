import XDocSource
import XDocSourceArchive
import XDSWalk

/// The one producer of what `xds check` reports and `xds strip --mac-metadata` lists or removes
/// (SPEC §6 "Before publishing"): every root walked by ``MacMetadataTree`` (found, or removed
/// unless dry) and every archive it meets (named, or under a folder) looked into by
/// ``MacMetadataArchive`` — archives are never changed here. Printers (`check`'s text, JSON and
/// GitHub lines; `strip -n`'s lines) take the events in order.
///
/// ```swift
/// MacMetadataScan(roots: ["."], selection: .everything).run(dryRun: true) { event in
///     if case .found(let finding) = event { print(finding.path.visible, finding.what) }
///     return .proceed
/// }
/// ```
public struct MacMetadataScan: Sendable {
    /// The files and folders, in order.
    public var roots: [String]
    /// How many threads walk each folder.
    public var jobs: Int
    /// What is reported (or removed).
    public var selection: MacMetadataSelection
    /// Names alone on disk (archives are read whole either way).
    public var namesOnly: Bool
    /// Whether folders are walked (`check`, `strip -r`) or each root looked at alone.
    public var recursive: Bool
    /// The bounds of archive reading (`--archive-limit`).
    public var limits: ArchiveScanner.Limits

    /// A scan of `roots`.
    public init(roots: [String], jobs: Int = 1, selection: MacMetadataSelection, namesOnly: Bool = false,
                recursive: Bool = true, limits: ArchiveScanner.Limits = ArchiveScanner.Limits()) {
        self.roots = roots
        self.jobs = jobs
        self.selection = selection
        self.namesOnly = namesOnly
        self.recursive = recursive
        self.limits = limits
    }

    /// What a scan reports, in the order it is found.
    public enum Event: Sendable {
        /// A finding on disk (found, or removed unless dry) or inside an archive (found only).
        case found(MacMetadataFinding)
        /// Something on disk that could not be read or removed, or vanished (the walk goes on).
        case problem(FileTree.Problem)
        /// An entry of an archive that could not be read (the scan of it goes on).
        case archiveProblem(archive: TreePath, ArchiveProblem)
        /// An archive that could not be read to its end (missing, unreadable, damaged, over the limit).
        case archiveFailed(ArchiveError)
        /// A `__MACOSX` or `.AppleDouble` folder on disk that stays (or would) because something
        /// in it is kept; what goes in it is reported as any finding.
        case folderStays(MacMetadataFolderStay)
        /// The walk's counts so far.
        case progress(FileTree.Counts)
    }

    /// Walks every root (removing what it finds unless `dryRun`) and looks into every archive
    /// met, calling `visit` on the calling thread with each event until the end or
    /// `FileTree/Decision/stop`.
    @discardableResult
    public func run(dryRun: Bool, _ visit: (Event) -> FileTree.Decision) -> FileTree.Counts {
        var stopped = false
        let tree = MacMetadataTree(roots: roots, jobs: jobs, selection: selection, namesOnly: namesOnly, recursive: recursive)
        return tree.walk(dryRun: dryRun, archives: { archive in
            guard let scanner = MacMetadataArchive(path: archive, selection: selection, limits: limits) else { return .proceed }
            do throws(ArchiveError) {
                try scanner.scan { event in
                    let decision: FileTree.Decision
                    switch event {
                    case .found(let finding): decision = visit(.found(finding))
                    case .problem(let problem): decision = visit(.archiveProblem(archive: archive, problem))
                    }
                    if decision == .stop { stopped = true }
                    return decision
                }
            } catch {
                if visit(.archiveFailed(error)) == .stop { stopped = true }
            }
            return stopped ? .stop : .proceed
        }) { event in
            switch event {
            case .found(let record):
                for finding in record.findings where visit(.found(finding)) == .stop { return .stop }
                for stay in record.stays where visit(.folderStays(stay)) == .stop { return .stop }
                return .proceed
            case .problem(let problem):
                return visit(.problem(problem))
            case .progress(let counts):
                return visit(.progress(counts))
            }
        }
    }
}
