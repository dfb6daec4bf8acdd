/// The conventions that say where a file came from (SPEC §6), by the names `xds where --json`
/// prints and `xds strip --only/--keep` takes.
public enum ProvenanceKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `x-document-source`: which app a document came from (the value `xds show` reads).
    case xDocumentSource = "x-document-source"
    /// macOS `com.apple.quarantine`: `FLAGS;HEXTIME;AGENT;UUID`, set by a downloading or
    /// sandboxed app.
    case quarantine = "quarantine"
    /// macOS `com.apple.metadata:kMDItemWhereFroms`: a binary plist array of strings (a
    /// browser's file URL and page; Mail's From, Subject and Message-ID).
    case whereFroms = "where-froms"
    /// macOS `com.apple.metadata:kMDItemDownloadedDate`: a plist array of dates.
    case downloadedDate = "downloaded-date"
    /// macOS `com.apple.lastuseddate#PS`: 16 bytes, little-endian seconds and nanoseconds.
    case lastUsedDate = "last-used-date"
    /// macOS 13+ `com.apple.provenance`: an identifier meaningful only on the Mac that set it.
    case macOSProvenance = "macos-provenance"
    /// freedesktop's `user.xdg.origin.url` and its companions (referrer, e-mail fields,
    /// publisher, `user.creator`): every such attribute of one store makes one mark.
    case xdg = "xdg"
    /// Windows' `Zone.Identifier` stream (Mark of the Web): INI text `[ZoneTransfer]`.
    case zoneIdentifier = "zone-identifier"

    /// The kind's name as `xds` prints and takes it.
    public var description: String { rawValue }

    /// The kind named `text` (as printed), or nil.
    public init?(name text: some StringProtocol) {
        self.init(rawValue: String(text))
    }
}
