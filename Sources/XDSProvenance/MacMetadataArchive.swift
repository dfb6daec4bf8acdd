import XDocSource
import XDocSourceArchive
import XDSWalk

/// The marks and Mac metadata inside one zip or tar (SPEC §6 "Before publishing"), read without
/// extracting, as `xds check` reports them: exactly what `xds strip --mac-metadata ARCHIVE -o
/// CLEAN` would drop, from the clean copy's own dry run (``ArchiveCleaner/macMetadataDryRun(_:)``),
/// so that `check` and the copy never disagree.
///
/// Findings, in archive order: a `__MACOSX` folder once (``MacMetadata/What/macOSXFolder``,
/// member `__MACOSX`), each other `._NAME`, `.DS_Store` and `.AppleDouble` entry or folder by its
/// own name; for a `._` entry that stays (sidecars kept, or holding a kept mark) and for a
/// member's pax records, the marks of the selected kinds (one per kind, under the member they
/// describe), the Apple attributes (one per name) and `pax-record KEYWORD` per other record
/// dropped (`LIBARCHIVE.creationtime`, `SCHILY.fflags`, …) or rewritten (`LIBARCHIVE.xattr.NAME`
/// of another attribute). A `._` entry the copy would drop unread is a problem (65).
public struct MacMetadataArchive: Sendable {
    /// The archive's path, exact bytes.
    public let path: TreePath
    /// What is reported.
    public var selection: MacMetadataSelection
    /// The bounds, as `where`'s (`--archive-limit`).
    public var limits: ArchiveScanner.Limits

    /// The archive at `path`, or nil when its name is not an archive's.
    public init?(path: TreePath, selection: MacMetadataSelection, limits: ArchiveScanner.Limits = ArchiveScanner.Limits()) {
        guard ArchiveKind(fileName: path.bytes) != nil else { return nil }
        self.path = path
        self.selection = selection
        self.limits = limits
    }

    /// What a scan reports.
    public enum Event: Sendable {
        /// One finding.
        case found(MacMetadataFinding)
        /// An entry that could not be read (the scan goes on): bad data (65).
        case problem(ArchiveProblem)
    }

    /// Reads the archive as the clean copy does, calling `visit` with each finding and problem
    /// in archive order (after `.stop`, nothing more is said).
    /// - Throws: `ArchiveError` where the copy would fail reading (missing 66, unreadable 74,
    ///   damaged or over the archive limit 65).
    public func scan(_ visit: (Event) -> FileTree.Decision) throws(ArchiveError) {
        guard let cleaner = ArchiveCleaner(archive: path, macMetadata: selection, limits: limits) else { return }
        var stopped = false
        do throws(ArchiveCleanerError) {
            try cleaner.macMetadataDryRun { event in
                guard !stopped else { return }
                switch event {
                case .found(let finding):
                    stopped = visit(.found(finding)) == .stop
                case .unreadable(let entry, let reason):
                    stopped = visit(.problem(Self.problem(entry, reason))) == .stop
                }
            }
        } catch {
            switch error {
            case .archive(let archiveError): throw archiveError
            case .sameFile, .output: throw ArchiveError(.unreadable, path: path, message: error.description)
            }
        }
    }

    /// An entry the copy would drop unread, as a problem in `check`'s words.
    static func problem(_ entry: TreePath, _ reason: ArchiveCopy.UnreadableReason) -> ArchiveProblem {
        switch reason {
        case .encrypted:
            ArchiveProblem(kind: .encrypted, entry: entry, message: "\(entry.visible) is encrypted: it cannot be read")
        case .tooLarge:
            ArchiveProblem(kind: .tooLarge, entry: entry, message: "\(entry.visible) cannot be read: \(reason)")
        case .compressionMethod, .damaged:
            // "compression method N" as its own words: `check --github` gives them as the reason.
            ArchiveProblem(kind: .unreadableEntry, entry: entry, message: "\(entry.visible) cannot be read: \(reason)")
        }
    }
}
