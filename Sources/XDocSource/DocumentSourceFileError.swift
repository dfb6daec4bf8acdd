#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why reading, writing or removing the `x-document-source` attribute of a path failed.
///
/// ``message`` is one line in words naming the problem ("permission denied", "the filesystem
/// does not support extended attributes"), never a bare errno number; ``description`` puts the
/// path in front of it. ``kind`` groups failures the way callers act on them (the `xds` command
/// maps it to an exit status).
public struct DocumentSourceFileError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The groups of failures.
    public enum Kind: Sendable, Hashable {
        /// The file or folder does not exist (or a component of its path is not a folder).
        case notFound
        /// The stored value is not a property list with a dictionary root, or is too large.
        case malformedValue
        /// The AppleDouble sidecar `._NAME` is not a valid AppleDouble file.
        case malformedSidecar
        /// The value to write lacks a required field (``DocumentSourceFileError/missingFields``).
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

    /// Maps an errno value from an extended-attribute or file call to an error in words.
    init(errno code: Int32, path: String, context: String = "") {
        let (kind, words): (Kind, String)
        switch code {
        case ENOENT: (kind, words) = (.notFound, "no such file or folder")
        case ENOTDIR: (kind, words) = (.notFound, "a component of the path is not a folder")
        case EACCES: (kind, words) = (.permissionDenied, "permission denied")
        case EPERM: (kind, words) = (.permissionDenied, "operation not permitted")
        case ENOTSUP, EOPNOTSUPP:
            (kind, words) = (.notSupported, "the filesystem does not support extended attributes")
        case E2BIG, ERANGE: (kind, words) = (.tooLarge, "the value is too large for this filesystem")
        case ENOSPC: (kind, words) = (.noSpace, "no space left on the device")
        case EDQUOT: (kind, words) = (.noSpace, "the disk quota is exhausted")
        case EROFS: (kind, words) = (.readOnly, "the filesystem is read-only")
        case ELOOP: (kind, words) = (.ioError, "too many levels of symbolic links")
        case ENAMETOOLONG: (kind, words) = (.ioError, "the path is too long")
        case EIO: (kind, words) = (.ioError, "input/output error")
        default:
            // strerror gives words for the rest; it is a C string owned by libc.
            (kind, words) = (.ioError, String(cString: strerror(code)).lowercased())
        }
        self.init(kind, path: path, message: context + words, errorNumber: code)
    }
}
