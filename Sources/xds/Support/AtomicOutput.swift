#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDSSystem

/// An output file written whole or not at all: ``begin(_:replacingLinks:)`` makes a temporary
/// file in the target's folder (before any input is read, so a folder that cannot be written
/// fails at once), ``commit(_:)`` writes it and renames it over the target. The temporary file
/// is XDSSystem's ``TemporaryFile``: unnamed while it is written on Linux (nothing is left
/// behind even by SIGKILL), else a named file removed on failure and on SIGINT/SIGTERM/SIGHUP;
/// what a killed writer left is swept by the next one in that folder (SPEC §5).
///
/// An existing file keeps its permissions and, where allowed, its owner and group (always as
/// root; otherwise the group when it is one of ours). `-o LINK` writes to the file the link
/// points to, relative links and links into other folders included, and the link stays a
/// link; a dangling link creates its target. With `replacingLinks` (`xds appinfo`, which
/// writes nothing outside its folder) a link is never followed: it is replaced by the file.
/// A target that exists and is not a regular file (`/dev/null`, a pipe) is written in place
/// (replaced, with `replacingLinks`).
struct AtomicOutput {
    /// The path as the user gave it (for messages).
    let requested: String
    /// The temporary file, or nil when writing in place.
    private var temp: TemporaryFile?
    /// The final file's name in its folder (links resolved unless `replacingLinks`).
    private let targetName: String
    /// The final file (links resolved unless `replacingLinks`).
    private let target: String

    /// Prepares to write `requested`.
    static func begin(_ requested: String, replacingLinks: Bool = false) throws(BinaryFileError) -> AtomicOutput {
        var st = stat()
        if (replacingLinks ? lstat(requested, &st) : stat(requested, &st)) == 0 && (st.st_mode & S_IFMT) != S_IFREG {
            if (st.st_mode & S_IFMT) == S_IFDIR {
                throw BinaryFileError(path: requested, reason: "is a folder, not a file", status: .ioError)
            }
            if !replacingLinks {
                return AtomicOutput(requested: requested, temp: nil, targetName: requested, target: requested)
            }
        }
        let target = replacingLinks ? requested : resolvedLinks(requested)
        var old = stat()
        // Only a regular file's mode and owner are worth keeping (a replaced link's are not).
        let exists = lstat(target, &old) == 0 && (old.st_mode & S_IFMT) == S_IFREG
        let slash = target.lastIndex(of: "/")
        let folder = slash.map { String(target[...$0]) } ?? ""
        let base = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var file: TemporaryFile
        do throws(Errno) {
            file = try TemporaryFile.create(folder: AT_FDCWD, prefix: folder, purpose: "output", mode: 0o600)
        } catch {
            if error.rawValue == ENOENT {
                throw BinaryFileError(path: requested, reason: "cannot write: the folder does not exist", status: .ioError)
            }
            throw .writing(error, path: requested)
        }
        let fd = file.descriptor
        // The file is 0600 and ours: give it the old file's owner (where the system lets us;
        // EPERM is expected and ignored) and mode, or what a plain create would give (0666
        // less the umask). chown first: it may clear set-id bits that fchmod then restores.
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
            file.discard()
            throw .writing(e, path: requested)
        }
        return AtomicOutput(requested: requested, temp: file, targetName: base, target: target)
    }

    /// Writes `bytes` and puts the file in place; on failure removes the temporary file.
    mutating func commit(_ bytes: [UInt8]) throws(BinaryFileError) {
        guard var temp else {
            let fd = SystemCall.retrying { open(target, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY) }
            if fd < 0 { throw .writing(.current, path: requested) }
            defer { SystemCall.close(fd) }
            do throws(Errno) { try SystemCall.writeAll(fd, bytes) } catch { throw .writing(error, path: requested) }
            return
        }
        self.temp = nil
        do throws(Errno) {
            try SystemCall.writeAll(temp.descriptor, bytes)
        } catch {
            temp.discard()
            throw .writing(error, path: requested)
        }
        do throws(Errno) {
            try temp.commit(as: targetName)
        } catch {
            throw .writing(error, path: requested)
        }
    }

    /// Removes the temporary file (after a failure elsewhere).
    mutating func discard() {
        temp?.discard()
        temp = nil
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
