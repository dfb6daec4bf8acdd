import XDocSource
import XDocSourceArchive
import XDSWalk

/// `xds strip --mac-metadata ARCHIVE -o CLEAN` (SPEC §6 "Before publishing"): the clean copy
/// also leaves out the Mac metadata of a ``MacMetadataSelection``, and its dry run is the one
/// producer of what `xds check` and `strip -n --mac-metadata` report inside archives, so that
/// they name exactly what the copy drops.
///
/// What goes (each only when its word is selected):
/// - entries, whole and unread: `__MACOSX/` and everything in it, folder entries included
///   (macOS Archive Utility); `._NAME` entries whatever they hold (AppleDouble, RFC 1740);
///   `.DS_Store`; `.AppleDouble/` folders (Netatalk 2) and what is in them; a `._NAME` folder
///   and what is in it; Explorer's `NAME:Zone.Identifier` files (a name Windows cannot
///   extract). A `._NAME` file holding a mark of a kind kept is read and rebuilt to
///   hold only what is kept (no Finder info, no resource fork; the copy keeps the folders it is
///   in): it is then not Mac metadata, nor the `__MACOSX/` it stays in. With `sidecar` kept
///   (or `macosx-folder`, under `__MACOSX/`) a `._` entry stays, without its marks and Apple
///   attributes.
/// - tar pax records (`x`, `g`, `X` headers): marks in either spelling, Apple attributes
///   (`SCHILY.xattr.` or `LIBARCHIVE.xattr.` of `com.apple.*` that is not a mark, any prefix),
///   the keywords of ``MacMetadata/isMacPaxKeyword(_:)``; a `LIBARCHIVE.xattr.NAME` record of
///   any other attribute is rewritten as `SCHILY.xattr.NAME` (ArchiveCopy's
///   `Filter.rewritesLibarchiveXattr`: libarchive's archive_write_set_format_pax.c writes both
///   spellings, GNU tar 1.34 reads only `SCHILY.xattr.`, "Extended Header Keywords" in its
///   manual), or dropped when its `SCHILY.xattr.` twin is there.
extension ArchiveCleaner {
    /// The filter of a ``MacMetadataSelection``: its marks, Apple attributes, pax keywords and
    /// entries (see the extension's summary).
    public static func macMetadataFilter(_ selection: MacMetadataSelection) -> ArchiveCopy.Filter {
        let dropsAttribute: @Sendable (String) -> Bool = { name in
            let bytes = Array(name.utf8)
            if let match = ProvenanceNames.match(plainName: bytes) { return selection.removes(match.kind) }
            return selection.removes(.appleAttribute) && MacMetadata.isAppleAttribute(plainName: bytes)
        }
        let dropsPaxKeyword: @Sendable ([UInt8]) -> Bool = { keyword in
            switch MacMetadata.what(paxKeyword: keyword) {
            case .mark?:
                guard let match = ProvenanceNames.match(paxKeyword: keyword) else { return false }
                return selection.removes(match.kind)
            case .appleAttribute?:
                return selection.removes(.appleAttribute)
            case .paxRecord?:
                // The other `LIBARCHIVE.xattr.` records are rewritten by the copier.
                return selection.removes(.paxRecord) && MacMetadata.isMacPaxKeyword(keyword)
            default:
                return false
            }
        }
        var rule: (@Sendable ([UInt8], Bool) -> ArchiveCopy.EntryRule)?
        if !selection.whats.isEmpty {
            rule = { name, isFolder in entryRule(selection, name: name, isFolder: isFolder) }
        }
        return ArchiveCopy.Filter(dropsAttribute: dropsAttribute, dropsPaxKeyword: dropsPaxKeyword, entryRule: rule,
                                  rewritesLibarchiveXattr: selection.removes(.paxRecord))
    }

    /// What becomes of an archive entry named `name` under `selection`.
    static func entryRule(_ selection: MacMetadataSelection, name: [UInt8], isFolder: Bool) -> ArchiveCopy.EntryRule {
        let components = name.split(separator: UInt8(ascii: "/"))
        guard let last = components.last else { return .copy }
        let keeps: @Sendable (String) -> Bool = { attribute in
            ProvenanceNames.match(plainName: Array(attribute.utf8)).map { !selection.removes($0.kind) } ?? false
        }
        let isSidecarFile = !isFolder && MacMetadata.what(fileName: last) == .sidecar
        if components.contains(where: { $0.elementsEqual(macOSX) }) {
            guard selection.removes(.macOSXFolder) else { return .copy }
            return isSidecarFile && !selection.removesEveryKind ? .dropUnlessHolding(keeps) : .drop
        }
        for component in components.dropLast() {
            if let what = MacMetadata.what(fileName: component), what != .zoneFile, selection.removes(what) { return .drop }
        }
        switch MacMetadata.what(fileName: last) {
        case .dsStore?, .appleDoubleFolder?:
            return selection.removes(MacMetadata.what(fileName: last)!) ? .drop : .copy
        case .zoneFile?:
            // A file only (a folder of that name is not Explorer's, as on disk).
            return !isFolder && selection.removes(.zoneFile) ? .drop : .copy
        case .sidecar?:
            guard selection.removes(.sidecar) else { return .copy }
            return isSidecarFile && !selection.removesEveryKind ? .dropUnlessHolding(keeps) : .drop
        default:
            return .copy
        }
    }

    private static let macOSX = Array("__MACOSX".utf8)

    /// What a Mac metadata dry run finds, in archive order.
    public enum MacMetadataEvent: Sendable, Equatable {
        /// What the copy would drop: a `__MACOSX` folder once (member `__MACOSX`, or
        /// `DIR/__MACOSX`), a `._NAME`, `.DS_Store` or `.AppleDouble` entry or folder by its
        /// own name, once; the marks (one per kind and member, store zip or tar) and Apple
        /// attributes (one per name) of a `._` entry that stays or of a member's pax records
        /// under the member; `pax-record KEYWORD` per other pax record dropped or rewritten.
        case found(MacMetadataFinding)
        /// A `._` entry the copy would leave out unread.
        case unreadable(entry: TreePath, reason: ArchiveCopy.UnreadableReason)
    }

    /// Reads the archive exactly as ``write(to:observe:)`` does with ``selection`` (a cleaner
    /// made without one: its ``kinds`` alone), writes nothing, and calls `visit` with what
    /// the copy would leave out, as ``MacMetadataEvent``: what `xds check` reports.
    ///
    /// - Throws: ``ArchiveCleanerError/archive(_:)`` where the copy would fail reading.
    @discardableResult
    public func macMetadataDryRun(_ visit: (MacMetadataEvent) -> Void) throws(ArchiveCleanerError) -> ArchiveCopy.Report {
        let selection = self.selection ?? MacMetadataSelection(kinds: kinds, whats: [])
        let store: ProvenanceStore = copy.kind == .zip ? .zip : .tar
        var named = Set<[UInt8]>()
        let archive = self.archive
        func found(_ member: TreePath, _ what: MacMetadata.What, kind: ProvenanceKind? = nil, name: String? = nil) {
            visit(.found(MacMetadataFinding(file: archive, member: member, what: what, kind: kind, store: kind == nil ? nil : store, name: name)))
        }
        func marks(_ member: TreePath, _ found: [(name: String, match: ProvenanceNames.Match)]) {
            for location in ProvenanceMarkLocation.grouped(store: store, found) {
                visit(.found(MacMetadataFinding(file: archive, member: member, what: .mark, kind: location.kind, store: store)))
            }
        }
        do throws(ArchiveCopyError) {
            return try copy.dryRun(filter: Self.macMetadataFilter(selection)) { event in
                switch event {
                case .entry(let entry):
                    let (member, what) = Self.macMetadataEntry(entry.bytes, selection)
                    if named.insert(member).inserted { found(TreePath(bytes: member), what) }
                case .attributes(let member, _, let names):
                    var found_: [(name: String, match: ProvenanceNames.Match)] = []
                    var apple: [String] = []
                    for name in names {
                        let bytes = Array(name.utf8)
                        if let match = ProvenanceNames.match(plainName: bytes) {
                            if selection.removes(match.kind) { found_.append((name, match)) }
                        } else if !apple.contains(name) {
                            apple.append(name)
                        }
                    }
                    marks(member, found_)
                    for name in apple { found(member, .appleAttribute, name: name) }
                case .paxRecords(let member, let keywords):
                    var found_: [(name: String, match: ProvenanceNames.Match)] = []
                    var apple: [String] = [], records: [String] = []
                    for keyword in keywords {
                        let text = String(decoding: keyword, as: UTF8.self)
                        if let match = ProvenanceNames.match(paxKeyword: keyword), selection.removes(match.kind) {
                            found_.append((text, match))
                        } else if MacMetadata.what(paxKeyword: keyword) == .appleAttribute, selection.removes(.appleAttribute),
                                  let name = MacMetadata.schilyAttributeName(paxKeyword: keyword) {
                            let shown = String(decoding: name, as: UTF8.self)
                            if !apple.contains(shown) { apple.append(shown) }
                        } else if !records.contains(text) {
                            records.append(text)
                        }
                    }
                    marks(member, found_)
                    for name in apple { found(member, .appleAttribute, name: name) }
                    for keyword in records { found(member, .paxRecord, name: keyword) }
                case .unreadable(let entry, let reason):
                    visit(.unreadable(entry: entry, reason: reason))
                }
            }
        } catch {
            switch error {
            case .archive(let archiveError): throw .archive(archiveError)
            case .output(let words, let number): throw .output(path: "-", message: "cannot write: \(words)", errorNumber: number)
            }
        }
    }

    /// What an entry left out by the rule is reported as: the first component of its path
    /// that is Mac metadata of the selection (`__MACOSX`, `._NAME`, `.DS_Store`, `.AppleDouble`,
    /// `NAME:Zone.Identifier`),
    /// with the path up to it.
    static func macMetadataEntry(_ path: [UInt8], _ selection: MacMetadataSelection) -> (member: [UInt8], what: MacMetadata.What) {
        let components = path.split(separator: UInt8(ascii: "/"))
        var member: [UInt8] = []
        for component in components {
            if !member.isEmpty { member.append(UInt8(ascii: "/")) }
            member += component
            if component.elementsEqual(macOSX), selection.removes(.macOSXFolder) { return (member, .macOSXFolder) }
            if let what = MacMetadata.what(fileName: component), what != .macOSXFolder, selection.removes(what) {
                return (member, what)
            }
        }
        return (member, .sidecar)
    }
}
