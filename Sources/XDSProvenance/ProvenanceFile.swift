import XDocSource
import XDSWalk

/// Every mark of where one file or folder came from, in every store (SPEC §6), read and
/// stripped: what `xds where FILE` and `xds strip FILE` do.
///
/// The stores, in the order marks are listed:
/// 1. ``ProvenanceStore/xattr``: native extended attributes, listed once (`listxattr`) and
///    matched with ``ProvenanceNames/match(attributeName:)`` (`user.`, `osx.`, Netatalk's
///    `user.com.apple.…`, ntfs-3g's `user.Zone.Identifier`; plain names on Darwin);
/// 2. ``ProvenanceStore/sambaStream``: Samba's `user.DosStream.NAME:$DATA` attributes from the
///    same listing (U+F022 for `:`, the trailing NUL taken off);
/// 3. ``ProvenanceStore/appleDouble``: the entries of the sidecar `._NAME`, found relative to
///    its folder, opened only when it is a regular file (`O_NOFOLLOW`), never followed outside it;
/// 4. ``ProvenanceStore/zoneFile``: Explorer's `NAME:Zone.Identifier` beside the path (a
///    regular file only, at most 64 KiB read, never followed).
///
/// Within a store marks come in ``ProvenanceNames/table`` order; every xdg attribute of one
/// store makes one mark. Each value is bounded before it is read (``ProvenanceDecoder``) and a
/// value that does not decode is a mark with ``ProvenanceMark/Content/undecodable(_:)`` content.
///
/// ```swift
/// for mark in try ProvenanceFile(path: "setup.dmg").read() {
///     print(mark.kind, mark.store, mark.name)
/// }
/// ```
public struct ProvenanceFile: Sendable {
    /// The path as given.
    public let path: String
    /// Whether a symbolic link at ``path`` is followed (the default) or read itself (Linux
    /// lets a link carry no `user.` attribute; its sidecar and zone file are those beside the link).
    public let followSymlinks: Bool

    /// Names the marks of the file or folder at `path`.
    public init(path: String, followSymlinks: Bool = true) {
        self.path = path
        self.followSymlinks = followSymlinks
    }

    /// The `x-document-source` file of the same path: XDocSource's stores and wording.
    private var file: DocumentSourceFile { DocumentSourceFile(path: path, followSymlinks: followSymlinks) }

    // MARK: - Reading

    /// Every mark, store order xattr, samba-stream, appledouble (`._NAME`), zone-file
    /// (`NAME:Zone.Identifier`); within a store in ``ProvenanceNames/table`` order.
    ///
    /// A value that does not decode is a mark with ``ProvenanceMark/Content/undecodable(_:)``
    /// content, not an error.
    /// - Throws: `FileAccessError`: `FileAccessError/Kind/notFound` when the
    ///   path does not exist, `FileAccessError/Kind/malformedSidecar` when `._NAME`
    ///   is not AppleDouble, the I/O kinds when an attribute or file cannot be read.
    public func read() throws(FileAccessError) -> [ProvenanceMark] {
        var thrown: [FileAccessError]?
        return try marks(problems: &thrown)
    }

    /// ``read()``, but a store that cannot be read while the others can (a sidecar `._NAME`
    /// that is not AppleDouble: `FileAccessError/Kind/malformedSidecar`) is added to
    /// `problems` and the other stores' marks are returned, as `xds where` shows them (status
    /// 65 at the end). A path that does not exist, or an attribute that cannot be read, still throws.
    public func read(problems: inout [FileAccessError]) throws(FileAccessError) -> [ProvenanceMark] {
        var kept: [FileAccessError]? = []
        defer { problems += kept ?? [] }
        return try marks(problems: &kept)
    }

    private func marks(problems: inout [FileAccessError]?) throws(FileAccessError) -> [ProvenanceMark] {
        ProvenanceReading.marks(try locate(kinds: nil, readValues: true, problems: &problems).values)
    }

    // MARK: - Stripping

    /// Removes the marks of `kinds` from every store and returns what went (or, with
    /// `dryRun`, would go: nothing is changed), one ``ProvenanceMarkLocation`` per kind and
    /// store, in ``read()``'s order.
    ///
    /// Attributes and Samba streams are removed one by one; the sidecar `._NAME` loses every
    /// entry of `kinds` in one edit and one atomic write (every other entry byte-exact) and is
    /// deleted only when nothing else is left in it (no other attribute entry, Finder info
    /// all zero, an empty resource fork); a `NAME:Zone.Identifier` file is deleted. All of it
    /// happens under the writers' lock of the file (the one `xds set` and `remove` take).
    /// Every store is tried even when one fails; the first failure is then thrown.
    /// - Throws: `FileAccessError`, as ``read()`` does, and the I/O kinds when a
    ///   store refuses (a malformed sidecar is left as it was: `FileAccessError/Kind/malformedSidecar`).
    @discardableResult
    public func strip(_ kinds: Set<ProvenanceKind>, dryRun: Bool) throws(FileAccessError) -> [ProvenanceMarkLocation] {
        guard !kinds.isEmpty else { return [] }
        var none: [FileAccessError]?
        if dryRun { return try locate(kinds: kinds, readValues: false, problems: &none).locations }
        return try file.withWriterLock { () throws(FileAccessError) -> [ProvenanceMarkLocation] in
            var none: [FileAccessError]?
            let found = try locate(kinds: kinds, readValues: false, problems: &none)
            var removed: [ProvenanceMarkLocation] = []
            var firstFailure: FileAccessError?
            // The sidecar's marks of every kind go in one edit and one write, when its first
            // location comes (it was rewritten once per kind); nil: not tried yet.
            let sidecarNames = Set(found.locations.filter { $0.store == .appleDouble }.flatMap(\.names))
            var sidecarChanged: Bool?
            for location in found.locations {
                do throws(FileAccessError) {
                    if location.store == .appleDouble {
                        if sidecarChanged == nil {
                            sidecarChanged = false
                            sidecarChanged = try file.removeSidecarEntriesLocked(sidecarNames)
                        }
                        if sidecarChanged == true { removed.append(location) }
                    } else if try remove(location) {
                        removed.append(location)
                    }
                } catch {
                    if firstFailure == nil { firstFailure = error }
                }
            }
            if let firstFailure { throw firstFailure }
            return removed
        }
    }

    /// Removes the marks at `location`; false when they were gone already.
    private func remove(_ location: ProvenanceMarkLocation) throws(FileAccessError) -> Bool {
        switch location.store {
        case .xattr, .sambaStream:
            var any = false
            var firstFailure: FileAccessError?
            for name in location.names {
                do throws(FileAccessError) {
                    if try file.removeAttributeLocked(named: name) { any = true }
                } catch {
                    if firstFailure == nil { firstFailure = error }
                }
            }
            if let firstFailure { throw firstFailure }
            return any
        case .appleDouble:
            return try file.removeSidecarEntriesLocked(Set(location.names))  // strip(_:dryRun:) does them all at once
        case .zoneFile:
            return try file.removeFileBeside { Self.zoneFileName(for: $0) }
        case .zip, .tar:
            return false
        }
    }

    // MARK: - Finding

    /// What ``locate(kinds:readValues:problems:)`` found: the values (read only when asked) and
    /// the locations per kind and store.
    private struct Found {
        var values: ProvenanceReading.Found
        var locations: [ProvenanceMarkLocation]
    }

    /// Finds the marks of `kinds` (nil: every kind) in every store, through the marks' one
    /// reading function; reads their values when `readValues`. A malformed sidecar goes to
    /// `problems` when the caller keeps them (else it is thrown).
    private func locate(
        kinds: Set<ProvenanceKind>?, readValues: Bool, problems: inout [FileAccessError]?
    ) throws(FileAccessError) -> Found {
        var kept: [FileAccessError]? = problems
        defer { problems = kept }
        let values = try ProvenanceReading.find(
            in: ProvenancePathSource(file: file), kinds: kinds, readValues: readValues
        ) { (error) throws(FileAccessError) in
            guard kept != nil else { throw error }
            kept?.append(error)
        }
        return Found(values: values, locations: ProvenanceReading.locations(values))
    }

    /// `NAME:Zone.Identifier` for the file name NAME (text: SidecarFolder names are text).
    static func zoneFileName(for name: String) -> String {
        String(decoding: ProvenanceNames.zoneFileName(for: Array(name.utf8)), as: UTF8.self)
    }
}
