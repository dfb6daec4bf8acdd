#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDSSystem

/// The advisory lock that serialises writers of one file's attribute (SPEC §2 "concurrent
/// writers"): an exclusive `flock(2)` on the file or folder itself, held from before the read
/// of a read–merge–write until after the write, and released when the descriptor is closed.
///
/// What it covers and what it does not:
/// - Every `DocumentSourceFile` writer (`update`, `write`, `writeRawValue`, `remove`) takes it,
///   in this process and in others, so two writers of different keys both keep theirs.
///   Readers take no lock: each write is one `setxattr` call, so they never see half a value.
/// - Only regular files and folders are locked. A FIFO, socket or device is never opened
///   (opening one can block or have side effects, and Linux refuses `user.` attributes on
///   them anyway); a symbolic link acted on itself (`followSymlinks` false) is not opened either.
/// - A file that cannot be opened for reading (no read permission: the owner may still set
///   attributes on a mode-0200 file) or whose filesystem refuses `flock` is written without
///   the lock, as before it existed: opening it for writing instead would report a change
///   (`IN_CLOSE_WRITE`) to every watcher of the file.
/// - Programs that write the attribute without taking the lock, and writers on other
///   machines of a network filesystem whose `flock` is local only, are not serialised.
enum FileLock {
    /// Runs `body` holding the lock on `path` (its target when `followSymlinks`), after
    /// waiting for any other holder; the lock is released when `body` returns or throws.
    static func holding<T>(
        _ path: String, followSymlinks: Bool, _ body: () throws(DocumentSourceFileError) -> T
    ) throws(DocumentSourceFileError) -> T {
        let fd = acquire(path: path, followSymlinks: followSymlinks)
        // Closing the only descriptor of the open file releases the flock.
        defer { if fd >= 0 { SystemCall.close(fd) } }
        return try body()
    }

    /// Whether `path` would be locked (false for the unlocked cases above); for tests.
    static func canLock(_ path: String, followSymlinks: Bool) -> Bool {
        let fd = acquire(path: path, followSymlinks: followSymlinks)
        if fd >= 0 { SystemCall.close(fd) }
        return fd >= 0
    }

    /// The locked descriptor, or -1 when the file is left unlocked.
    static func acquire(path: String, followSymlinks: Bool) -> Int32 {
        // A file swapped between the type check and the open is checked again; a path that
        // keeps changing is written unlocked rather than waited on forever.
        for _ in 0..<3 {
            var before = stat()
            let found = followSymlinks ? stat(path, &before) : lstat(path, &before)
            // A missing file: the attribute call reports it in words.
            guard found == 0 else { return -1 }
            let type = before.st_mode & S_IFMT
            guard type == S_IFREG || type == S_IFDIR else { return -1 }
            // O_NONBLOCK and O_NOCTTY: should the path become a FIFO or a terminal between the
            // stat and the open, the open neither hangs nor takes a controlling terminal.
            var flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK
            if type == S_IFDIR { flags |= O_DIRECTORY }
            if !followSymlinks { flags |= O_NOFOLLOW }
            let fd = SystemCall.retrying { open(path, flags) }
            guard fd >= 0 else { return -1 }
            var after = stat()
            guard fstat(fd, &after) == 0 else {
                SystemCall.close(fd)
                return -1
            }
            guard after.st_dev == before.st_dev, after.st_ino == before.st_ino,
                after.st_mode & S_IFMT == type
            else {
                SystemCall.close(fd)
                continue
            }
            // flock waits for the holder; EINTR (a signal while waiting) waits again.
            guard SystemCall.retrying({ flock(fd, LOCK_EX) }) == 0 else {
                SystemCall.close(fd)
                return -1
            }
            return fd
        }
        return -1
    }
}
