#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDSWalk

/// The advisory lock that serialises writers of one file's attribute (SPEC §2 "concurrent
/// writers"): an exclusive `flock(2)` on the file or folder itself, held from before the read
/// of a read–merge–write until after the write, and released when the descriptor is closed.
///
/// What it covers and what it does not:
/// - Every `DocumentSourceFile` writer (`update`, `write`, `writeRawValue`, `remove`) takes it,
///   in this process and in others, so two writers of different keys both keep theirs.
///   Readers take no lock: each write is one `setxattr` call, so they never see half a value.
/// - A writer waits up to ``patience`` (10 s) for the holder, then fails with
///   `DocumentSourceFileError/Kind/ioError` rather than hanging on a program that keeps
///   the file locked. The lock is not reentrant: a writer called while this process already
///   holds it on the same file would wait for itself.
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
        let fd: Int32
        switch acquire(path: path, followSymlinks: followSymlinks) {
        case .locked(let descriptor): fd = descriptor
        case .unlocked: fd = -1
        case .busy: throw busy(path)
        }
        // Closing the only descriptor of the open file releases the flock.
        defer { if fd >= 0 { SystemCall.close(fd) } }
        return try body()
    }

    /// The error for a lock still held by another program after ``patience``.
    static func busy(_ path: String) -> DocumentSourceFileError {
        DocumentSourceFileError(
            .ioError, path: path,
            message: "another program has held a lock on the file for \(Int(patience)) seconds; try again",
            errorNumber: EWOULDBLOCK)
    }

    /// How long a writer waits for the lock before it gives up (another `xds` holds it for
    /// milliseconds; a program that keeps it longer is not waited on forever).
    static let patience: Double = 10

    /// What ``acquire(path:followSymlinks:waitingAtMost:)`` got.
    enum Outcome {
        /// The lock is held on this descriptor.
        case locked(Int32)
        /// The file is written without the lock (see the type's notes).
        case unlocked
        /// Someone else held the lock for the whole wait.
        case busy
    }

    /// Whether `path` would be locked (false for the unlocked cases above); for tests.
    static func canLock(_ path: String, followSymlinks: Bool) -> Bool {
        guard case .locked(let fd) = acquire(path: path, followSymlinks: followSymlinks, waitingAtMost: 0)
        else { return false }
        SystemCall.close(fd)
        return true
    }

    /// Opens and locks `path`, waiting at most `seconds` for another holder to let go.
    static func acquire(path: String, followSymlinks: Bool, waitingAtMost seconds: Double = patience) -> Outcome {
        // A file swapped between the type check and the open is checked again; a path that
        // keeps changing is written unlocked rather than waited on forever.
        for _ in 0..<3 {
            var before = stat()
            let found = followSymlinks ? stat(path, &before) : lstat(path, &before)
            // A missing file: the attribute call reports it in words.
            guard found == 0 else { return .unlocked }
            let type = before.st_mode & S_IFMT
            guard type == S_IFREG || type == S_IFDIR else { return .unlocked }
            // O_NONBLOCK and O_NOCTTY: should the path become a FIFO or a terminal between the
            // stat and the open, the open neither hangs nor takes a controlling terminal.
            var flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK
            if type == S_IFDIR { flags |= O_DIRECTORY }
            if !followSymlinks { flags |= O_NOFOLLOW }
            let fd = SystemCall.retrying { open(path, flags) }
            guard fd >= 0 else { return .unlocked }
            var after = stat()
            guard fstat(fd, &after) == 0 else {
                SystemCall.close(fd)
                return .unlocked
            }
            guard after.st_dev == before.st_dev, after.st_ino == before.st_ino,
                after.st_mode & S_IFMT == type
            else {
                SystemCall.close(fd)
                continue
            }
            let outcome = wait(for: fd, seconds: seconds)
            if case .locked = outcome { return outcome }
            SystemCall.close(fd)
            return outcome
        }
        return .unlocked
    }

    /// How a walk's writers (`remove -r`, `strip -r`) open an entry to lock it: for reading,
    /// never following a symbolic link (one swapped in since the listing is refused, never
    /// followed out of the tree), never waiting on a FIFO or taking a terminal.
    static func entryFlags(isFolder: Bool) -> Int32 {
        O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (isFolder ? O_DIRECTORY : 0)
    }

    /// Takes the writers' lock on `fd`, what a walk's writer opened with ``entryFlags(isFolder:)``
    /// (-1 with `errno` set when the open failed), waiting as ``wait(for:seconds:)`` does.
    /// Returns the descriptor to act through and close (-1: the file cannot be opened for
    /// reading, EACCES, and is changed by path without the lock, as `DocumentSourceFile` does;
    /// a filesystem that refuses `flock` is changed through `fd` without it).
    /// - Throws: the open's failure (a link swapped in, ELOOP, reads as gone), or the lock
    ///   still held by another program after ``patience`` (`fd` is then closed).
    static func lockEntry(opened fd: Int32, label: String) throws(DocumentSourceFileError) -> Int32 {
        if fd < 0 {
            let code = errno
            if code == EACCES { return -1 }
            throw DocumentSourceFileError(errno: code == ELOOP ? ENOENT : code, path: label)
        }
        if case .busy = wait(for: fd) {
            SystemCall.close(fd)
            throw busy(label)
        }
        return fd
    }

    /// The one lock wait (a file's writers and the tree's removal): polls a non-blocking
    /// `flock` on `fd` (a blocking one cannot time out), sleeping 0.5 ms at first and up to
    /// 20 ms between tries, so a lock held for milliseconds costs about as much. `fd` stays
    /// open whatever the outcome (``Outcome/unlocked``: the filesystem refuses `flock`).
    static func wait(for fd: Int32, seconds: Double = patience) -> Outcome {
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        var pause: UInt32 = 500
        while true {
            if SystemCall.retrying({ flock(fd, LOCK_EX | LOCK_NB) }) == 0 { return .locked(fd) }
            // ENOLCK, EINVAL, ENOTSUP: a filesystem without flock is written unlocked.
            guard errno == EWOULDBLOCK else { return .unlocked }
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let waited = Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9
            guard waited < seconds else { return .busy }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }
}
