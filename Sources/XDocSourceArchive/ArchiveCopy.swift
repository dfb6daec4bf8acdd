#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDocSource

/// A copy of a zip or tar archive with some metadata left out, everything else as it was
/// (SPEC §6, `xds strip ARCHIVE -o CLEAN`): what XDSProvenance's `ArchiveCleaner` writes. This
/// module knows no mark's name: the ``Filter`` says which attributes and pax records go.
///
/// What is left out:
/// - AppleDouble entries (`._NAME` beside a member, `__MACOSX/DIR/._NAME` in a zip) whose
///   attributes the filter drops: an entry that holds nothing else (no other attribute, Finder
///   info all zero, no resource fork or an empty one as `AppleDouble.isEmptyResourceFork` says,
///   no other entry but empty ones: `AppleDouble.edited`'s `.delete`) is left out whole, one
///   that does is rewritten without them (the rest of it byte-exact, as XDocSource's
///   `AppleDouble.edited` keeps it); a `__MACOSX/` folder entry left empty goes too. A `._`
///   entry that is not AppleDouble is copied as it is (it holds no attribute this reads). A
///   `._` entry that cannot be read is left out whole, whatever else it held, so that a copy
///   never keeps a mark unseen (SPEC §6): a zip entry encrypted (APPNOTE 4.4.4, general
///   purpose bit 0 or 6), compressed by a method other than stored (0) or deflated (8, RFC
///   1951), damaged (its CRC, sizes or compressed data wrong; or AppleDouble holding marks
///   that cannot be rewritten), or larger than the read for one `._` entry (64 MiB, zip or
///   tar); each is an ``Event/unreadable(entry:reason:)``.
/// - tar pax records (`x` headers, and `g` and Solaris `X` alike) whose keyword the filter
///   drops: the header is rewritten without them (the other records byte-exact), or left out
///   with its blocks when nothing is left. With ``Filter/rewritesLibarchiveXattr``, a kept
///   `LIBARCHIVE.xattr.NAME` record becomes `SCHILY.xattr.NAME` in its place (or goes beside
///   its twin).
/// - entries by name, with ``Filter/entryRule`` (`strip --mac-metadata`): left out whole and
///   unread (a tar's with the headers in front of it; a folder entry only when nothing under
///   it stays: a zip's decided from its directory, a tar's held until the next entry says,
///   nested ones up to 64 and 64 MiB of headers, then left out as read), or a `._` entry read
///   and kept only when it holds what the rule keeps, rebuilt to hold only that
///   (``EntryRule``).
///
/// What is kept as it was:
/// - zip: every other member's local header, data and data descriptor, byte for byte (so its
///   CRC, compression and zip64 fields); the bytes in front of the first member (a
///   self-extracting stub); the archive comment. The central directory is the old one less the
///   entries left out, with the offsets of the new positions (in zip64 extra fields where they
///   were, or where an offset needs one), and zip64 end records when the old archive had them
///   or the new one needs them. Offsets keep the old archive's convention (relative to the zip
///   or to the file when a stub is in front).
/// - tar: every other header and data block, copied as 512-byte blocks (headers are never
///   re-encoded, no key is added), the end-of-archive blocks and whatever follows them; under
///   the same compression filter (found by magic bytes), recompressed through libarchive's raw
///   writer.
///
/// The archive is hostile input: the zip's central directory is read in bounded chunks, every
/// size and offset checked against the file (a member whose data overlaps another's or runs
/// into the directory is damage), a tar's decompressed stream is bounded by
/// ``ArchiveScanner/Limits/maximumDecompressedSize`` and a pax header or `._` entry by
/// ``ArchiveScanner/Limits/maximumAppleDoubleSize`` (at least 1 MiB); so the copy is never
/// larger than what the archive holds.
///
/// ```swift
/// let copy = ArchiveCopy(path: "release.tar.gz")!
/// let report = try copy.write(to: descriptor, filter: .init(
///     dropsAttribute: { $0 == "com.apple.quarantine" },
///     dropsPaxKeyword: { $0.elementsEqual("SCHILY.xattr.user.com.apple.quarantine".utf8) }))
/// ```
public struct ArchiveCopy: Sendable {
    /// What the copy leaves out, by name.
    public struct Filter: Sendable {
        /// Whether an attribute of an AppleDouble entry is left out, by its name as stored
        /// (`com.apple.quarantine`).
        public var dropsAttribute: @Sendable (String) -> Bool
        /// Whether a pax record is left out, by its keyword as stored
        /// (`SCHILY.xattr.user.com.apple.quarantine`, `LIBARCHIVE.xattr.…` URL-encoded).
        public var dropsPaxKeyword: @Sendable ([UInt8]) -> Bool

        /// What becomes of an entry by its name (exact bytes; `isFolder`: a zip name ending in
        /// `/`, a tar folder header) before anything of it is read: `strip --mac-metadata`
        /// leaves out `__MACOSX/`, `._NAME`, `.DS_Store` and `.AppleDouble/` entries. Nil:
        /// every entry is ``EntryRule/copy``.
        public var entryRule: (@Sendable (_ name: [UInt8], _ isFolder: Bool) -> EntryRule)?
        /// Whether a `LIBARCHIVE.xattr.NAME` record the filter keeps is rewritten as
        /// `SCHILY.xattr.NAME`, NAME URL-decoded and the value base64-decoded as libarchive's
        /// reader decodes them (archive_read_support_format_tar.c; its writer,
        /// archive_write_set_format_pax.c, writes both spellings), so that GNU tar, which knows
        /// only `SCHILY.xattr.` (GNU tar manual, "Extended Header Keywords"), reads the
        /// attribute. The record is left out instead when the `SCHILY.xattr.` twin is in the
        /// same header, or when it does not decode (or its name holds `=`, `%`, a NUL or a line
        /// break, which no keyword carries as written).
        public var rewritesLibarchiveXattr: Bool

        /// A filter of these predicates.
        public init(dropsAttribute: @escaping @Sendable (String) -> Bool,
                    dropsPaxKeyword: @escaping @Sendable ([UInt8]) -> Bool,
                    entryRule: (@Sendable (_ name: [UInt8], _ isFolder: Bool) -> EntryRule)? = nil,
                    rewritesLibarchiveXattr: Bool = false) {
            self.dropsAttribute = dropsAttribute
            self.dropsPaxKeyword = dropsPaxKeyword
            self.entryRule = entryRule
            self.rewritesLibarchiveXattr = rewritesLibarchiveXattr
        }
    }

    /// What ``Filter/entryRule`` says of an entry.
    public enum EntryRule: Sendable {
        /// As without a rule: copied; a `._` entry cleaned of the attributes
        /// ``Filter/dropsAttribute`` names.
        case copy
        /// Left out whole and unread (in a tar with the pax and long-name headers in front of
        /// it); a folder entry stays when a member under it stays (in a tar, one that comes
        /// next, as tars are written): an ``Event/entry(_:)`` otherwise.
        case drop
        /// A `._` entry (a regular file) read and left out whole (an ``Event/entry(_:)``)
        /// unless it holds an attribute `keeps` accepts; then rebuilt to hold only the
        /// attributes ``Filter/dropsAttribute`` keeps, without Finder info or resource fork
        /// (kept as it is when that is what it holds). An entry that is not AppleDouble, or
        /// not a regular file, is left out; one that cannot be read is an
        /// ``Event/unreadable(entry:reason:)``.
        case dropUnlessHolding(@Sendable (String) -> Bool)
    }

    /// What a copy left out.
    public struct Report: Sendable, Equatable {
        /// Entries (zip directory entries, tar headers but pax and GNU long-name ones) read.
        public var entries = 0
        /// Entries left out: AppleDouble entries that held nothing else, and empty `__MACOSX/`
        /// folders.
        public var droppedEntries = 0
        /// AppleDouble entries rewritten without some of their attributes.
        public var rewrittenEntries = 0
        /// AppleDouble attributes left out (in entries dropped or rewritten).
        public var droppedAttributes = 0
        /// Pax records left out (a `LIBARCHIVE.xattr.` record rewritten counts too).
        public var droppedRecords = 0
        /// `LIBARCHIVE.xattr.` records rewritten as `SCHILY.xattr.`.
        public var rewrittenRecords = 0
        /// Pax headers left out whole (every record in them went).
        public var droppedHeaders = 0
        /// `._` entries copied as they were because they are not AppleDouble.
        public var unreadAppleDoubleEntries = 0
        /// `._` entries left out because they cannot be read (``UnreadableReason``).
        public var unreadableEntries = 0
        /// A tar's compression (`gzip`, `xz`, …), nil for a plain tar or a zip.
        public var compression: String?

        /// Whether anything was left out or rewritten.
        public var changed: Bool {
            droppedEntries + rewrittenEntries + droppedRecords + droppedHeaders + unreadableEntries > 0
        }

        /// Zero counts.
        public init() {}
    }

    /// Why a `._` entry cannot be read, in the words `xds` prints: "compression method N",
    /// "encrypted", "damaged", "over 64 MiB".
    public enum UnreadableReason: Sendable, Equatable, CustomStringConvertible {
        /// A zip compression method other than stored (0) and deflated (8): bzip2 12, LZMA
        /// 14, Deflate64 9 (APPNOTE 4.4.5).
        case compressionMethod(Int)
        /// Encrypted (APPNOTE 4.4.4: general purpose bit 0, or 6 for strong encryption).
        case encrypted
        /// Its data does not match its directory entry (CRC, sizes), its compressed data is
        /// broken, or it is AppleDouble whose marks cannot be rewritten.
        case damaged
        /// Larger than the most read of one `._` entry (`limit` bytes).
        case tooLarge(limit: Int)

        /// The words: "compression method 12", "encrypted", "damaged", "over 64 MiB".
        public var description: String {
            switch self {
            case .compressionMethod(let method): "compression method \(method)"
            case .encrypted: "encrypted"
            case .damaged: "damaged"
            case .tooLarge(let limit): "over \(ArchiveScanner.Limits.sizeText(Int64(limit)))"
            }
        }
    }

    /// What the copy leaves out, one event at a time, in archive order (for `xds strip -n`'s
    /// lines and `xds strip -o`'s warnings).
    public enum Event: Sendable, Equatable {
        /// Attributes (names as stored) the filter drops from an AppleDouble `entry` about
        /// `member` (`DIR/NAME` for `DIR/._NAME` and `__MACOSX/DIR/._NAME`), which is left out
        /// or rewritten.
        case attributes(member: DocumentSourceTreePath, entry: DocumentSourceTreePath, names: [String])
        /// Pax records (keywords as stored) the filter drops from the headers of `member`
        /// (for a global header, its own name).
        case paxRecords(member: DocumentSourceTreePath, keywords: [[UInt8]])
        /// A `._` entry left out unread, with everything it held.
        case unreadable(entry: DocumentSourceTreePath, reason: UnreadableReason)
        /// An entry left out by ``Filter/entryRule`` (its own name), with everything it held:
        /// its pax records are not listed.
        case entry(DocumentSourceTreePath)
    }

    /// The archive's path, exact bytes.
    public let path: DocumentSourceTreePath
    /// The format, from the file name (a tar's compression is found by its magic bytes).
    public let kind: ArchiveKind
    /// The bounds of the read.
    public var limits: ArchiveScanner.Limits

    /// A copier for the archive at `path`, or nil when its name is not an archive's
    /// (`ArchiveKind(fileName:)`).
    public init?(path: DocumentSourceTreePath, limits: ArchiveScanner.Limits = .init()) {
        guard let kind = ArchiveKind(fileName: path.bytes) else { return nil }
        self.init(path: path, kind: kind, limits: limits)
    }

    /// ``init(path:limits:)`` for a path given as text.
    public init?(path: String, limits: ArchiveScanner.Limits = .init()) {
        self.init(path: DocumentSourceTreePath(path), limits: limits)
    }

    /// A copier for an archive of `kind` whatever its name.
    public init(path: DocumentSourceTreePath, kind: ArchiveKind, limits: ArchiveScanner.Limits = .init()) {
        self.path = path
        self.kind = kind
        self.limits = limits
    }

    /// The archive's device and inode (after symbolic links), to tell whether an output path
    /// names it; nil when it cannot be examined.
    public func identity() -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard ArchiveReader.withCPath(path, { stat($0, &info) }) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Writes the copy to `descriptor`, from its current position, in one pass over the archive
    /// (a zip's central directory is read three times, in chunks). The archive is opened
    /// read-only and never written. On failure part of the copy may have been written: write
    /// to a temporary file (XDocSource's `AtomicFile`) and drop it then. `observe` hears what
    /// is left out as it is decided (an unreadable entry before anything is written of it).
    ///
    /// - Throws: ``ArchiveCopyError/archive(_:)`` with an ``ArchiveError`` (missing,
    ///   unreadable, damaged or past the limit, in the words `xds show` uses; a library that
    ///   cannot be loaded, zlib or libarchive, is ``ArchiveError/Kind/unreadable``), or
    ///   ``ArchiveCopyError/output(_:errorNumber:)`` when writing failed.
    @discardableResult
    public func write(to descriptor: Int32, filter: Filter,
                      observe: (Event) -> Void = { _ in }) throws(ArchiveCopyError) -> Report {
        try run(CopyOutput(descriptor: descriptor), filter: filter, observe: observe)
    }

    /// Reads the archive exactly as ``write(to:filter:observe:)`` does and tells `observe` what
    /// the copy would leave out, writing nothing (`xds strip -n`). Member data that is copied
    /// as it is is not read, only checked to lie inside the file.
    ///
    /// - Throws: ``ArchiveCopyError/archive(_:)`` where the write would fail reading.
    @discardableResult
    public func dryRun(filter: Filter, observe: (Event) -> Void) throws(ArchiveCopyError) -> Report {
        try run(CopyOutput(descriptor: -1, discarding: true), filter: filter, observe: observe)
    }

    private func run(_ output: CopyOutput, filter: Filter, observe: (Event) -> Void) throws(ArchiveCopyError) -> Report {
        let scanner = ArchiveScanner(path: path, kind: kind, limits: limits)
        let reader: ArchiveReader
        do throws(ArchiveError) {
            reader = try ArchiveReader(scanner: scanner) { _ in .proceed }
        } catch {
            throw .archive(error)
        }
        let source = reader.source
        defer { SystemCall.close(source.descriptor) }
        var output = output
        return try withoutActuallyEscaping(observe) { (observe) throws(ArchiveCopyError) -> Report in
            switch kind {
            case .zip:
                var copier = ZipCopier(source: source, path: path, limits: limits, filter: filter, observe: observe)
                try copier.run(&output)
                return copier.report
            case .tar:
                var copier = TarCopier(source: source, path: path, limits: limits, filter: filter, observe: observe)
                try copier.run(&output)
                return copier.report
            }
        }
    }
}

/// Why an ``ArchiveCopy`` failed.
public enum ArchiveCopyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The archive could not be read to its end: missing, unreadable, damaged, or past the
    /// archive limit (the error says which and names the archive).
    case archive(ArchiveError)
    /// Writing the copy failed, in words ("no space left on device"), and the `errno`.
    case output(String, errorNumber: Int32)

    /// One line: the archive's error, or "cannot write the copy: WORDS".
    public var description: String {
        switch self {
        case .archive(let error): error.description
        case .output(let words, _): "cannot write the copy: \(words)"
        }
    }
}

extension ArchiveScanner {
    /// A scanner of `path` read as `kind` whatever its name (for ``ArchiveCopy``).
    init(path: DocumentSourceTreePath, kind: ArchiveKind, limits: Limits) {
        self.path = path
        self.kind = kind
        self.isTextPack = false
        self.limits = limits
    }
}

/// Where the copy goes: a descriptor, or libarchive's raw writer over it (a compressed tar), or
/// nowhere (a dry run: only counted).
struct CopyOutput {
    let descriptor: Int32
    /// A dry run: nothing is written, and no compressor is made.
    let discarding: Bool
    /// Bytes written (before any compression).
    private(set) var position: Int64 = 0
    /// The raw-format writer compressing the stream, when there is one.
    var compressor: TarStreamWriter?

    init(descriptor: Int32, discarding: Bool = false) {
        self.descriptor = descriptor
        self.discarding = discarding
    }

    /// Counts `count` bytes as written without writing them (a dry run's copied data).
    mutating func skip(_ count: Int64) { position += count }

    mutating func write(_ buffer: UnsafeRawBufferPointer) throws(ArchiveCopyError) {
        guard buffer.count > 0 else { return }
        if discarding {
            // Nothing written.
        } else if let compressor {
            try compressor.write(buffer)
        } else {
            do throws(Errno) { try SystemCall.writeAll(descriptor, buffer) } catch {
                throw .output(error.words, errorNumber: error.rawValue)
            }
        }
        position += Int64(buffer.count)
    }

    mutating func write(_ bytes: some Collection<UInt8>) throws(ArchiveCopyError) {
        let array = Array(bytes)
        let outcome = array.withUnsafeBytes { buffer -> Result<Void, ArchiveCopyError> in
            do throws(ArchiveCopyError) { try write(buffer) } catch { return .failure(error) }
            return .success(())
        }
        try outcome.get()
    }
}

/// An AppleDouble entry without the attributes a filter drops.
enum AppleDoubleCleaning: Equatable {
    /// Nothing to drop (or not AppleDouble: `readable` false): copy the entry as it is.
    case keep(readable: Bool)
    /// Every attribute went and nothing else is in it: leave the entry out.
    case drop(attributes: Int, names: [String])
    /// The entry without those attributes.
    case replace([UInt8], attributes: Int, names: [String])
    /// It holds attributes to drop but cannot be rewritten (an entry id twice): left out whole,
    /// as damaged, rather than copied with them.
    case unrewritable
    /// Left out whole by the filter's entry rule (it holds nothing kept): an `Event.entry`.
    case dropEntry

    static func clean(_ bytes: [UInt8], filter: ArchiveCopy.Filter) -> AppleDoubleCleaning {
        guard let parsed = try? AppleDouble(bytes: bytes) else { return .keep(readable: false) }
        var names: [String] = []
        var count = 0
        for attribute in parsed.attributes where filter.dropsAttribute(attribute.name) {
            count += 1
            if !names.contains(attribute.name) { names.append(attribute.name) }
        }
        guard !names.isEmpty else { return .keep(readable: true) }
        // `AppleDouble.edited` says when nothing else is left (its `.delete`): the one rule for
        // sidecars and archive entries, the blank resource map Finder writes counting as empty.
        switch try? AppleDouble.edited(bytes, removing: Set(names)) {
        case .replace(let file)?: return .replace(file, attributes: count, names: names)
        case .delete?: return .drop(attributes: count, names: names)
        case .unchanged?: return .keep(readable: true)
        case nil: return .unrewritable  // a file the writer does not rewrite: its marks must not stay
        }
    }

    /// ``ArchiveCopy/EntryRule/dropUnlessHolding(_:)``: `.dropEntry` unless an attribute
    /// `keeps` accepts is in it (or it is not AppleDouble); else the entry rebuilt with only
    /// the attributes the filter keeps (`.keep` when that is the entry as it is).
    static func keepOnly(_ bytes: [UInt8], keeps: (String) -> Bool, filter: ArchiveCopy.Filter) -> AppleDoubleCleaning {
        guard let parsed = try? AppleDouble(bytes: bytes), parsed.attributes.contains(where: { keeps($0.name) })
        else { return .dropEntry }
        var names: [String] = []
        var count = 0
        for attribute in parsed.attributes where filter.dropsAttribute(attribute.name) {
            count += 1
            if !names.contains(attribute.name) { names.append(attribute.name) }
        }
        let kept = parsed.attributes.filter { !filter.dropsAttribute($0.name) }
        guard let file = try? AppleDouble.newFile(attributes: kept) else { return .unrewritable }
        if file == bytes { return .keep(readable: true) }
        return .replace(file, attributes: count, names: names)
    }
}
