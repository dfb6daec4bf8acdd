#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("Unsupported platform")
#endif

/// An errno value, read once right after the call that failed (swift-system's `Errno`, kept
/// to what xds needs: the code, a test for "attribute missing", and the code in words).
package struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    /// The C value.
    package let rawValue: Int32

    /// Wraps a C errno value.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno`; read it straight after the failing call.
    package static var current: Errno { Errno(rawValue: errno) }

    /// The code in words, lower case, for the end of a "PATH: …" line: the project's own
    /// wording where strerror's is unclear to users, strerror's for the rest. Never a number.
    package var words: String {
        switch rawValue {
        case ENOENT: "no such file or folder"
        case ENOTDIR: "a component of the path is not a folder"
        case EISDIR: "is a folder, not a file"
        case EACCES: "permission denied"
        case EPERM: "operation not permitted"
        case ENOTSUP, EOPNOTSUPP: "the filesystem does not support extended attributes"
        case E2BIG, ERANGE: "the value is too large for this filesystem"
        case ENOSPC: "no space left on the device"
        case EDQUOT: "the disk quota is exhausted"
        case EROFS: "the filesystem is read-only"
        case ELOOP: "too many levels of symbolic links"
        case ENAMETOOLONG: "the path is too long"
        case EIO: "input/output error"
        case EPIPE: "the reader closed the pipe"
        case EBADF: "the file is not open"
        case EAGAIN: "the file is busy; try again"
        default: String(cString: strerror(rawValue)).lowercased()
        }
    }

    /// `strerror`'s text (as C programs print it).
    package var description: String { String(cString: strerror(rawValue)) }

    /// Whether this is "this extended attribute is not set": ENODATA on Linux, ENOATTR on Darwin.
    package var isMissingAttribute: Bool {
        #if canImport(Darwin)
        rawValue == ENOATTR
        #else
        rawValue == ENODATA
        #endif
    }

    /// Whether the filesystem has no (user) extended attributes.
    package var isNotSupported: Bool { rawValue == ENOTSUP || rawValue == EOPNOTSUPP }

    /// Lets callers write `case Errno.noSuchFile:`-style matches against raw codes: `ENOENT ~= e`.
    package static func ~= (code: Int32, error: Errno) -> Bool { code == error.rawValue }
}
