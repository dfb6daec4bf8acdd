#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// Why reading, writing or removing something of a path failed: the `x-document-source`
/// attribute (XDocSource, where this is `DocumentSourceFileError`), a mark (XDSProvenance), or
/// a folder or entry the tree walk met (``FileTree/Problem/error``).
///
/// ``message`` is one line in words naming the problem ("permission denied", "the filesystem
/// does not support extended attributes"), never a bare errno number; ``description`` puts the
/// path in front of it. ``kind`` groups failures the way callers act on them (the `xds` command
/// maps it to an exit status).
public struct FileAccessError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The groups of failures.
    public enum Kind: Sendable, Hashable {
        /// The file or folder does not exist (or a component of its path is not a folder).
        case notFound
        /// The stored value is not a property list with a dictionary root, or is too large.
        case malformedValue
        /// The AppleDouble sidecar `._NAME` is not a valid AppleDouble file.
        case malformedSidecar
        /// The value to write lacks a required field (``FileAccessError/missingFields``).
        case incompleteValue
        /// The filesystem does not support (user) extended attributes.
        case notSupported
        /// Linux allows `user.` attributes only on regular files and folders, and the path
        /// names a symbolic link (with symlinks not followed) or another kind of file.
        case unsupportedFileType
        /// Permission denied, or the operation is not permitted on this file.
        case permissionDenied
        /// The filesystem refused the value as too large.
        case tooLarge
        /// The disk or the quota is full.
        case noSpace
        /// The filesystem is mounted read-only.
        case readOnly
        /// Any other input/output failure.
        case ioError
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// The path the operation was on, as the caller gave it.
    public let path: String
    /// One line in words naming the problem, without the path.
    public let message: String
    /// The errno value behind the failure, when a system call failed.
    public let errorNumber: Int32?
    /// For ``Kind/incompleteValue``: the keys the value lacks (`identifier`, `name`).
    public let missingFields: [String]

    /// Creates an error; ``description`` becomes "`path`: `message`".
    public init(
        _ kind: Kind, path: String, message: String, errorNumber: Int32? = nil,
        missingFields: [String] = []
    ) {
        self.kind = kind
        self.path = path
        self.message = message
        self.errorNumber = errorNumber
        self.missingFields = missingFields
    }

    /// "PATH: message".
    public var description: String { "\(path): \(message)" }

    /// Maps an errno value from an extended-attribute or file call to an error in words (the
    /// words are XDSSystem's one errno table, `Errno.words`; the kind is decided here).
    package init(errno code: Int32, path: String, context: String = "") {
        let kind: Kind
        switch code {
        case ENOENT, ENOTDIR: kind = .notFound
        case EACCES, EPERM: kind = .permissionDenied
        case ENOTSUP, EOPNOTSUPP: kind = .notSupported
        case E2BIG, ERANGE: kind = .tooLarge
        case ENOSPC, EDQUOT: kind = .noSpace
        case EROFS: kind = .readOnly
        default: kind = .ioError
        }
        self.init(kind, path: path, message: context + Errno(rawValue: code).words, errorNumber: code)
    }
}
