#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file could not be read or written; `description` is one line in words, and
/// `status` is the exit status SPEC §5 gives the failure (66 missing, 65 bad data, 74 I/O).
struct BinaryFileError: Error, CustomStringConvertible {
    /// The file, as the user named it.
    let path: String
    /// What went wrong, in words (no bare errno numbers).
    let reason: String
    /// The exit status for this failure.
    let status: ExitStatus

    var description: String { "\(path): \(reason)" }

    /// The error for a failed read of an input: `code` is the errno, `operation` says what failed ("cannot read", …).
    static func reading(_ code: Int32, path: String, operation: String) -> BinaryFileError {
        let words = String(cString: strerror(code))
        switch code {
        case ENOENT, ENOTDIR:
            return BinaryFileError(path: path, reason: "no such file", status: .noInput)
        case EISDIR:
            return BinaryFileError(path: path, reason: "is a folder, not a file", status: .noInput)
        default:
            return BinaryFileError(path: path, reason: "\(operation): \(words)", status: .ioError)
        }
    }
}

/// Whole-file reads and writes with plain system calls: one `open`, `fstat`, `read` loop into a
/// single buffer, and `write(2)` out. No Foundation, so `xds mask` starts fast.
enum BinaryFile {
    /// Reads the whole file at `path`, refusing files over `limit` bytes before reading them.
    static func readWhole(_ path: String, limit: Int) throws(BinaryFileError) -> [UInt8] {
        let fd = retrying { open(path, O_RDONLY | O_CLOEXEC) }
        if fd < 0 { throw .reading(errno, path: path, operation: "cannot open") }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) != 0 { throw .reading(errno, path: path, operation: "cannot read") }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw .reading(EISDIR, path: path, operation: "cannot read") }
        let tooLarge = BinaryFileError(
            path: path, reason: "is too large for a PNG icon (limit \(limit >> 20) MiB)", status: .dataError)
        let isRegular = (st.st_mode & S_IFMT) == S_IFREG
        if isRegular && Int(st.st_size) > limit { throw tooLarge }
        // A regular file's size is known: one buffer, and the last read returns 0 without growing.
        // Pipes and devices start small and double.
        var bytes = [UInt8](repeating: 0, count: isRegular ? Int(st.st_size) + 1 : 1 << 16)
        var count = 0
        while true {
            if count == bytes.count {
                bytes.append(contentsOf: repeatElement(0, count: min(count, limit + 1 - count)))
            }
            var failure: Int32 = 0
            let n = bytes.withUnsafeMutableBytes { buf -> Int in
                let r = retrying { read(fd, buf.baseAddress! + count, buf.count - count) }
                if r < 0 { failure = errno }
                return r
            }
            if n < 0 { throw .reading(failure, path: path, operation: "cannot read") }
            if n == 0 { break }
            count += n
            if count > limit { throw tooLarge }
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Writes `bytes` to `path` whole: into a temporary file in the same folder, then `rename(2)`
    /// over the target, so a failure never leaves a half-written or clobbered file. An existing
    /// file keeps its permissions, and a symbolic link stays a link (its target is replaced). A
    /// target that exists and is not a regular file (`/dev/null`, a pipe) is written in place.
    static func writeAtomically(_ bytes: [UInt8], to requested: String) throws(BinaryFileError) {
        var st = stat()
        let exists = stat(requested, &st) == 0
        if exists && (st.st_mode & S_IFMT) != S_IFREG {
            if (st.st_mode & S_IFMT) == S_IFDIR {
                throw BinaryFileError(path: requested, reason: "is a folder, not a file", status: .ioError)
            }
            let fd = retrying { open(requested, O_WRONLY | O_TRUNC | O_CLOEXEC) }
            if fd < 0 { throw ioError(errno, path: requested, operation: "cannot write") }
            defer { close(fd) }
            let e = writeAll(fd, bytes)
            if e != 0 { throw ioError(e, path: requested, operation: "cannot write") }
            return
        }
        let path = exists ? resolvedLink(requested) : requested
        let folder = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        let base = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(folder).\(base).xds-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd < 0 {
            let e = errno
            throw ioError(e, path: requested, operation: e == ENOENT ? "cannot write: the folder does not exist"
                                                                      : "cannot write")
        }
        let temp = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var failure: Int32 = 0
        // mkstemp makes the file 0600: give it the old file's mode, or what a plain create
        // would (0666 less the umask).
        var mode = st.st_mode & 0o7777
        if !exists {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        if fchmod(fd, mode) != 0 { failure = errno }
        if failure == 0 { failure = writeAll(fd, bytes) }
        if close(fd) != 0 && failure == 0 { failure = errno }
        if failure == 0 && rename(temp, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temp)
            throw ioError(failure, path: requested, operation: "cannot write")
        }
    }

    /// The file a symbolic link at `path` points to (links followed), or `path` itself.
    private static func resolvedLink(_ path: String) -> String {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK,
              let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Writes `bytes` to standard output.
    static func writeStandardOutput(_ bytes: [UInt8]) throws(BinaryFileError) {
        let e = writeAll(1, bytes)
        if e != 0 { throw ioError(e, path: "standard output", operation: "cannot write") }
    }

    /// Whether standard output is a terminal (where PNG bytes must not go).
    static var standardOutputIsTerminal: Bool { isatty(1) != 0 }

    // MARK: - Private

    private static func ioError(_ code: Int32, path: String, operation: String) -> BinaryFileError {
        let words = String(cString: strerror(code))
        return BinaryFileError(path: path, reason: operation.contains(":") ? operation : "\(operation): \(words)",
                               status: .ioError)
    }

    /// Writes everything, retrying short writes and EINTR; returns 0 or the errno.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBytes { buf -> Int32 in
            var done = 0
            while done < buf.count {
                let n = write(fd, buf.baseAddress! + done, buf.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += n
            }
            return 0
        }
    }

    /// Repeats a system call while it fails with EINTR.
    private static func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let r = call()
            if r >= 0 || errno != EINTR { return r }
        }
    }
}
