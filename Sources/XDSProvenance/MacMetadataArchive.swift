import XDocSource
import XDocSourceArchive
import XDSWalk

/// The marks and Mac metadata inside one zip or tar (SPEC §6 "Before publishing"), read without
/// extracting, as `xds check` reports them: what the archive reader gives (pax `SCHILY.xattr.` /
/// `LIBARCHIVE.xattr.` records, AppleDouble `._NAME` and `__MACOSX/` entries), under
/// `ProvenanceArchive`'s bounds.
///
/// Findings, in archive order: a `__MACOSX/` folder once (``MacMetadata/What/macOSXFolder``,
/// member `__MACOSX`), each other `._NAME` entry (``MacMetadata/What/sidecar``, the entry's own
/// name); for a `._` entry that stays (sidecars kept, or holding a kept mark) and for a pax
/// header, the marks of the selected kinds (one per kind, under the member they describe) and
/// the Apple attributes (one per name).
///
/// Not yet: pax records without an attribute (`LIBARCHIVE.creationtime`, `SCHILY.fflags`, …)
/// and a `._` entry holding no attribute (only Finder info or a resource fork): the archive
/// reader does not hand them over; the archive side of `strip --mac-metadata` reads them.
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

    /// Reads every header, calling `visit` with each finding and problem in archive order.
    /// - Throws: `ArchiveError` as `ArchiveScanner/scan(_:)` (missing 66, unreadable 74,
    ///   damaged or over the archive limit 65).
    public func scan(_ visit: (Event) -> FileTree.Decision) throws(ArchiveError) {
        guard let scanner = ArchiveScanner(path: path, limits: limits) else { return }
        let store: ProvenanceStore = scanner.kind == .zip ? .zip : .tar
        var reportedMacOSX = false
        var reportedEntries = Set<[UInt8]>()
        try scanner.scanAttributes(named: { _, _ in true }) { event in
            switch event {
            case .problem(let problem):
                return visit(.problem(problem))
            case .attributes(let record):
                for finding in findings(record, store: store, reportedMacOSX: &reportedMacOSX, reportedEntries: &reportedEntries) {
                    if visit(.found(finding)) == .stop { return .stop }
                }
                return .proceed
            }
        }
    }

    /// The findings of one entry's attributes.
    private func findings(
        _ record: ArchiveMemberAttributes, store: ProvenanceStore, reportedMacOSX: inout Bool, reportedEntries: inout Set<[UInt8]>
    ) -> [MacMetadataFinding] {
        var result: [MacMetadataFinding] = []
        var marks: [(name: String, match: ProvenanceNames.Match)] = []
        var apple: [String] = []
        var holdsKeptMark = false
        for attribute in record.attributes {
            let match: ProvenanceNames.Match?
            let isApple: Bool
            switch record.origin {
            case .appleDouble:
                match = ProvenanceNames.match(plainName: attribute.name)
                isApple = match == nil && MacMetadata.isAppleAttribute(plainName: attribute.name)
            case .paxHeader:
                match = ProvenanceNames.match(paxKeyword: Array("SCHILY.xattr.".utf8) + attribute.name)
                isApple = match == nil && MacMetadata.isAppleAttribute(attributeName: attribute.name)
            }
            let text = String(decoding: attribute.name, as: UTF8.self)
            if let match {
                if selection.removes(match.kind) { marks.append((text, match)) } else { holdsKeptMark = true }
            } else if isApple, selection.removes(.appleAttribute) {
                apple.append(text)
            }
        }
        if record.origin == .appleDouble, !holdsKeptMark {
            // The entry itself is Mac metadata: named once, its contents not listed again.
            let what = MacMetadata.what(entryPath: record.entry.bytes) ?? .sidecar
            if what == .macOSXFolder, selection.removes(.macOSXFolder) {
                if !reportedMacOSX {
                    reportedMacOSX = true
                    result.append(MacMetadataFinding(file: path, member: TreePath("__MACOSX"), what: .macOSXFolder))
                }
                return result
            }
            if what != .macOSXFolder, selection.removes(.sidecar) {
                if reportedEntries.insert(record.entry.bytes).inserted {
                    result.append(MacMetadataFinding(file: path, member: record.entry, what: .sidecar))
                }
                return result
            }
        }
        for location in ProvenanceMarkLocation.grouped(store: store, marks) {
            result.append(MacMetadataFinding(file: path, member: record.name, what: .mark, kind: location.kind, store: store))
        }
        for name in apple {
            result.append(MacMetadataFinding(file: path, member: record.name, what: .appleAttribute, name: name))
        }
        return result
    }
}
