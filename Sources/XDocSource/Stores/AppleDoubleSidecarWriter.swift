#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

extension DocumentSourceFile {
    /// Sets (`value` non-nil) or removes the `x-document-source` entry of the AppleDouble
    /// sidecar `._NAME`; the caller holds the writer lock of the file itself.
    ///
    /// The sidecar is found as the reader finds it (relative to its folder, `SidecarFolder`)
    /// and is only ever a regular file: a FIFO, link, folder or device of that name is
    /// refused, never opened. An existing sidecar is read whole (opened with `O_NOFOLLOW` and
    /// checked again with `fstat`), edited with ``AppleDouble/edited(_:setting:to:)`` (which
    /// refuses a malformed one: it is then left as it was) and written whole: a new file in
    /// the same folder, created relative to the folder, given the old file's mode and, where
    /// allowed, its owner, flushed, then renamed over `._NAME`, so a reader sees the old
    /// sidecar or the new one. A missing sidecar is created (``AppleDouble/newFile(attributes:)``).
    /// A removal that leaves the sidecar holding nothing deletes it (``AppleDouble/Edit/delete``).
    ///
    /// - Returns: whether the sidecar changed (false: a removal found no value there).
    ///
    /// With `orphan` (a removal only) the file itself need not exist or may be a symbolic
    /// link: the sidecar is edited as it is (`remove -r` clearing `._NAME` whose NAME is gone).
    @discardableResult
    func writeSidecarLocked(_ value: [UInt8]?, orphan: Bool = false) throws(DocumentSourceFileError) -> Bool {
        guard let folder = try SidecarFolder.locate(path, followSymlinks: followSymlinks, owner: self) else {
            throw noSidecarPlace()
        }
        defer { SystemCall.close(folder.descriptor) }
        let name = "._" + folder.name
        func location() -> String { sidecarPath ?? folder.display + name }
        func failure(_ code: Int32, _ doing: String) -> DocumentSourceFileError {
            DocumentSourceFileError(
                errno: code, path: path, context: "cannot \(doing) the AppleDouble sidecar \(location()): ")
        }
        // The file itself must exist: a sidecar of nothing would be an orphan.
        var data = stat()
        if !(orphan && value == nil),
            SystemCall.retrying({ fstatat(folder.descriptor, folder.name, &data, AT_SYMLINK_NOFOLLOW) }) != 0
        {
            throw DocumentSourceFileError(errno: errno, path: path)
        }
        guard let current = try readWholeSidecar(folder.descriptor, name, writing: value != nil, failure: failure) else {
            guard let value else { return false }
            let bytes: [UInt8]
            do {
                bytes = try AppleDouble.newFile(attributes: [.init(name: Self.plainAttributeName, value: value)])
            } catch {
                throw DocumentSourceFileError(
                    .tooLarge, path: path, message: "cannot write the AppleDouble sidecar \(location()): \(error)")
            }
            try replaceSidecar(folder.descriptor, name, with: bytes, keeping: nil, failure: failure)
            return true
        }
        let edit: AppleDouble.Edit
        do {
            edit = try AppleDouble.edited(current.bytes, setting: Self.plainAttributeName, to: value)
        } catch {
            // A sidecar that does not parse is left alone: rewriting it could lose what the
            // writer of it meant. An edit that does not fit is no fault of the file.
            if case .tooLarge = error {
                throw DocumentSourceFileError(
                    .tooLarge, path: path, message: "cannot write the AppleDouble sidecar \(location()): \(error)")
            }
            throw DocumentSourceFileError(
                .malformedSidecar, path: path,
                message: "malformed AppleDouble sidecar \(location()): \(error); it is left as it was")
        }
        switch edit {
        case .unchanged:
            return false
        case .replace(let bytes):
            try replaceSidecar(folder.descriptor, name, with: bytes, keeping: current.info, failure: failure)
        case .delete:
            if SystemCall.retrying({ unlinkat(folder.descriptor, name, 0) }) != 0 && errno != ENOENT {
                throw failure(errno, "remove")
            }
        }
        return true
    }

    /// The error for a path whose sidecar has no place: the path's own error when it does not
    /// exist, else "no last component" (`/`).
    private func noSidecarPlace() -> DocumentSourceFileError {
        var info = stat()
        if (followSymlinks ? stat(path, &info) : lstat(path, &info)) != 0 {
            return DocumentSourceFileError(errno: errno, path: path)
        }
        return DocumentSourceFileError(
            .unsupportedFileType, path: path, message: "has no name an AppleDouble sidecar ._NAME could be made from")
    }

    /// The whole sidecar and its `stat`, or nil when there is none. Anything but a regular
    /// file under that name is never opened: when `writing`, it is refused (writing over it,
    /// or through it, is never right); for a removal it holds no value (as for the reader).
    private func readWholeSidecar(
        _ folder: Int32, _ name: String, writing: Bool, failure: (Int32, String) -> DocumentSourceFileError
    ) throws(DocumentSourceFileError) -> (bytes: [UInt8], info: stat)? {
        for _ in 0..<3 {
            var before = stat()
            if SystemCall.retrying({ fstatat(folder, name, &before, AT_SYMLINK_NOFOLLOW) }) != 0 {
                if errno == ENOENT { return nil }
                throw failure(errno, "read")
            }
            guard before.st_mode & S_IFMT == S_IFREG else {
                guard writing else { return nil }
                throw DocumentSourceFileError(
                    .unsupportedFileType, path: path,
                    message: "\(VisibleText.escaped(name)) next to it is not a regular file, so it is not written as an AppleDouble sidecar")
            }
            let fd = SystemCall.retrying {
                openat(folder, name, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
            }
            if fd < 0 {
                if errno == ENOENT || errno == ELOOP { continue }  // changed since the check
                throw failure(errno, "read")
            }
            defer { SystemCall.close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw failure(errno, "read") }
            guard info.st_mode & S_IFMT == S_IFREG, info.st_dev == before.st_dev, info.st_ino == before.st_ino
            else { continue }
            let size = Int(info.st_size)
            guard size <= AppleDouble.maximumFileSize else {
                throw DocumentSourceFileError(
                    .tooLarge, path: path,
                    message: "the AppleDouble sidecar \(sidecarPath ?? name) is \(size) bytes, more than the \(AppleDouble.maximumFileSize >> 20) MiB this library rewrites")
            }
            // One byte more than the size: a file that grew since the fstat is read again.
            var code: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, count in
                do throws(Errno) {
                    count = try SystemCall.readFully(fd, into: UnsafeMutableRawBufferPointer(buffer))
                } catch {
                    code = error.rawValue
                    count = 0
                }
            }
            if code != 0 { throw failure(code, "read") }
            guard bytes.count == size else { continue }
            return (bytes, info)
        }
        throw DocumentSourceFileError(
            .ioError, path: path, message: "the AppleDouble sidecar \(sidecarPath ?? name) kept changing while it was read; try again")
    }

    /// Writes `bytes` to a new file in the folder and renames it over `name`; with `old`, the
    /// new file gets the old one's mode and (where allowed) owner and group. The new file is
    /// XDSSystem's ``TemporaryFile``: unnamed until it is renamed into place on Linux, so an
    /// interrupted writer (SIGKILL included) leaves nothing; elsewhere a named file removed
    /// on failure and on SIGINT, SIGTERM and SIGHUP; leftovers of killed writers are swept by
    /// the next writer in the folder (SPEC §5).
    private func replaceSidecar(
        _ folder: Int32, _ name: String, with bytes: [UInt8], keeping old: stat?,
        failure: (Int32, String) -> DocumentSourceFileError
    ) throws(DocumentSourceFileError) {
        // A new sidecar is made like any new file (0666 less the umask); a replaced one
        // starts private and gets the old mode once written.
        var file: TemporaryFile
        do throws(Errno) {
            file = try TemporaryFile.create(folder: folder, prefix: "", purpose: "sidecar", mode: old == nil ? 0o666 : 0o600)
        } catch {
            throw failure(error.rawValue, "write")
        }
        let fd = file.descriptor
        do throws(Errno) {
            try SystemCall.writeAll(fd, bytes)
            if let old {
                // Not the owner's to give away unless root: then the new file stays ours.
                _ = fchown(fd, old.st_uid, old.st_gid)
                if fchmod(fd, old.st_mode & 0o7777) != 0 { throw Errno.current }
            }
            if SystemCall.retrying({ fsync(fd) }) != 0 { throw Errno.current }
        } catch {
            file.discard()
            throw failure(error.rawValue, "write")
        }
        do throws(Errno) {
            try file.commit(as: name)
        } catch {
            throw failure(error.rawValue, "write")
        }
    }
}

extension DocumentSourceFile {
    /// ``remove(sidecar:)`` with `sidecar` true; the caller holds the lock.
    func removeEverywhereLocked() throws(DocumentSourceFileError) -> DocumentSourceRemoval {
        var result: DocumentSourceRemoval
        do {
            result = try removeLocked()
        } catch where error.kind == .notSupported || error.kind == .unsupportedFileType {
            // No extended attributes here (or none on this kind of file): the sidecar is the store.
            result = DocumentSourceRemoval(removed: [])
        }
        result.remaining.removeAll { $0.store == .appleDouble }
        do {
            if try writeSidecarLocked(nil) { result.removed.append(.appleDouble) }
        } catch {
            // Nothing changed yet: the failure is the answer; else the caller says what stayed.
            guard !result.removed.isEmpty else { throw error }
            result.remaining.append(.init(store: .appleDouble, location: sidecarPath ?? path, failure: error))
        }
        return result
    }
}
