#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDocSource
import XDocSourceArchive

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
/// copy is written whole or not at all.
///
/// ```swift
/// let cleaner = ArchiveCleaner(archive: "release.tar.gz")!
/// let report = try cleaner.write(to: "release-clean.tar.gz")
/// print(report.changed ? "marks removed" : "no marks")
/// ```
public struct ArchiveCleaner: Sendable {
    /// The archive read.
    public let archive: DocumentSourceTreePath
    /// The kinds of marks left out.
    public let kinds: Set<ProvenanceKind>
    /// The bounds of the read (`ArchiveScanner.Limits.maximumDecompressedSize` is
    /// `--archive-limit`).
    public var limits: ArchiveScanner.Limits

    private var copy: ArchiveCopy

    /// A cleaner of the archive at `archive`, or nil when its name is not an archive's
    /// (`ArchiveKind(fileName:)`: `.zip`, `.textpack`, `.tar` and its compressed forms).
    public init?(archive: DocumentSourceTreePath, kinds: Set<ProvenanceKind> = Set(ProvenanceKind.allCases),
                 limits: ArchiveScanner.Limits = .init()) {
        guard let copy = ArchiveCopy(path: archive, limits: limits) else { return nil }
        self.archive = archive
        self.kinds = kinds
        self.limits = limits
        self.copy = copy
    }

    /// `init(archive:kinds:limits:)` for a path given as text.
    public init?(archive: String, kinds: Set<ProvenanceKind> = Set(ProvenanceKind.allCases),
                 limits: ArchiveScanner.Limits = .init()) {
        self.init(archive: DocumentSourceTreePath(archive), kinds: kinds, limits: limits)
    }

    /// What the copy leaves out: AppleDouble attributes and pax records of ``kinds``.
    public var filter: ArchiveCopy.Filter {
        let kinds = self.kinds
        return ArchiveCopy.Filter(
            dropsAttribute: { name in
                ProvenanceNames.match(plainName: Array(name.utf8)).map { kinds.contains($0.kind) } ?? false
            },
            dropsPaxKeyword: { keyword in
                ProvenanceNames.match(paxKeyword: keyword).map { kinds.contains($0.kind) } ?? false
            })
    }

    /// Writes the clean copy to `output`, atomically (a temporary file beside it, renamed into
    /// place; removed on failure, so nothing is left behind). The copy is written whether or
    /// not the archive held marks.
    ///
    /// - Throws: ``ArchiveCleanerError/sameFile(_:)`` when `output` names the archive (the same
    ///   path, a link to it or another name of the same file); ``ArchiveCleanerError/archive(_:)``
    ///   when the archive cannot be read to its end; ``ArchiveCleanerError/output(path:message:errorNumber:)``
    ///   when `output` cannot be written.
    @discardableResult
    public func write(to output: String) throws(ArchiveCleanerError) -> ArchiveCopy.Report {
        if let identity = copy.identity() {
            var info = stat()
            if stat(output, &info) == 0, UInt64(info.st_dev) == identity.device, UInt64(info.st_ino) == identity.inode {
                throw .sameFile(output)
            }
        }
        var file: AtomicFile
        let descriptor: Int32
        do throws(AtomicFileError) {
            file = try AtomicFile.begin(output)
            descriptor = try file.streamingDescriptor()
        } catch {
            throw .output(path: output, message: error.message, errorNumber: error.errorNumber)
        }
        let report: ArchiveCopy.Report
        do throws(ArchiveCopyError) {
            report = try copy.write(to: descriptor, filter: filter)
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
    public func write(toDescriptor descriptor: Int32, name: String = "-") throws(ArchiveCleanerError) -> ArchiveCopy.Report {
        // `xds strip a.tar -o - >> a.tar` would read what it writes, without end.
        var info = stat()
        if let identity = copy.identity(), fstat(descriptor, &info) == 0,
           UInt64(info.st_dev) == identity.device, UInt64(info.st_ino) == identity.inode {
            throw .sameFile(name)
        }
        do throws(ArchiveCopyError) {
            return try copy.write(to: descriptor, filter: filter)
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
