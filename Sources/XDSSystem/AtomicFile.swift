#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written whole or not at all: the one atomic write of the project, used for `xds`
/// `-o` outputs, `xds appinfo`'s files, AppleDouble sidecars and the HTTP cache's entries,
/// and public so that programs writing what the libraries make (an `AppIconPublication`'s
/// images, a masked PNG) get the same guarantees: XDocSource names it for them (its
/// `AtomicFile` and `AtomicFileError` are these types), as this module is the package's own.
///
/// ``begin(_:options:)`` makes a temporary file in the target's folder (so a folder that
/// cannot be written fails before any work), ``commit(_:)`` writes the bytes, flushes them
/// with `fsync` when ``Options/synchronized`` asks, and renames the file over the target: a
/// reader sees the old file or the new one, never part of either.
///
/// Nothing is left behind by an interrupted writer: on Linux the temporary file has no name
/// until it is renamed into place (`O_TMPFILE`), so even SIGKILL leaves nothing; elsewhere it
/// is a named file `.xds-WORD-PID-RANDOM`, removed on failure and on SIGINT, SIGTERM and
/// SIGHUP (when the program has not installed handlers of its own); what a killed writer left
/// is removed by the next writer in that folder once its process is gone and it is a minute old.
///
/// An existing regular file keeps its permissions and, where allowed, its owner and group
/// (always as root; otherwise the group when it is one of the process's). A new file gets
/// ``Options/newFileMode`` less the umask. A symbolic link at the path is followed (the file it
/// points to is replaced, relative and dangling links included, and the link stays a link)
/// unless ``Options/replacingLinks`` is set: then the link itself is replaced by the file. A
/// target that exists and is not a regular file (`/dev/null`, a pipe) is written in place, or
/// replaced with ``Options/replacingLinks``; a folder is refused.
///
/// ```swift
/// try AtomicFile.write(publication.appInfoJSON, to: "site/appInfo.json")
/// ```
public struct AtomicFile: Sendable {
    /// How the file is written.
    public struct Options: Sendable {
        /// Replace a symbolic link at the path by the file instead of writing to the file it
        /// points to, and replace (rather than write into) a FIFO or device there.
        public var replacingLinks: Bool
        /// `fsync` the file before it is renamed into place, so that after a crash of the
        /// system the target holds the old bytes or the new ones (not an empty file).
        public var synchronized: Bool
        /// The permissions of a file that did not exist (less the umask); also used for an
        /// existing file when ``keepingOwnerAndMode`` is false.
        public var newFileMode: Int
        /// Give the new file the permissions and, where allowed, the owner and group of the
        /// regular file it replaces.
        public var keepingOwnerAndMode: Bool

        /// Options; the defaults are those of `xds -o`: links followed, no `fsync`, a new file
        /// 0666 less the umask, an old file's mode and owner kept.
        public init(replacingLinks: Bool = false, synchronized: Bool = false, newFileMode: Int = 0o666,
                    keepingOwnerAndMode: Bool = true) {
            self.replacingLinks = replacingLinks
            self.synchronized = synchronized
            self.newFileMode = newFileMode
            self.keepingOwnerAndMode = keepingOwnerAndMode
        }
    }

    /// The path as it was given (the name in messages).
    public let path: String
    private let options: Options
    /// The temporary file; nil when writing in place, or once committed or discarded.
    private var temporary: TemporaryFile?
    /// Writing in place (a target that is not a regular file, links followed).
    private let inPlace: Bool
    /// The folder the paths are relative to (`AT_FDCWD`, or an open folder).
    private let folder: Int32
    /// The final file (links resolved unless replacing them) and its name in its folder.
    private let target: String
    private let targetName: String
    /// The target opened for a streamed write in place (``streamingDescriptor()``).
    private var inPlaceDescriptor: Int32?

    /// Writes `bytes` to `path` whole (``begin(_:options:)`` and ``commit(_:)``).
    /// - Throws: ``AtomicFileError`` naming `path`.
    public static func write(_ bytes: [UInt8], to path: String, options: Options = Options()) throws(AtomicFileError) {
        var file = try begin(path, options: options)
        try file.commit(bytes)
    }

    /// Prepares to write `path`: makes the temporary file beside the target (nothing is
    /// changed at `path` until ``commit(_:)``). Call ``commit(_:)`` or ``discard()``.
    /// - Throws: ``AtomicFileError``: `path` is a folder, its folder does not exist or
    ///   cannot be written, or the permissions cannot be set.
    public static func begin(_ path: String, options: Options = Options()) throws(AtomicFileError) -> AtomicFile {
        try begin(path, in: AT_FDCWD, purpose: "output", options: options)
    }

    /// ``begin(_:options:)`` for `path` relative to the open folder `folder`; `purpose` is a
    /// lower-case word in the name of the named fallback (`sidecar`, `cache`).
    package static func begin(_ path: String, in folder: Int32, purpose: String,
                              options: Options) throws(AtomicFileError) -> AtomicFile {
        var info = stat()
        if SystemCall.retrying({ fstatat(folder, path, &info, options.replacingLinks ? AT_SYMLINK_NOFOLLOW : 0) }) == 0,
            info.st_mode & S_IFMT != S_IFREG
        {
            if info.st_mode & S_IFMT == S_IFDIR {
                throw AtomicFileError(path: path, message: "is a folder, not a file", errorNumber: EISDIR)
            }
            if !options.replacingLinks {
                return AtomicFile(path: path, options: options, temporary: nil, inPlace: true, folder: folder,
                                  target: path, targetName: path)
            }
        }
        let target = options.replacingLinks ? path : resolvedLinks(path, in: folder)
        var old = stat()
        // Only a regular file's mode and owner are worth keeping (a replaced link's are not).
        let keeping = options.keepingOwnerAndMode
            && SystemCall.retrying({ fstatat(folder, target, &old, AT_SYMLINK_NOFOLLOW) }) == 0
            && old.st_mode & S_IFMT == S_IFREG
        let slash = target.lastIndex(of: "/")
        let prefix = slash.map { String(target[...$0]) } ?? ""
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var file: TemporaryFile
        do throws(Errno) {
            // A new file is made with its mode (the umask applies); a replaced one starts
            // private and gets the old file's mode and owner below.
            file = try TemporaryFile.create(folder: folder, prefix: prefix, purpose: purpose,
                                            mode: keeping ? 0o600 : mode_t(options.newFileMode & 0o7777))
        } catch {
            if error.rawValue == ENOENT {
                throw AtomicFileError(path: path, message: "cannot write: the folder does not exist", errorNumber: ENOENT)
            }
            throw AtomicFileError(path: path, writing: error)
        }
        if keeping {
            let fd = file.descriptor
            // Where the system lets us (EPERM is expected and ignored). chown first: it may
            // clear set-id bits that fchmod then restores.
            if geteuid() == 0 {
                _ = fchown(fd, old.st_uid, old.st_gid)
            } else if old.st_gid != getegid() {
                _ = fchown(fd, uid_t.max, old.st_gid)
            }
            if fchmod(fd, old.st_mode & 0o7777) != 0 {
                let error = Errno.current
                file.discard()
                throw AtomicFileError(path: path, writing: error)
            }
        }
        return AtomicFile(path: path, options: options, temporary: file, inPlace: false, folder: folder,
                          target: target, targetName: name)
    }

    private init(path: String, options: Options, temporary: TemporaryFile?, inPlace: Bool, folder: Int32,
                 target: String, targetName: String) {
        self.path = path
        self.options = options
        self.temporary = temporary
        self.inPlace = inPlace
        self.folder = folder
        self.target = target
        self.targetName = targetName
    }

    /// The new file before ``commit(_:)`` (nil when writing in place or once done), for what a
    /// writer gives it beside its bytes (XDocSource: a rewritten sidecar's extended attributes).
    package var temporaryDescriptor: Int32? { temporary?.descriptor }

    /// Writes `bytes` and puts the file in place. On failure the temporary file is removed
    /// and the target is as it was.
    /// - Throws: ``AtomicFileError``: the write, `fsync` or rename failed.
    public mutating func commit(_ bytes: [UInt8]) throws(AtomicFileError) {
        if inPlace {
            let fd = SystemCall.retrying { openat(folder, target, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY) }
            if fd < 0 { throw AtomicFileError(path: path, writing: .current) }
            defer { SystemCall.close(fd) }
            do throws(Errno) { try SystemCall.writeAll(fd, bytes) } catch { throw AtomicFileError(path: path, writing: error) }
            return
        }
        guard var file = temporary else { preconditionFailure("commit after commit or discard") }
        temporary = nil
        do throws(Errno) {
            try SystemCall.writeAll(file.descriptor, bytes)
            if options.synchronized, SystemCall.retrying({ fsync(file.descriptor) }) != 0 { throw Errno.current }
        } catch {
            file.discard()
            throw AtomicFileError(path: path, writing: error)
        }
        do throws(Errno) { try file.commit(as: targetName) } catch { throw AtomicFileError(path: path, writing: error) }
    }

    /// Removes the temporary file without touching the target (after a failure elsewhere).
    public mutating func discard() {
        temporary?.discard()
        temporary = nil
        if let fd = inPlaceDescriptor { SystemCall.close(fd) }
        inPlaceDescriptor = nil
    }

    /// For a writer that streams what it writes (a clean copy of an archive, larger than
    /// memory): the descriptor to write the new contents to, before ``commitStreamed()`` puts
    /// them in place, or ``discard()``. A target written in place (a FIFO, a device) is opened
    /// here.
    /// - Throws: ``AtomicFileError`` when a target written in place cannot be opened.
    package mutating func streamingDescriptor() throws(AtomicFileError) -> Int32 {
        if let temporary { return temporary.descriptor }
        if let inPlaceDescriptor { return inPlaceDescriptor }
        guard inPlace else { preconditionFailure("streaming after commit or discard") }
        let fd = SystemCall.retrying { openat(folder, target, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY) }
        if fd < 0 { throw AtomicFileError(path: path, writing: .current) }
        inPlaceDescriptor = fd
        return fd
    }

    /// Puts what was written to ``streamingDescriptor()`` in place (flushed first when
    /// ``Options/synchronized`` asks). On failure the temporary file is removed and the target
    /// is as it was.
    package mutating func commitStreamed() throws(AtomicFileError) {
        if let fd = inPlaceDescriptor {
            inPlaceDescriptor = nil
            SystemCall.close(fd)
            return
        }
        guard var file = temporary else { preconditionFailure("commit after commit or discard") }
        temporary = nil
        if options.synchronized, SystemCall.retrying({ fsync(file.descriptor) }) != 0 {
            let error = Errno.current
            file.discard()
            throw AtomicFileError(path: path, writing: error)
        }
        do throws(Errno) { try file.commit(as: targetName) } catch { throw AtomicFileError(path: path, writing: error) }
    }

    /// `path` with symbolic links at its end followed, each relative target read against the
    /// folder of its link (as the kernel does); a dangling link gives the path it points to,
    /// so the write creates it. Stops after 40 links (the kernel's ELOOP limit), leaving the
    /// rest to fail in the create or the rename.
    private static func resolvedLinks(_ path: String, in folder: Int32) -> String {
        var current = path
        var buffer = [CChar](repeating: 0, count: 4097)
        for _ in 0..<40 {
            var st = stat()
            guard fstatat(folder, current, &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return current }
            let n = readlinkat(folder, current, &buffer, buffer.count - 1)
            guard n > 0 else { return current }
            // A target that is not UTF-8 cannot be spelt as a String without changing it.
            guard let link = String(validatingUTF8Bytes: buffer[..<n].map { UInt8(bitPattern: $0) }) else { return current }
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

/// Why an ``AtomicFile`` could not be written: the path as given, one line in words, and the
/// system's error number.
public struct AtomicFileError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The path as it was given to ``AtomicFile``.
    public let path: String
    /// One line in words, without the path ("cannot write: permission denied").
    public let message: String
    /// The `errno` value behind the failure (`EISDIR` for a folder at the path).
    public let errorNumber: Int32

    /// Makes an error.
    public init(path: String, message: String, errorNumber: Int32) {
        self.path = path
        self.message = message
        self.errorNumber = errorNumber
    }

    init(path: String, writing error: Errno) {
        self.init(path: path, message: "cannot write: \(error.words)", errorNumber: error.rawValue)
    }

    /// `PATH: message`.
    public var description: String { "\(path): \(message)" }
}
