import XDocSource
internal import XDSSystem

/// Lists the members of a zip or tar archive that carry an `x-document-source` value, without
/// extracting anything (SPEC §2): what `xds show ARCHIVE` and `xds show -r` print.
///
/// ```swift
/// let scanner = ArchiveScanner(path: "photos.zip")!
/// let summary = try scanner.scan { event in
///     if case .member(let member) = event { print(member.name, member.stored.source.name ?? "?") }
///     return .proceed
/// }
/// ```
///
/// ``scanAttributes(named:_:)`` reads the same entries, under the same bounds, for the members'
/// other extended attributes (raw, by a name predicate).
///
/// Where values are found:
/// - **zip and `.textpack`**: AppleDouble entries `__MACOSX/DIR/._NAME` (Finder, `ditto -c -k
///   --sequesterRsrc`) and `DIR/._NAME` beside the member; the entry is parsed as an AppleDouble
///   file and its `x-document-source` attribute decoded. The member is `DIR/NAME`.
/// - **tar, pax, GNU tar** (plain, gzip, bzip2, xz, lzip, zstd, lz4, compress, lzma; the
///   compression recognised by its magic bytes, whatever the name says): the entry's extended
///   attributes, `user.x-document-source` (GNU tar `--xattrs` writes `SCHILY.xattr.…`, bsdtar
///   `LIBARCHIVE.xattr.…`) or `x-document-source` (a tar made on macOS), and `._NAME`
///   AppleDouble entries (what macOS bsdtar writes before each member).
///
/// The archive is hostile input, so everything is bounded and nothing is written:
/// - a zip is read through its central directory (streamed; members skipped by offset, never
///   inflated; a self-extracting zip with bytes in front lists as any other; a zip without its
///   end record, cut short, is refused; padding in extra fields, as zipalign writes, is
///   skipped; a classic end record that is invalid is passed over for a sound zip64 end record;
///   every size and offset it gives is checked, and an entry read whose data runs into the
///   directory or overlaps another's is damage, not a new member); a tar's headers are
///   streamed, decompressed with the one decoder its first bytes call for (gzip, bzip2, xz,
///   lzip, zstd past skippable frames, lz4, compress, lzma by its header; never one inside
///   another, and an empty compressed stream is an empty archive), and at most
///   ``Limits/maximumDecompressedSize`` bytes are
///   decompressed in all, as the entries of a zip read are inflated; nothing is kept per
///   member but the 16-byte range of each zip entry read (16 MB at most), so memory is flat in
///   the member count; at most ``Limits/maximumEntries`` headers are read;
/// - member names are the bytes the archive stores (no charset conversion, no Unicode
///   normalisation);
/// - no member data is read except `._NAME` entries (at most ``Limits/maximumAppleDoubleSize``
///   bytes, so a deflate bomb stops there) and a `.textpack`'s `info.json` (at most
///   ``Limits/maximumInfoJSONSize``);
/// - encrypted `._NAME` entries are skipped; names (absolute, `../`) are only names: shown,
///   never used as paths.
public struct ArchiveScanner: Sendable {
    /// The bounds of one scan.
    public struct Limits: Sendable, Equatable {
        /// The most headers read; the scan stops with ``ArchiveProblem/Kind/tooManyEntries`` there.
        public var maximumEntries: Int
        /// The most bytes read of one `._NAME` entry; a larger entry is skipped (a problem).
        public var maximumAppleDoubleSize: Int
        /// The most bytes read of a `.textpack`'s `info.json`; a larger one is skipped.
        public var maximumInfoJSONSize: Int

        /// The most bytes a compressed tar is decompressed to (headers and skipped data alike),
        /// or a zip's entries are inflated to, in all; the scan ends there with
        /// ``ArchiveError/Kind/limitReached``, so a small file that decompresses to gigabytes
        /// cannot stall a walk. Zip members are never decompressed to be skipped (the central
        /// directory gives their offsets): only the `._NAME` entries and `info.json` read count.
        public var maximumDecompressedSize: Int64

        /// The default of ``maximumDecompressedSize``: 1 GiB.
        public static let defaultDecompressedSize: Int64 = 1 << 30

        /// The most bytes of one attribute value an attribute scan
        /// (``ArchiveScanner/scanAttributes(named:_:)``) hands on; a larger value (only a tar's
        /// pax header can hold one: an AppleDouble entry's values lie in its first 64 KiB) is a
        /// problem (``ArchiveProblem/Kind/valueTooLarge``), not a record.
        public var maximumAttributeValueSize: Int

        /// The defaults: one million entries, 1 MiB per `._NAME` entry, 64 KiB of `info.json`,
        /// 1 GiB decompressed, 1 MiB per attribute value.
        public init(maximumEntries: Int = 1_000_000, maximumAppleDoubleSize: Int = 1 << 20,
                    maximumInfoJSONSize: Int = 65_536, maximumDecompressedSize: Int64 = defaultDecompressedSize,
                    maximumAttributeValueSize: Int = 1 << 20) {
            self.maximumEntries = maximumEntries
            self.maximumAppleDoubleSize = maximumAppleDoubleSize
            self.maximumInfoJSONSize = maximumInfoJSONSize
            self.maximumDecompressedSize = maximumDecompressedSize
            self.maximumAttributeValueSize = maximumAttributeValueSize
        }

        /// A byte count as people read it: "1 GiB", "512 MiB", "64 KiB" when it is a whole
        /// number of those, else "N bytes".
        public static func sizeText(_ bytes: Int64) -> String { ByteCount.words(bytes) }

        /// Reads a size as `--archive-limit` takes it: a whole number of bytes, optionally
        /// followed by `K`, `M`, `G` or `T` (powers of 1024; `KiB`, `MB`… and lower case too).
        /// Nil for anything else, zero, or a size that does not fit in 64 bits.
        public static func parseSize(_ text: String) -> Int64? {
            var digits = Substring(text)
            var shift: Int64 = 0
            let lower = digits.lowercased()
            for (suffixes, value) in [(["k", "kb", "kib"], 10), (["m", "mb", "mib"], 20), (["g", "gb", "gib"], 30),
                                      (["t", "tb", "tib"], 40), (["b"], 0)] as [([String], Int64)] {
                if let suffix = suffixes.first(where: { lower.hasSuffix($0) && lower.count > $0.count }) {
                    digits = digits.dropLast(suffix.count)
                    shift = value
                    break
                }
            }
            guard !digits.isEmpty, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }), let number = Int64(digits), number > 0,
                  number <= Int64.max >> shift
            else { return nil }
            return number << shift
        }
    }

    /// What a scan reports, in archive order.
    public enum Event: Sendable {
        /// A member carrying a value.
        case member(ArchiveMember)
        /// A member whose value could not be read (the scan goes on), or the entry bound reached.
        case problem(ArchiveProblem)
    }

    /// What a finished scan saw.
    public struct Summary: Sendable, Equatable {
        /// Headers read.
        public var entries = 0
        /// Members reported with a value.
        public var tagged = 0
        /// Problems reported.
        public var problems = 0
        /// Whether the scan ended early: the callback said stop, or the entry bound was reached.
        public var stopped = false
        /// For a `.textpack`: the raw bytes of its TextBundle `info.json` (at the root, else
        /// exactly one folder down, `NAME.textbundle/info.json`), when it has one of at most
        /// ``Limits/maximumInfoJSONSize`` bytes. Not parsed here.
        public var textBundleInfo: [UInt8]?
        /// For a `.textpack`: why its `info.json` was not captured (larger than the bound,
        /// encrypted, damaged), in words naming `info.json`. As for a `.textbundle` folder, this
        /// is a warning about the bundle's own record, not a problem of the archive.
        public var textBundleInfoProblem: String?

        /// Zero counts.
        public init() {}
    }

    /// The archive's path, exact bytes.
    public let path: DocumentSourceTreePath
    /// The format, from the file name (a tar's compression is not: its bytes tell).
    public let kind: ArchiveKind
    /// Whether `info.json` is captured (a `.textpack`).
    public let isTextPack: Bool
    /// The bounds.
    public var limits: Limits

    /// A scanner for the archive at `path`, or nil when its name is not an archive's
    /// (`ArchiveKind(fileName:)`).
    public init?(path: DocumentSourceTreePath, limits: Limits = Limits()) {
        guard let kind = ArchiveKind(fileName: path.bytes) else { return nil }
        self.path = path
        self.kind = kind
        self.isTextPack = ArchiveKind.isTextPack(path.bytes)
        self.limits = limits
    }

    /// ``init(path:limits:)`` for a path given as text.
    public init?(path: String, limits: Limits = Limits()) {
        self.init(path: DocumentSourceTreePath(path), limits: limits)
    }

    /// Whether `path` (followed if a symbolic link) is a regular file: only those are read as
    /// archives (a folder named `x.zip` is a folder).
    public static func isRegularFile(_ path: DocumentSourceTreePath) -> Bool {
        ArchiveReader.isRegularFile(path)
    }

    /// Reads every header, calling `visit` for each member with a value and each problem, as
    /// they are found (on the calling thread), until the end, the entry bound, or `DocumentSourceTree/Decision/stop`.
    ///
    /// - Returns: the counts, and a `.textpack`'s `info.json` bytes.
    /// - Throws: ``ArchiveError``: the file is missing (``ArchiveError/Kind/notFound``),
    ///   unreadable (``ArchiveError/Kind/unreadable``), or not a readable archive of its kind,
    ///   corrupt or truncated (``ArchiveError/Kind/malformed``; members reported before the
    ///   damage stay reported).
    @discardableResult
    public func scan(_ visit: (Event) -> DocumentSourceTree.Decision) throws(ArchiveError) -> Summary {
        try withoutActuallyEscaping(visit) { (visit) throws(ArchiveError) -> Summary in
            var reader = try ArchiveReader(scanner: self) { report in
                switch report {
                case .member(let member): visit(.member(member))
                case .problem(let problem): visit(.problem(problem))
                case .attributes: .proceed  // not made in this mode
                }
            }
            return try reader.run()
        }
    }
}
