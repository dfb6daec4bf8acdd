#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDocSource
import XDocSourceArchive
import XDSWalk

/// A clean copy of a zip or tar archive: the archive without the marks of
/// ``ProvenanceNames`` (SPEC §6, `xds strip ARCHIVE -o CLEAN|-`), everything else as it was.
///
/// - zip: `__MACOSX/` and `._` entries that hold only marks are left out (and `__MACOSX/`
///   folders left empty); one that holds something else too (Finder tags, Finder info, a
///   resource fork) is rewritten without the marks. Every other member is copied compressed as
///   it is (its local header, data, data descriptor and CRC), with the bytes in front (a
///   self-extracting stub) and the comment.
/// - tar (plain or compressed, the compression found by its magic bytes): pax records of marks
///   (`SCHILY.xattr.NAME`, `LIBARCHIVE.xattr.NAME`, NAME with or without `user.`) are left out,
///   their header rewritten (or left out when empty); `._NAME` entries as in zips. Every other
///   header and data block is copied as it is, under the same compression.
///
/// Which marks: the ``kinds`` given (all by default; `--only`/`--keep` narrow them), by the
/// names ``ProvenanceNames`` knows (``ProvenanceNames/match(plainName:)`` for AppleDouble
/// entries, ``ProvenanceNames/match(paxKeyword:)`` for pax records). The archive is read
/// through XDocSourceArchive's `ArchiveCopy` (bounded, see there) and never written; the
/// copy is written whole or not at all. A `._` entry that cannot be read (`ArchiveCopy`'s
/// `UnreadableReason`: a compression method not read, encrypted, damaged, over 64 MiB) is left
/// out whole, and said to the caller: a clean copy never keeps what it could not look into.
/// ``dryRun(_:)`` reads the archive as the copy does and lists what would go.
///
/// Made with ``init(archive:macMetadata:limits:)`` (`strip --mac-metadata ARCHIVE -o`), the
/// copy also leaves out the Mac metadata of a ``MacMetadataSelection`` — `__MACOSX/`, `._`,
/// `.DS_Store` and `.AppleDouble/` entries, the pax records GNU tar does not read, with
/// `LIBARCHIVE.xattr.` records of other attributes rewritten as `SCHILY.xattr.` — and
/// ``macMetadataDryRun(_:)`` is what `xds check` reports inside archives.
///
/// ```swift
/// let cleaner = ArchiveCleaner(archive: "release.tar.gz")!
/// let report = try cleaner.write(to: "release-clean.tar.gz")
/// print(report.changed ? "marks removed" : "no marks")
/// ```
public struct ArchiveCleaner: Sendable {
    /// The archive read.
    public let archive: TreePath
    /// The kinds of marks left out.
    public let kinds: Set<ProvenanceKind>
    /// The bounds of the read (`ArchiveScanner.Limits.maximumDecompressedSize` is
    /// `--archive-limit`).
    public var limits: ArchiveScanner.Limits

    /// With `--mac-metadata`: what goes besides the marks (``kinds`` is its kinds).
    public let selection: MacMetadataSelection?

    var copy: ArchiveCopy

    /// A cleaner of the archive at `archive`, or nil when its name is not an archive's
    /// (`ArchiveKind(fileName:)`: `.zip`, `.textpack`, `.tar` and its compressed forms).
    public init?(archive: TreePath, kinds: Set<ProvenanceKind> = Set(ProvenanceKind.allCases),
                 limits: ArchiveScanner.Limits = .init()) {
        guard let copy = ArchiveCopy(path: archive, limits: limits) else { return nil }
        self.archive = archive
        self.kinds = kinds
        self.limits = limits
        self.copy = copy
        self.selection = nil
    }

    /// A cleaner that also leaves out the Mac metadata of `selection` (`xds strip
    /// --mac-metadata ARCHIVE -o CLEAN`, ``macMetadataFilter(_:)``), or nil when the name is not an
    /// archive's.
    public init?(archive: TreePath, macMetadata selection: MacMetadataSelection,
                 limits: ArchiveScanner.Limits = .init()) {
        guard let copy = ArchiveCopy(path: archive, limits: limits) else { return nil }
        self.archive = archive
        self.kinds = selection.kinds
        self.limits = limits
        self.copy = copy
        self.selection = selection
    }

    /// `init(archive:kinds:limits:)` for a path given as text.
    public init?(archive: String, kinds: Set<ProvenanceKind> = Set(ProvenanceKind.allCases),
                 limits: ArchiveScanner.Limits = .init()) {
        self.init(archive: TreePath(archive), kinds: kinds, limits: limits)
    }

    /// What the copy leaves out: AppleDouble attributes and pax records of ``kinds``; with a
    /// ``selection``, ``macMetadataFilter(_:)``.
    public var filter: ArchiveCopy.Filter {
        if let selection { return Self.macMetadataFilter(selection) }
        let kinds = self.kinds
        return ArchiveCopy.Filter(
            dropsAttribute: { name in
                ProvenanceNames.match(plainName: Array(name.utf8)).map { kinds.contains($0.kind) } ?? false
            },
            dropsPaxKeyword: { keyword in
                ProvenanceNames.match(paxKeyword: keyword).map { kinds.contains($0.kind) } ?? false
            })
    }

    /// What a dry run finds, in archive order.
    public enum Finding: Sendable, Equatable {
        /// A mark the copy would leave out: of `kind`, about `member` (the member the mark
        /// describes, as `xds where` names it), in `store` (``ProvenanceStore/zip`` or
        /// ``ProvenanceStore/tar``). One per kind and member (consecutive entries for one member,
        /// a tar's `._NAME` then NAME, make one), in ``ProvenanceKind`` order.
        case mark(member: TreePath, kind: ProvenanceKind, store: ProvenanceStore)
        /// A `._` entry the copy would leave out unread, by its own name.
        case unreadable(entry: TreePath, reason: ArchiveCopy.UnreadableReason)
    }

    /// Reads the archive exactly as ``write(to:observe:)`` does, writes nothing, and calls
    /// `visit` with each mark the copy would leave out and each entry it would leave out unread
    /// (`xds strip -n ARCHIVE`).
    ///
    /// - Throws: ``ArchiveCleanerError/archive(_:)`` where the copy would fail reading (no
    ///   copy would be written: missing, damaged, the archive limit, a library not loaded).
    @discardableResult
    public func dryRun(_ visit: (Finding) -> Void) throws(ArchiveCleanerError) -> ArchiveCopy.Report {
        let kinds = self.kinds
        let store: ProvenanceStore = copy.kind == .zip ? .zip : .tar
        var member: TreePath?
        var found = Set<ProvenanceKind>()
        func flush() {
            if let member {
                for kind in ProvenanceKind.allCases where found.contains(kind) { visit(.mark(member: member, kind: kind, store: store)) }
            }
            member = nil
            found = []
        }
        func add(_ name: TreePath, _ matches: [ProvenanceKind]) {
            if member != name { flush() }
            member = name
            found.formUnion(matches.filter { kinds.contains($0) })
        }
        let report: ArchiveCopy.Report
        do throws(ArchiveCopyError) {
            report = try copy.dryRun(filter: filter) { event in
                switch event {
                case .attributes(let name, _, let names):
                    add(name, names.compactMap { ProvenanceNames.match(plainName: Array($0.utf8))?.kind })
                case .paxRecords(let name, let keywords):
                    add(name, keywords.compactMap { ProvenanceNames.match(paxKeyword: $0)?.kind })
                case .unreadable(let entry, let reason):
                    flush()
                    visit(.unreadable(entry: entry, reason: reason))
                case .entry:
                    flush()  // (only with a selection: see macMetadataDryRun)
                }
            }
        } catch {
            flush()
            switch error {
            case .archive(let archiveError): throw .archive(archiveError)
            case .output(let words, let number): throw .output(path: "-", message: "cannot write: \(words)", errorNumber: number)
            }
        }
        flush()
        return report
    }

    /// Whether `output` names the archive itself (the same path, a link to it, another name of
    /// the same file): the copy is refused there.
    public func isArchive(itself output: String) -> Bool {
        guard let identity = copy.identity() else { return false }
        var info = stat()
        return stat(output, &info) == 0 && UInt64(info.st_dev) == identity.device && UInt64(info.st_ino) == identity.inode
    }

    /// Writes the clean copy to `output`, atomically (a temporary file beside it, renamed into
    /// place; removed on failure, so nothing is left behind). The copy is written whether or
    /// not the archive held marks. A symbolic link at `output` is replaced by the copy, never
    /// followed (SPEC §6); a FIFO or a device there is written into. `observe` hears each entry
    /// left out unread, as it is met (`xds` warns: the copy is clean without it).
    ///
    /// - Throws: ``ArchiveCleanerError/sameFile(_:)`` when `output` names the archive (the same
    ///   path, a link to it or another name of the same file); ``ArchiveCleanerError/archive(_:)``
    ///   when the archive cannot be read to its end; ``ArchiveCleanerError/output(path:message:errorNumber:)``
    ///   when `output` cannot be written.
    @discardableResult
    public func write(to output: String, observe: (ArchiveCopy.Event) -> Void = { _ in }) throws(ArchiveCleanerError) -> ArchiveCopy.Report {
        if isArchive(itself: output) { throw .sameFile(output) }
        // A link is replaced, not followed: a copy must not land wherever a link points. (Only
        // a link: a FIFO or device there is still written into, never renamed over.)
        var linkInfo = stat()
        let isLink = lstat(output, &linkInfo) == 0 && linkInfo.st_mode & S_IFMT == S_IFLNK
        var file: AtomicFile
        let descriptor: Int32
        do throws(AtomicFileError) {
            file = try AtomicFile.begin(output, options: .init(replacingLinks: isLink))
            descriptor = try file.streamingDescriptor()
        } catch {
            throw .output(path: output, message: error.message, errorNumber: error.errorNumber)
        }
        let report: ArchiveCopy.Report
        do throws(ArchiveCopyError) {
            report = try copy.write(to: descriptor, filter: filter, observe: observe)
        } catch {
            file.discard()
            switch error {
            case .archive(let archiveError): throw .archive(archiveError)
            case .output(let words, let number):
                throw .output(path: output, message: "cannot write: \(words)", errorNumber: number)
            }
        }
        do throws(AtomicFileError) { try file.commitStreamed() } catch {
            throw .output(path: output, message: error.message, errorNumber: error.errorNumber)
        }
        return report
    }

    /// Writes the clean copy to the open descriptor `descriptor` (standard output for `-o -`),
    /// from its current position. On failure part of it may have been written.
    ///
    /// - Throws: ``ArchiveCleanerError/sameFile(_:)`` when the descriptor is open on the
    ///   archive itself; ``ArchiveCleanerError/archive(_:)`` or
    ///   ``ArchiveCleanerError/output(path:message:errorNumber:)`` (its path `name`).
    @discardableResult
    public func write(toDescriptor descriptor: Int32, name: String = "-",
                      observe: (ArchiveCopy.Event) -> Void = { _ in }) throws(ArchiveCleanerError) -> ArchiveCopy.Report {
        // `xds strip a.tar -o - >> a.tar` would read what it writes, without end.
        var info = stat()
        if let identity = copy.identity(), fstat(descriptor, &info) == 0,
           UInt64(info.st_dev) == identity.device, UInt64(info.st_ino) == identity.inode {
            throw .sameFile(name)
        }
        do throws(ArchiveCopyError) {
            return try copy.write(to: descriptor, filter: filter, observe: observe)
        } catch {
            switch error {
            case .archive(let archiveError): throw .archive(archiveError)
            case .output(let words, let number):
                throw .output(path: name, message: "cannot write: \(words)", errorNumber: number)
            }
        }
    }
}

/// Why ``ArchiveCleaner`` wrote no copy.
public enum ArchiveCleanerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The output names the archive itself (SPEC §5: a usage error, 64): archives are never
    /// rewritten in place.
    case sameFile(String)
    /// The archive could not be read to its end (`ArchiveError.kind` gives the status:
    /// missing 66, unreadable 74, damaged or past the archive limit 65).
    case archive(ArchiveError)
    /// The copy could not be written (74): the output's path as given, the words
    /// ("cannot write: no space left on device") and the `errno`.
    case output(path: String, message: String, errorNumber: Int32)

    /// One line naming the file.
    public var description: String {
        switch self {
        case .sameFile(let output):
            "\(VisibleText.escaped(output)): is the archive itself; a clean copy needs another name"
        case .archive(let error): error.description
        case .output(let path, let message, _): "\(VisibleText.escaped(path)): \(message)"
        }
    }
}
