#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDSWalk

extension DocumentSourceTree.InspectedEntry {
    /// Runs `body` holding the writers' lock of the entry, for an inspector that changes what
    /// it found (`xds strip -r`), as `remove -r` changes an entry: the entry is opened relative
    /// to ``folderDescriptor`` (no path walk) without following a symbolic link (one swapped in
    /// since the listing is refused, never followed out of the tree) or waiting on a FIFO,
    /// locked with the writers' `flock` (`FileLock`) and changed through its descriptor. A file
    /// that cannot be opened for reading is changed by path without the lock, as
    /// `DocumentSourceFile` does. An orphan (``isOrphan``) has no file to lock: `body` runs
    /// without it, and only the sidecar and companion can be changed.
    /// - Throws: ``DocumentSourceFileError``: `DocumentSourceFileError/Kind/notFound` when the
    ///   entry is gone (or is now a link), the lock still held after 10 s, or what `body` throws.
    package func withWriterLock<T>(
        _ body: (DocumentSourceTree.EntryWriter) throws(DocumentSourceFileError) -> T
    ) throws(DocumentSourceFileError) -> T {
        guard !isOrphan else { return try body(DocumentSourceTree.EntryWriter(entry: self, descriptor: -1)) }
        var cName = name.map { CChar(bitPattern: $0) }
        cName.append(0)
        // A root whose folder could not be opened is named by its path, followed (named on purpose).
        let relative = folderDescriptor != AT_FDCWD
        var flags = FileLock.entryFlags(isFolder: isFolder)
        if !relative { flags &= ~O_NOFOLLOW }
        let opened = (relative ? cName : access).withUnsafeBufferPointer { p in
            SystemCall.retrying { openat(folderDescriptor, p.baseAddress!, flags) }
        }
        let fd = try FileLock.lockEntry(opened: opened, label: path.lossyString)
        defer { if fd >= 0 { SystemCall.close(fd) } }
        return try body(DocumentSourceTree.EntryWriter(entry: self, descriptor: fd))
    }
}

extension DocumentSourceTree {
    /// What an inspector may change of an entry while it holds its writers' lock
    /// (``InspectedEntry/withWriterLock(_:)``): attributes removed through the open
    /// descriptor, the sidecar edited and the companion deleted relative to the walk's open
    /// folder. Valid only inside that call.
    package struct EntryWriter {
        let entry: InspectedEntry
        /// The entry opened and locked; -1 when it could not be opened for reading (by path,
        /// unlocked) or for an orphan.
        let descriptor: Int32

        /// Removes the attribute `name` (exact bytes, as listed); false when it was not set
        /// (any more). An orphan has no attributes: false.
        package func removeAttribute(named name: ArraySlice<UInt8>) throws(DocumentSourceFileError) -> Bool {
            guard !entry.isOrphan else { return false }
            var cName = name.map { CChar(bitPattern: $0) }
            cName.append(0)
            do {
                return descriptor >= 0
                    ? try ExtendedAttributes.removeValue(cName: cName, descriptor: descriptor)
                    : try ExtendedAttributes.removeValue(cName: cName, atCPath: entry.access, follow: entry.follow)
            } catch {
                throw DocumentSourceFile(path: entry.path.lossyString, followSymlinks: false).writeError(error)
            }
        }

        /// Edits the sidecar ``InspectedEntry/sidecarName`` in one atomic write as
        /// `DocumentSourceFile`'s sidecar writer does (read whole, `edit` decides from the
        /// whole file, every other entry byte-exact, deleted when `edit` says so; a malformed
        /// one left as it was, `DocumentSourceFileError/Kind/malformedSidecar`); false when
        /// there is none (or it is no regular file) or nothing changed. Its name is rewritten
        /// through a name as text, so an entry whose name is not UTF-8 has its sidecar refused.
        package func editSidecar(
            _ edit: ([UInt8]) throws(AppleDoubleError) -> AppleDouble.Edit
        ) throws(DocumentSourceFileError) -> Bool {
            guard let sidecarName = entry.sidecarName, let sidecar = entry.sidecar else { return false }
            let label = entry.path.lossyString
            let ownerBytes = entry.isOrphan ? Array(sidecarName.dropFirst(2)) : entry.name
            guard let owner = String(validatingUTF8Bytes: ownerBytes) else {
                throw DocumentSourceFileError(
                    .ioError, path: label, message: "its name is not UTF-8, so its sidecar is not rewritten",
                    errorNumber: EILSEQ)
            }
            return try DocumentSourceFile(path: label, followSymlinks: false).editSidecarLocked(
                inFolder: entry.folderDescriptor, ownerName: owner, location: sidecar.lossyString,
                orphan: entry.isOrphan, edit: edit)
        }

        /// Deletes the companion file `FileTree/InspectedEntry/companionName` when it is
        /// (still) a regular file; false when there is none. `noun`: what messages call it.
        package func removeCompanion(describedAs noun: String) throws(DocumentSourceFileError) -> Bool {
            guard let companionName = entry.companionName, let companion = entry.companion else { return false }
            return try removeFile(companionName, shown: "the \(noun) \(companion.lossyString)")
        }

        /// Deletes the file `name` beside the entry, relative to the walk's open folder, when
        /// it is (still) a regular file; false when there is none. `shown`: it in messages.
        func removeFile(_ name: [UInt8], shown: String) throws(DocumentSourceFileError) -> Bool {
            var cName = name.map { CChar(bitPattern: $0) }
            cName.append(0)
            do throws(Errno) {
                return try DocumentSourceFile.removeRegularFile(cName, inFolder: entry.folderDescriptor)
            } catch {
                throw DocumentSourceFileError(
                    errno: error.rawValue, path: entry.path.lossyString, context: "cannot remove \(shown): ")
            }
        }
    }
}

extension DocumentSourceTree.InspectedEntry {
    /// Whether the companion file ``companionName`` is (still) a regular file, without opening
    /// it (what `strip -r -n` reports).
    package var hasCompanion: Bool {
        guard let companionName else { return false }
        var cName = companionName.map { CChar(bitPattern: $0) }
        cName.append(0)
        var info = stat()
        let found = cName.withUnsafeBufferPointer { fstatat(folderDescriptor, $0.baseAddress!, &info, AT_SYMLINK_NOFOLLOW) }
        return found == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}

extension DocumentSourceTree.EntryWriter {
    /// Deletes the sidecar `FileTree/InspectedEntry/sidecarName` whatever it holds
    /// (a malformed one too), relative to the walk's open folder, when it is (still) a regular
    /// file; false when there is none. What `strip --mac-metadata` does with a `._NAME`.
    package func removeSidecarFile() throws(DocumentSourceFileError) -> Bool {
        guard let sidecarName = entry.sidecarName, let sidecar = entry.sidecar else { return false }
        return try removeFile(sidecarName, shown: "the sidecar \(sidecar.lossyString)")
    }
}

extension DocumentSourceTree.InspectedEntry {
    /// The AppleDouble sidecar `FileTree/InspectedEntry/sidecar`, parsed (its first 64 KiB, where xnu keeps the
    /// attributes), or nil when there is none or it is gone or no longer a regular file. It
    /// is opened relative to `folderDescriptor` without following a link or waiting on a
    /// FIFO.
    /// - Throws: ``DocumentSourceFileError``: `DocumentSourceFileError/Kind/malformedSidecar`
    ///   when it is not a well-formed AppleDouble file, else the read's failure.
    public func readSidecar() throws(DocumentSourceFileError) -> AppleDouble? {
        guard let sidecarName, let sidecar else { return nil }
        let reading = StoredValueReading(path: path, followSymlinks: false)
        guard let start = try reading.readSidecarStart(
            folder: folderDescriptor, name: sidecarName, checkFirst: false, location: { sidecar.lossyString })
        else { return nil }
        do {
            return try AppleDouble(bytes: start.bytes, fileSize: start.fileSize)
        } catch {
            throw DocumentSourceFileError(
                .malformedSidecar, path: path.lossyString,
                message: "malformed AppleDouble sidecar \(sidecar.lossyString): \(error)")
        }
    }
}
