#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written out of sight and then put in place whole (``commit(as:)`` renames it over
/// the target), so a reader sees the old file or the new one; what every writer of xds that
/// replaces a file uses (sidecars, `-o` output).
///
/// Nothing is left behind by an interrupted writer:
/// - **Linux, unnamed first**: the file is made with `O_TMPFILE` in the target's folder, so it
///   has no name while it is written; a process that dies (even of SIGKILL) leaves nothing,
///   the kernel frees it. ``commit(as:)`` gives it a name (`linkat` through
///   `/proc/self/fd/N`) and renames that over the target, with SIGINT, SIGTERM and SIGHUP held
///   back for those two calls, so only SIGKILL in that instant can leave the named file.
/// - **Elsewhere** (no `O_TMPFILE`, a filesystem that refuses it, no `/proc`): a named file
///   `.xds-PURPOSE-PID-RANDOM`, created with `O_EXCL`, removed on failure, and removed by the
///   ``SignalCleanup`` handlers on SIGINT, SIGTERM and SIGHUP.
/// - **What SIGKILL (or a crash) left** in either case is swept by the next writer in that
///   folder (``sweep(folder:prefix:)``): files of that name pattern whose process is gone and
///   that have not changed for ``staleAge`` seconds.
package struct TemporaryFile {
    /// The open file, for writing.
    package let descriptor: Int32
    private let folder: Int32
    private let prefix: String
    private let purpose: String
    /// The name, when the file has one (the fallback), and its ``SignalCleanup`` slot.
    private var name: String?
    private var slot: Int?
    private var open = true

    /// The name pattern's start: `.xds-`.
    package static let namePrefix = ".xds-"

    /// How long a temporary file of a process that is gone must have been left unchanged
    /// before ``sweep(folder:prefix:)`` removes it: 60 seconds (the process check alone could
    /// be fooled by a writer on another machine sharing the folder, whose pid means nothing here).
    package static let staleAge = 60

    /// `O_TMPFILE` (Glibc's module does not export the macro): `__O_TMPFILE | O_DIRECTORY`.
    #if os(Linux)
    private static let unnamedFlag: Int32 = 0o20_000_000 | O_DIRECTORY
    #endif

    /// Whether `/proc/self/fd` is there to give an unnamed file a name.
    private static let procAvailable: Bool = {
        #if os(Linux)
        return access("/proc/self/fd", X_OK) == 0
        #else
        return false
        #endif
    }()

    /// Makes a temporary file in the folder `prefix` (empty, or ending in `/`) relative to the
    /// open folder `folder` (`AT_FDCWD` for the current directory), with `mode` (less the umask).
    /// - Parameter purpose: a word in the fallback's name (`sidecar`, `output`).
    package static func create(
        folder: Int32, prefix: String, purpose: String, mode: mode_t
    ) throws(Errno) -> TemporaryFile {
        sweep(folder: folder, prefix: prefix)
        #if os(Linux)
        if procAvailable {
            let fd = SystemCall.retrying {
                openat(folder, prefix.isEmpty ? "." : prefix, unnamedFlag | O_WRONLY | O_CLOEXEC, mode)
            }
            if fd >= 0 {
                return TemporaryFile(descriptor: fd, folder: folder, prefix: prefix, purpose: purpose)
            }
            // EOPNOTSUPP, EISDIR, EINVAL: a filesystem or kernel without O_TMPFILE; the named
            // fallback below. Anything else (no such folder, permission) is the answer.
            let code = errno
            guard code == EOPNOTSUPP || code == ENOTSUP || code == EISDIR || code == EINVAL else {
                throw Errno(rawValue: code)
            }
        }
        #endif
        for _ in 0..<8 {
            let name = uniqueName(purpose)
            var slot: Int?
            let made: (Int32, Int32) = SignalCleanup.withSignalsBlocked {
                let fd = SystemCall.retrying {
                    openat(folder, prefix + name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
                }
                let code = errno
                if fd >= 0 { slot = SignalCleanup.protect(cleanupPath(folder: folder, prefix + name)) }
                return (fd, code)
            }
            if made.0 < 0 {
                if made.1 == EEXIST { continue }
                throw Errno(rawValue: made.1)
            }
            var file = TemporaryFile(descriptor: made.0, folder: folder, prefix: prefix, purpose: purpose)
            file.name = name
            file.slot = slot
            return file
        }
        throw Errno(rawValue: EEXIST)
    }

    private init(descriptor: Int32, folder: Int32, prefix: String, purpose: String) {
        self.descriptor = descriptor
        self.folder = folder
        self.prefix = prefix
        self.purpose = purpose
    }

    /// `.xds-PURPOSE-PID-RANDOM`: the pattern ``sweep(folder:prefix:)`` knows.
    private static func uniqueName(_ purpose: String) -> String {
        "\(namePrefix)\(purpose)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// The path the signal handler unlinks: through `/proc/self/fd/N/` when the folder is an
    /// open descriptor (valid as long as it is open, which it is while the file is written).
    private static func cleanupPath(folder: Int32, _ relative: String) -> String {
        if folder == AT_FDCWD || relative.hasPrefix("/") { return relative }
        return "/proc/self/fd/\(folder)/\(relative)"
    }

    /// Closes the file (reporting late write errors) and renames it over `target` (relative
    /// to the same folder as the file: `prefix` + `target`). On failure the temporary file is
    /// removed and the target is as it was.
    package mutating func commit(as target: String) throws(Errno) {
        precondition(open, "commit after commit or discard")
        open = false
        guard let name else {
            if let error = commitUnnamed(as: target) { throw error }
            return
        }
        // close(2) reports late write errors (NFS, quota); its EINTR is not retried.
        var failure: Errno?
        if close(descriptor) != 0 { failure = .current }
        if failure == nil, SystemCall.retrying({ renameat(folder, prefix + name, folder, prefix + target) }) != 0 {
            failure = .current
        }
        if let failure {
            removeNamed()
            throw failure
        }
        if let slot { SignalCleanup.release(slot) }
    }

    /// Gives the unnamed file a name (`linkat` through `/proc/self/fd/N`, which must still be
    /// open), closes it and renames it over `target`, SIGINT, SIGTERM and SIGHUP held back
    /// meanwhile: a signal then arrives once the file is in place, and nothing is left.
    private func commitUnnamed(as target: String) -> Errno? {
        SignalCleanup.withSignalsBlocked { () -> Errno? in
            var linked: String?
            var failure: Errno?
            for _ in 0..<8 {
                let candidate = Self.uniqueName(purpose)
                if SystemCall.retrying({
                    linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", folder, prefix + candidate, AT_SYMLINK_FOLLOW)
                }) == 0 {
                    linked = candidate
                    break
                }
                if errno != EEXIST {
                    failure = .current
                    break
                }
            }
            if close(descriptor) != 0 && failure == nil { failure = .current }
            guard let linked else { return failure ?? Errno(rawValue: EEXIST) }
            if failure == nil, SystemCall.retrying({ renameat(folder, prefix + linked, folder, prefix + target) }) != 0 {
                failure = .current
            }
            if failure != nil { _ = unlinkat(folder, prefix + linked, 0) }
            return failure
        }
    }

    /// Removes the named temporary file (after a failure).
    private func removeNamed() {
        guard let name else { return }
        _ = unlinkat(folder, prefix + name, 0)
        if let slot { SignalCleanup.release(slot) }
    }

    /// Closes and removes the file without putting it in place.
    package mutating func discard() {
        guard open else { return }
        open = false
        SystemCall.close(descriptor)
        removeNamed()
    }

    // MARK: - Sweeping

    /// Folders already swept by this process (device, inode): once each is enough.
    private static let swept = Lock(Set<[UInt64]>())

    /// Removes what interrupted writers left in a folder: regular files named
    /// `.xds-WORD-PID-RANDOM` whose process `PID` is not running and that have not been
    /// modified for ``staleAge`` seconds. Each folder is swept once per process. Failures are
    /// ignored (a sweep is tidying, never a reason for a write to fail).
    package static func sweep(folder: Int32, prefix: String) {
        let fd = SystemCall.retrying {
            openat(folder, prefix.isEmpty ? "." : prefix, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK)
        }
        guard fd >= 0 else { return }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            SystemCall.close(fd)
            return
        }
        let key = [UInt64(info.st_dev), UInt64(info.st_ino)]
        guard swept.withLock({ $0.insert(key).inserted }) else {
            SystemCall.close(fd)
            return
        }
        guard let directory = fdopendir(fd) else {
            SystemCall.close(fd)
            return
        }
        defer { closedir(directory) }
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        while let entry = readdir(directory) {
            let raw = (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self)
            guard strncmp(raw, namePrefix, namePrefix.utf8.count) == 0 else { continue }
            let name = String(cString: raw)
            guard let pid = stalePid(name) else { continue }
            var file = stat()
            guard fstatat(fd, name, &file, AT_SYMLINK_NOFOLLOW) == 0, file.st_mode & S_IFMT == S_IFREG else { continue }
            guard Int(now.tv_sec) - Int(file.st_mtim.tv_sec) >= staleAge else { continue }
            guard kill(pid, 0) != 0 && errno == ESRCH else { continue }
            _ = unlinkat(fd, name, 0)
        }
    }

    /// The pid in a name `.xds-WORD-PID-RANDOM` (WORD lower-case letters, PID and RANDOM
    /// decimal), or nil for any other name.
    package static func stalePid(_ name: String) -> pid_t? {
        guard name.hasPrefix(namePrefix) else { return nil }
        let parts = name.dropFirst(namePrefix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy({ ("a"..."z").contains($0) }),
            let pid = pid_t(parts[1]), pid > 0, parts[1].allSatisfy(\.isASCII),
            UInt32(parts[2]) != nil
        else { return nil }
        return pid
    }
}
