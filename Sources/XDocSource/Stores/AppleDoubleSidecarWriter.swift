#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDSWalk

extension DocumentSourceFile {
    /// Sets (`value` non-nil) or removes the `x-document-source` entry of the AppleDouble
    /// sidecar `._NAME`; the caller holds the writer lock of the file itself.
    ///
    /// The sidecar is found as the reader finds it (relative to its folder, `SidecarFolder`)
    /// and is only ever a regular file: a FIFO, link, folder or device of that name is
    /// refused, never opened. An existing sidecar is read whole (opened with `O_NOFOLLOW` and
    /// checked again with `fstat`), edited with ``AppleDouble/edited(_:setting:to:)`` (which
    /// refuses a malformed one: it is then left as it was) and written whole: a new file in
    /// the same folder, created relative to the folder, given the old file's mode, its own
    /// extended attributes and, where allowed, its owner, flushed, then renamed over `._NAME`,
    /// so a reader sees the old sidecar or the new one. A missing sidecar is created (``AppleDouble/newFile(attributes:)``).
    /// A removal that leaves the sidecar holding nothing deletes it (``AppleDouble/Edit/delete``).
    ///
    /// - Returns: whether the sidecar changed (false: a removal found no value there).
    ///
    /// With `orphan` (a removal only) the file itself need not exist or may be a symbolic
    /// link: the sidecar is edited as it is (`remove -r` clearing `._NAME` whose NAME is gone).
    @discardableResult
    func writeSidecarLocked(_ value: [UInt8]?, orphan: Bool = false) throws(DocumentSourceFileError) -> Bool {
        try changeSidecarLocked(writing: value != nil, orphan: orphan && value == nil) {
            () throws(AppleDoubleError) -> [UInt8]? in
            guard let value else { return nil }
            return try AppleDouble.newFile(attributes: [.init(name: Self.plainAttributeName, value: value)])
        } edit: { (current) throws(AppleDoubleError) -> AppleDouble.Edit in
            try AppleDouble.edited(current, setting: Self.plainAttributeName, to: value)
        }
    }

    /// Removes every entry named in `names` from the AppleDouble sidecar `._NAME` in one edit
    /// and one atomic write (``AppleDouble/edited(_:removing:)``: every other entry kept
    /// byte-exact, the sidecar deleted when nothing else is left in it); the caller holds the
    /// writer lock of the file itself (``withWriterLock(_:)``). With `orphan` the file itself
    /// need not exist (a sidecar whose NAME is gone). A sidecar that is not a regular file
    /// holds nothing here; a malformed one is left as it was and reported.
    ///
    /// - Returns: whether the sidecar changed (false: it has none of the names, or there is none).
    @discardableResult
    package func removeSidecarEntriesLocked(_ names: Set<String>, orphan: Bool = false) throws(DocumentSourceFileError) -> Bool {
        try changeSidecarLocked(writing: false, orphan: orphan) { () throws(AppleDoubleError) -> [UInt8]? in
            nil
        } edit: { (current) throws(AppleDoubleError) -> AppleDouble.Edit in
            try AppleDouble.edited(current, removing: names)
        }
    }

    /// Runs `body` holding the writers' lock of this file (`FileLock`: the advisory `flock`
    /// every writer of its attributes and sidecar takes, in this process and others).
    package func withWriterLock<T>(_ body: () throws(DocumentSourceFileError) -> T) throws(DocumentSourceFileError) -> T {
        try FileLock.holding(path, followSymlinks: followSymlinks, body)
    }

    /// The one sidecar change: `create` makes a new sidecar when there is none (nil: nothing
    /// to do), `edit` changes an existing one; `writing` refuses anything but a regular file
    /// under the sidecar's name (a removal finds no sidecar there).
    private func changeSidecarLocked(
        writing: Bool, orphan: Bool,
        create: () throws(AppleDoubleError) -> [UInt8]?,
        edit makeEdit: ([UInt8]) throws(AppleDoubleError) -> AppleDouble.Edit
    ) throws(DocumentSourceFileError) -> Bool {
        guard let folder = try SidecarFolder.locate(path, followSymlinks: followSymlinks, owner: path) else {
            throw noSidecarPlace()
        }
        defer { SystemCall.close(folder.descriptor) }
        return try changeSidecarLocked(
            inFolder: folder.descriptor, ownerName: folder.name,
            location: { sidecarPath ?? folder.display + "._" + folder.name },
            writing: writing, orphan: orphan, create: create, edit: makeEdit)
    }

    /// Edits the AppleDouble sidecar `._OWNERNAME` in the open folder `folder` (a walk's
    /// folder: nothing is looked up by path) as ``removeSidecarEntriesLocked(_:orphan:)`` does,
    /// with `edit` deciding the change from the whole current file; `location` names the
    /// sidecar in messages. The caller holds the writers' lock of the file (not needed with
    /// `orphan`: the file need not exist). A malformed sidecar is left as it was and reported.
    /// - Returns: whether the sidecar changed.
    package func editSidecarLocked(
        inFolder folder: Int32, ownerName: String, location: String, orphan: Bool,
        edit makeEdit: ([UInt8]) throws(AppleDoubleError) -> AppleDouble.Edit
    ) throws(DocumentSourceFileError) -> Bool {
        try changeSidecarLocked(
            inFolder: folder, ownerName: ownerName, location: { location }, writing: false, orphan: orphan,
            create: { () throws(AppleDoubleError) -> [UInt8]? in nil }, edit: makeEdit)
    }

    /// The one sidecar change, relative to the open folder that holds the file `ownerName`.
    private func changeSidecarLocked(
        inFolder descriptor: Int32, ownerName: String, location sidecarLocation: () -> String,
        writing: Bool, orphan: Bool,
        create: () throws(AppleDoubleError) -> [UInt8]?,
        edit makeEdit: ([UInt8]) throws(AppleDoubleError) -> AppleDouble.Edit
    ) throws(DocumentSourceFileError) -> Bool {
        let folder = (descriptor: descriptor, name: ownerName)
        let name = "._" + ownerName
        func location() -> String { sidecarLocation() }
        func failure(_ code: Int32, _ doing: String) -> DocumentSourceFileError {
            DocumentSourceFileError(
                errno: code, path: path, context: "cannot \(doing) the AppleDouble sidecar \(location()): ")
        }
        // The file itself must exist: a sidecar of nothing would be an orphan.
        var data = stat()
        if !orphan,
            SystemCall.retrying({ fstatat(folder.descriptor, folder.name, &data, AT_SYMLINK_NOFOLLOW) }) != 0
        {
            throw DocumentSourceFileError(errno: errno, path: path)
        }
        guard let (current, old) = try readWholeSidecar(folder.descriptor, name, location: sidecarLocation, writing: writing, failure: failure) else {
            let bytes: [UInt8]?
            do {
                bytes = try create()
            } catch {
                throw DocumentSourceFileError(
                    .tooLarge, path: path, message: "cannot write the AppleDouble sidecar \(location()): \(error)")
            }
            guard let bytes else { return false }
            try replaceSidecar(folder.descriptor, name, with: bytes, keepingAttributesOf: nil, location: location, failure: failure)
            return true
        }
        let edit: AppleDouble.Edit
        do {
            edit = try makeEdit(current)
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
            try replaceSidecar(folder.descriptor, name, with: bytes, keepingAttributesOf: old, location: location, failure: failure)
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

    /// The whole sidecar and the file it was read from (still open, for its attributes), or
    /// nil when there is none. Anything but a regular
    /// file under that name is never opened: when `writing`, it is refused (writing over it,
    /// or through it, is never right); for a removal it holds no value (as for the reader).
    private func readWholeSidecar(
        _ folder: Int32, _ name: String, location: () -> String, writing: Bool, failure: (Int32, String) -> DocumentSourceFileError
    ) throws(DocumentSourceFileError) -> ([UInt8], ReadableFile)? {
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
            let file: ReadableFile
            do throws(Errno) {
                file = try ReadableFile(name, relativeTo: folder, options: [.nonBlocking, .noFollow])
            } catch {
                if error.rawValue == ENOENT || error.rawValue == ELOOP { continue }  // changed since the check
                throw failure(error.rawValue, "read")
            }
            guard file.isRegular, file.info.st_dev == before.st_dev, file.info.st_ino == before.st_ino
            else { continue }
            let size = file.size
            guard size <= AppleDouble.maximumFileSize else {
                throw DocumentSourceFileError(
                    .tooLarge, path: path,
                    message: "the AppleDouble sidecar \(location()) is \(size) bytes, more than the \(AppleDouble.maximumFileSize >> 20) MiB this library rewrites")
            }
            // One byte more than the size: a file that grew since the fstat is read again.
            let bytes: [UInt8]
            do throws(Errno) { bytes = try file.read(upTo: size + 1) } catch { throw failure(error.rawValue, "read") }
            guard bytes.count == size else { continue }
            return (bytes, file)
        }
        throw DocumentSourceFileError(
            .ioError, path: path, message: "the AppleDouble sidecar \(location()) kept changing while it was read; try again")
    }

    /// Writes `bytes` whole over `name` in the folder: XDocSource's ``AtomicFile`` (a new file
    /// in the same folder, given the old one's mode and, where allowed, owner and group,
    /// flushed with `fsync`, renamed over `name`; unnamed until then on Linux, so an
    /// interrupted writer leaves nothing; SPEC §5). The name is replaced, never followed.
    ///
    /// The new file gets every extended attribute of `old`, the sidecar it replaces (SPEC §6:
    /// its POSIX ACL, a Samba share's `security.NTACL`, `user.*`, `trusted.*` as root), before
    /// it is put in place: one the process may not set is left out, any other failure leaves
    /// the old sidecar as it was.
    private func replaceSidecar(
        _ folder: Int32, _ name: String, with bytes: [UInt8], keepingAttributesOf old: ReadableFile?,
        location: () -> String, failure: (Int32, String) -> DocumentSourceFileError
    ) throws(DocumentSourceFileError) {
        var file: AtomicFile
        do throws(AtomicFileError) {
            file = try AtomicFile.begin(
                name, in: folder, purpose: "sidecar", options: AtomicFile.Options(replacingLinks: true, synchronized: true))
        } catch {
            throw failure(error.errorNumber, "write")
        }
        if let old, let new = file.temporaryDescriptor {
            do throws(ExtendedAttributeFailure) {
                try ExtendedAttributes.copyAll(from: old.descriptor, to: new)
            } catch {
                file.discard()
                // .ioError whatever the errno: not "no attributes here", which callers may pass over.
                throw DocumentSourceFileError(
                    .ioError, path: path,
                    message: "cannot give the rewritten AppleDouble sidecar \(location()) its extended attributes: \(Errno(rawValue: error.code).words); it is left as it was",
                    errorNumber: error.code)
            }
        }
        do throws(AtomicFileError) { try file.commit(bytes) } catch { throw failure(error.errorNumber, "write") }
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
