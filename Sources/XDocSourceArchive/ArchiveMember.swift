import XDocSource

/// An archive member that carries an `x-document-source` value, found by ``ArchiveScanner``.
public struct ArchiveMember: Sendable, Equatable {
    /// The member's name, exact bytes as the archive stores them: the document's name
    /// (`DIR/NAME` for an AppleDouble entry `__MACOSX/DIR/._NAME` or `DIR/._NAME`). Names are
    /// only names here (`../x` and `/etc/x` included): nothing is ever written to disk.
    public let name: DocumentSourceTreePath
    /// The archive entry that held the value, exact bytes: the `._NAME` entry, or the member
    /// itself for a tar extended-attribute header.
    public let entry: DocumentSourceTreePath
    /// The decoded value; its store is `DocumentSourceStore/zip` or `DocumentSourceStore/tar`
    /// and its location is ``entry`` as text (invalid UTF-8 replaced: a label only).
    public let stored: StoredDocumentSource

    /// Creates a record.
    public init(name: DocumentSourceTreePath, entry: DocumentSourceTreePath, stored: StoredDocumentSource) {
        self.name = name
        self.entry = entry
        self.stored = stored
    }

    /// The name `xds show` gives the member: `ARCHIVE!/MEMBER`, exact bytes.
    public func path(in archive: DocumentSourceTreePath) -> DocumentSourceTreePath {
        DocumentSourceTreePath(bytes: archive.bytes + Array("!/".utf8) + name.bytes)
    }
}

/// Something wrong with one member (or the scan's bounds); the scan goes on (or, for
/// ``Kind/tooManyEntries``, ends without an error).
public struct ArchiveProblem: Sendable, Equatable {
    /// The kinds of problems. All are bad data in the archive (SPEC §5: 65).
    public enum Kind: Sendable, Hashable {
        /// The value is not a property list with a dictionary root, or is larger than 64 KiB.
        case malformedValue
        /// A `._NAME` entry is not a valid AppleDouble file.
        case malformedAppleDouble
        /// A `._NAME` entry is larger than the scan reads.
        case tooLarge
        /// A `._NAME` entry is encrypted: it cannot be read without a password.
        case encrypted
        /// A `._NAME` entry's data could not be read (corrupt compressed data, a method
        /// libarchive does not support).
        case unreadableEntry
        /// An attribute an attribute scan asked for is larger than
        /// ``ArchiveScanner/Limits/maximumAttributeValueSize``: not read (the entry is the member).
        case valueTooLarge
        /// The archive has more entries than ``ArchiveScanner/Limits/maximumEntries``: the scan
        /// stopped there.
        case tooManyEntries
    }

    /// What kind of problem it is.
    public let kind: Kind
    /// The entry concerned, exact bytes (nil for ``Kind/tooManyEntries``).
    public let entry: DocumentSourceTreePath?
    /// One line in words, naming the entry (escaped as `DocumentSourceTreePath/visible`).
    public let message: String

    /// Creates a record.
    public init(kind: Kind, entry: DocumentSourceTreePath?, message: String) {
        self.kind = kind
        self.entry = entry
        self.message = message
    }
}

/// Why an archive could not be scanned at all (or the scan ended early).
public struct ArchiveError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The groups of failures, as callers act on them.
    public enum Kind: Sendable, Hashable {
        /// The file does not exist (SPEC §5: 66).
        case notFound
        /// The file could not be read: permission denied, an I/O error (74).
        case unreadable
        /// Not an archive of a supported format, or a corrupt or truncated one (65).
        case malformed
        /// The scan stopped at ``ArchiveScanner/Limits/maximumDecompressedSize`` (65): members
        /// reported before it stay reported.
        case limitReached
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// The archive's path, as given.
    public let path: DocumentSourceTreePath
    /// One line in words, without the path.
    public let message: String
    /// For ``Kind/limitReached``: the limit, in bytes.
    public let limit: Int64?

    /// Creates an error.
    public init(_ kind: Kind, path: DocumentSourceTreePath, message: String, limit: Int64? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.limit = limit
    }

    /// "PATH: message", the path escaped.
    public var description: String { "\(path.visible): \(message)" }
}
