#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDSSystem

/// An output file written whole or not at all: ``begin(_:)`` makes a temporary file in the
/// target's folder (before any input is read, so a folder that cannot be written fails at once
/// and an interrupted run can be cleaned up), ``commit(_:)`` writes it and `rename(2)`s it over
/// the target. The temporary file is removed on failure and on SIGINT/SIGTERM/SIGHUP
/// (``TemporaryFileCleanup``).
///
/// An existing file keeps its permissions and, where allowed, its owner and group (always as
/// root; otherwise the group when it is one of ours). `-o LINK` writes to the file the link
/// points to, relative links and links into other folders included, and the link stays a
/// link; a dangling link creates its target. A target that exists and is not a regular file
/// (`/dev/null`, a pipe) is written in place.
struct AtomicOutput {
    /// The path as the user gave it (for messages).
    let requested: String
    /// The temporary file and its descriptor, or nil when writing in place.
    private var temp: (path: String, fd: Int32)?
    /// The final file (links resolved).
    private let target: String

    /// Prepares to write `requested`.
    static func begin(_ requested: String) throws(BinaryFileError) -> AtomicOutput {
        var st = stat()
        if stat(requested, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG {
            if (st.st_mode & S_IFMT) == S_IFDIR {
                throw BinaryFileError(path: requested, reason: "is a folder, not a file", status: .ioError)
            }
            return AtomicOutput(requested: requested, temp: nil, target: requested)
        }
        let target = resolvedLinks(requested)
        var old = stat()
        let exists = stat(target, &old) == 0
        let slash = target.lastIndex(of: "/")
        let folder = slash.map { String(target[...$0]) } ?? ""
        let base = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var template = Array("\(folder).\(base).xds-XXXXXX".utf8CString)
        let made: (Int32, Errno) = TemporaryFileCleanup.withSignalsBlocked {
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            let e = Errno.current
            if fd >= 0 { TemporaryFileCleanup.protect(String(cString: template)) }
            return (fd, e)
        }
        let fd = made.0
        if fd < 0 {
            if made.1.rawValue == ENOENT {
                throw BinaryFileError(path: requested, reason: "cannot write: the folder does not exist", status: .ioError)
            }
            throw .writing(made.1, path: requested)
        }
        let tempPath = String(cString: template)
        var output = AtomicOutput(requested: requested, temp: (tempPath, fd), target: target)
        // mkstemp makes the file 0600 and ours: give it the old file's owner (where the system
        // lets us; EPERM is expected and ignored) and mode, or what a plain create would give
        // (0666 less the umask). chown first: it may clear set-id bits that fchmod then restores.
        var mode: mode_t
        if exists {
            if geteuid() == 0 {
                _ = fchown(fd, old.st_uid, old.st_gid)
            } else if old.st_gid != getegid() {
                _ = fchown(fd, uid_t.max, old.st_gid)
            }
            mode = old.st_mode & 0o7777
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        if fchmod(fd, mode) != 0 {
            let e = Errno.current
            output.discard()
            throw .writing(e, path: requested)
        }
        return output
    }

    /// Writes `bytes` and puts the file in place; on failure removes the temporary file.
    mutating func commit(_ bytes: [UInt8]) throws(BinaryFileError) {
        guard let temp else {
            let fd = SystemCall.retrying { open(target, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY) }
            if fd < 0 { throw .writing(.current, path: requested) }
            defer { SystemCall.close(fd) }
            do throws(Errno) { try SystemCall.writeAll(fd, bytes) } catch { throw .writing(error, path: requested) }
            return
        }
        var failure: Errno?
        do throws(Errno) { try SystemCall.writeAll(temp.fd, bytes) } catch { failure = error }
        // close(2) reports late write errors (NFS, quota); its EINTR is not retried.
        if close(temp.fd) != 0 && failure == nil { failure = .current }
        self.temp = (temp.path, -1)
        if failure == nil && rename(temp.path, target) != 0 { failure = .current }
        if let failure {
            discard()
            throw .writing(failure, path: requested)
        }
        TemporaryFileCleanup.release()
        self.temp = nil
    }

    /// Removes the temporary file (after a failure elsewhere).
    mutating func discard() {
        guard let temp else { return }
        if temp.fd >= 0 { SystemCall.close(temp.fd) }
        unlink(temp.path)
        TemporaryFileCleanup.release()
        self.temp = nil
    }

    /// `path` with symbolic links at its end followed, each relative target read against the
    /// folder of its link (as the kernel does); a dangling link gives the path it points to,
    /// so the write creates it. Stops after 40 links (the kernel's ELOOP limit), leaving the
    /// rest to fail in mkstemp or rename.
    private static func resolvedLinks(_ path: String) -> String {
        var current = path
        var buffer = [CChar](repeating: 0, count: 4097)
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return current }
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { return current }
            buffer[n] = 0
            // A target that is not UTF-8 cannot be spelt as a String without changing it.
            guard let link = String(validatingCString: buffer) else { return current }
            if link.hasPrefix("/") {
                current = link
            } else if let slash = current.lastIndex(of: "/") {
                current = String(current[...slash]) + link
            } else {
                current = link
            }
        }
        return current
    }
}
