import XDocSource

/// Where an archive member's attribute was found by ``ArchiveScanner/scanAttributes(named:_:)``.
public enum ArchiveAttributeOrigin: Sendable, Hashable {
    /// A tar extended-attribute header: pax `SCHILY.xattr.NAME` (GNU tar `--xattrs`, bsdtar) or
    /// `LIBARCHIVE.xattr.NAME` (bsdtar; NAME URL-encoded, its value base64). The attribute's
    /// name is NAME as the writer's system gave it: `user.com.apple.quarantine` from Linux,
    /// `com.apple.quarantine` from a Mac. The entry is the member itself.
    case paxHeader
    /// An attribute entry of an AppleDouble file: a zip's `__MACOSX/DIR/._NAME` or `DIR/._NAME`
    /// entry, a tar's `._NAME` entry (what macOS bsdtar writes before each member). The name is
    /// the one the Mac gives the attribute (no `user.`).
    case appleDouble
}

/// One extended attribute of an archive member, as stored.
public struct ArchiveAttribute: Sendable, Equatable {
    /// The attribute's name, exact bytes (for a pax header: the keyword without
    /// `SCHILY.xattr.`, or without `LIBARCHIVE.xattr.` and URL-decoding undone, as libarchive
    /// and GNU tar read them).
    public let name: [UInt8]
    /// The value, exact bytes, at most ``ArchiveScanner/Limits/maximumAttributeValueSize``
    /// (a `LIBARCHIVE.xattr` value base64-decoded, unless ``valueIsNotBase64``).
    public let value: [UInt8]
    /// For a pax record: its keyword as stored (`SCHILY.xattr.NAME`, `LIBARCHIVE.xattr.NAME`
    /// URL-encoded), which tells the spellings of one attribute apart; nil for an attribute
    /// of an AppleDouble entry (or a pax attribute libarchive gave without its record).
    public let keyword: [UInt8]?
    /// Whether ``value`` is a `LIBARCHIVE.xattr` record's text as stored, because it is not
    /// valid base64 (libarchive would skip what is not base64 and decode the rest into other
    /// bytes: the value cannot be known).
    public let valueIsNotBase64: Bool

    /// Creates one.
    public init(name: [UInt8], value: [UInt8], keyword: [UInt8]? = nil, valueIsNotBase64: Bool = false) {
        self.name = name
        self.value = value
        self.keyword = keyword
        self.valueIsNotBase64 = valueIsNotBase64
    }
}

/// The attributes one archive entry holds for one member that an attribute scan asked for
/// (``ArchiveScanner/scanAttributes(named:_:)``): a tar member's own extended-attribute
/// header, or a `._NAME` AppleDouble entry.
public struct ArchiveMemberAttributes: Sendable, Equatable {
    /// The member's name, exact bytes as the archive stores them: the document's name
    /// (`DIR/NAME` for an AppleDouble entry `__MACOSX/DIR/._NAME` or `DIR/._NAME`, whether or
    /// not the archive holds `DIR/NAME` itself, as `xds show` lists it).
    public let name: DocumentSourceTreePath
    /// The archive entry that held the attributes, exact bytes: the `._NAME` entry, or the
    /// member itself for a tar extended-attribute header.
    public let entry: DocumentSourceTreePath
    /// Whether they came from a pax header or an AppleDouble entry.
    public let origin: ArchiveAttributeOrigin
    /// The attributes asked for, in the entry's order. A pax header's attribute given twice
    /// with one value (bsdtar writes both spellings, `LIBARCHIVE.xattr.` then `SCHILY.xattr.`)
    /// is reported once, in its first spelling; spellings with different values are each
    /// reported (a keyword given twice: its first record).
    public let attributes: [ArchiveAttribute]

    /// Creates a record.
    public init(name: DocumentSourceTreePath, entry: DocumentSourceTreePath, origin: ArchiveAttributeOrigin,
                attributes: [ArchiveAttribute]) {
        self.name = name
        self.entry = entry
        self.origin = origin
        self.attributes = attributes
    }

    /// The name `xds show` gives the member: `ARCHIVE!/MEMBER`, exact bytes.
    public func path(in archive: DocumentSourceTreePath) -> DocumentSourceTreePath {
        DocumentSourceTreePath(bytes: archive.bytes + Array("!/".utf8) + name.bytes)
    }
}

extension ArchiveScanner {
    /// What an attribute scan reports, in archive order.
    public enum AttributeEvent: Sendable {
        /// The attributes asked for that one entry holds for one member.
        case attributes(ArchiveMemberAttributes)
        /// A member whose attributes could not be read (the scan goes on), a value over
        /// ``Limits/maximumAttributeValueSize``, or the entry bound reached.
        case problem(ArchiveProblem)
    }

    /// Reads every header as ``scan(_:)`` does, with the same bounds, and reports the members'
    /// extended attributes whose names `wanted` accepts, raw, as they are found (on the calling
    /// thread): from tar extended-attribute headers (both pax spellings) and from AppleDouble
    /// `._NAME` entries (in zips and tars). Nothing is decoded; `x-document-source` is an
    /// attribute like any other here.
    ///
    /// - Parameters:
    ///   - wanted: whether an attribute is asked for, by where it was found and its name's
    ///     exact bytes (a pax header's names carry the writer's prefix, `user.` from Linux; an
    ///     AppleDouble entry's are plain). Called once per attribute of an entry.
    ///   - visit: called with each entry's attributes asked for (never an empty list, but for
    ///     an AppleDouble entry holding none of them when `wanted` accepts the empty name `[]`:
    ///     what a caller asking about every `._` entry does), and each problem;
    ///     `DocumentSourceTree/Decision/stop` ends the scan.
    /// - Returns: the counts (``Summary/tagged`` counts the records reported), and a
    ///   `.textpack`'s `info.json` bytes.
    /// - Throws: ``ArchiveError``, as ``scan(_:)``.
    @discardableResult
    public func scanAttributes(named wanted: (ArchiveAttributeOrigin, [UInt8]) -> Bool,
                               _ visit: (AttributeEvent) -> DocumentSourceTree.Decision) throws(ArchiveError) -> Summary {
        try withoutActuallyEscaping(wanted) { (wanted) throws(ArchiveError) -> Summary in
            try withoutActuallyEscaping(visit) { (visit) throws(ArchiveError) -> Summary in
                var reader = try ArchiveReader(scanner: self, wanted: .attributes(wanted)) { report in
                    switch report {
                    case .attributes(let found): visit(.attributes(found))
                    case .problem(let problem): visit(.problem(problem))
                    case .member: .proceed  // not made in this mode
                    }
                }
                return try reader.run()
            }
        }
    }
}
