#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDSWalk

extension DocumentSourceTree.Found {
    /// Removes the attribute from the native attribute and Samba's stream attributes of this
    /// file or folder, as ``DocumentSourceFile/remove(sidecar:)`` does, working on the exact bytes of
    /// ``path`` (names need not be UTF-8): the file is opened without following a symbolic link
    /// (one swapped in since the walk is refused, never followed out of the tree), locked with
    /// the writers' `flock` and cleared through its descriptor. A file that cannot be opened
    /// for reading is cleared by path without the lock, as `DocumentSourceFile` does.
    ///
    /// With `sidecar` false an AppleDouble sidecar is left alone (a separate file other tools
    /// own): when the listing had one and it still holds a value, it is in
    /// ``DocumentSourceRemoval/remaining``. With `sidecar` true the value is removed from it too,
    /// as ``DocumentSourceFile/remove(sidecar:)`` does (every other entry kept byte-exact, the
    /// sidecar written whole, deleted when left empty), and a filesystem without extended
    /// attributes is no failure: the sidecar is its store. A sidecar is rewritten by name, so
    /// it needs a path that is UTF-8 (otherwise it remains, with the reason).
    /// A path longer than `PATH_MAX` is opened piece by piece (`LongPath`), its sidecar relative
    /// to its folder; only a file that cannot be opened for reading is then out of reach
    /// (ENAMETOOLONG, as an I/O error).
    ///
    /// - Returns: the stores cleared (empty when none had a value) and what remains.
    /// - Throws: ``DocumentSourceFileError`` when the first store that had to change could not,
    ///   `DocumentSourceFileError/Kind/notFound` when the file is gone.
    ///
    /// An orphan sidecar (``isOrphanSidecar``) has only the sidecar to clear: with `sidecar`
    /// true its value is removed (every other entry kept byte-exact; the sidecar deleted when
    /// nothing else is in it), with `sidecar` false it remains. A symbolic link it may stand
    /// beside is never touched.
    @discardableResult
    public func remove(sidecar removeSidecar: Bool = false) throws(DocumentSourceFileError) -> DocumentSourceRemoval {
        try Self.remove(entry, sidecar: removeSidecar)
    }

    /// The entry this record is about (what a removal needs).
    public var entry: Entry {
        Entry(path: path, isFolder: isFolder, sidecar: sidecar, isOrphanSidecar: isOrphanSidecar)
    }

    /// A file, folder or orphan sidecar met in a walk: what a removal needs to know of it
    /// (`FileTree/Entry`).
    public typealias Entry = FileTree.Entry

    /// ``remove(sidecar:)`` for `entry`.
    static func remove(_ entry: Entry, sidecar removeSidecar: Bool) throws(DocumentSourceFileError) -> DocumentSourceRemoval {
        if entry.isOrphanSidecar { return try removeOrphan(entry.path, sidecar: removeSidecar) }
        let path = entry.path
        let isFolder = entry.isFolder
        let sidecar = entry.sidecar
        let label = path.lossyString
        var cPath = path.bytes.map { CChar(bitPattern: $0) }
        cPath.append(0)
        let flags = FileLock.entryFlags(isFolder: isFolder)
        var opened = cPath.withUnsafeBufferPointer { p in SystemCall.retrying { open(p.baseAddress!, flags) } }
        if opened < 0 && errno == ENAMETOOLONG {
            // Deeper than PATH_MAX (a walk goes there): opened piece by piece.
            opened = LongPath.open(path.bytes, flags: flags)
        }
        // The writers' lock and wait (FileLock); a file that cannot be opened for reading, or
        // a filesystem that refuses `flock`, is cleared without it.
        let fd = try FileLock.lockEntry(opened: opened, label: label)
        defer { if fd >= 0 { SystemCall.close(fd) } }
        func remove(_ name: String) throws(ExtendedAttributeFailure) -> Bool {
            fd >= 0
                ? try ExtendedAttributes.removeValue(named: name, descriptor: fd)
                : try ExtendedAttributes.removeValue(named: name, atCPath: cPath)
        }
        var (result, _) = try DocumentSourceRemoval.clearingAttributes(
            remove: remove,
            words: { error in DocumentSourceFileError(errno: error.code, path: label) },
            // No extended attributes on this filesystem: the sidecar is the store.
            endsQuietly: { _, failure in removeSidecar && failure.kind == .notSupported },
            stillHolds: { _ in true })
        if let sidecar, removeSidecar {
            do throws(DocumentSourceFileError) {
                guard let text = path.string else {
                    throw DocumentSourceFileError(
                        .ioError, path: label, message: "its name is not UTF-8, so its sidecar is not rewritten",
                        errorNumber: EILSEQ)
                }
                // The writers' lock is held on `fd` already (flock is per open file, and the
                // sidecar writer takes none of its own).
                if try DocumentSourceFile(path: text, followSymlinks: false).writeSidecarLocked(nil) {
                    result.removed.append(.appleDouble)
                }
            } catch {
                guard !result.removed.isEmpty else { throw error }
                result.remaining.append(.init(store: .appleDouble, location: sidecar.lossyString, failure: error))
            }
        } else if let sidecar {
            // The sidecar relative to its folder (opened piece by piece when the path is longer
            // than PATH_MAX).
            let reading = StoredValueReading(path: path, followSymlinks: false)
            let bytes = sidecar.bytes
            let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
            let folder = slash.map { LongPath.open(Array(bytes[...$0]), flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC) } ?? AT_FDCWD
            defer { if folder >= 0 { SystemCall.close(folder) } }
            if folder >= 0 || folder == AT_FDCWD,
                let stored = try? reading.sidecarValue(
                    folder: folder, name: Array(bytes[(slash.map { $0 + 1 } ?? 0)...]), checkFirst: false,
                    location: { sidecar.lossyString })
            {
                result.remaining.append(.init(store: .appleDouble, location: stored.location))
            }
        }
        return result
    }

    /// Clears the orphan sidecar at `path` (`DIR/._NAME`): its value is removed, NAME (gone,
    /// or a symbolic link) is not touched.
    private static func removeOrphan(
        _ path: DocumentSourceTreePath, sidecar removeSidecar: Bool
    ) throws(DocumentSourceFileError) -> DocumentSourceRemoval {
        let label = path.lossyString
        guard removeSidecar else {
            return DocumentSourceRemoval(removed: [], remaining: [.init(store: .appleDouble, location: label)])
        }
        guard let text = path.string, let (folder, name) = SidecarFolder.split(text), name.hasPrefix("._") else {
            throw DocumentSourceFileError(
                .ioError, path: label, message: "its name is not UTF-8, so the sidecar is not rewritten",
                errorNumber: EILSEQ)
        }
        // The file the sidecar is for: NAME beside it, never followed (it may be a link).
        let owner = DocumentSourceFile(path: folder + String(name.dropFirst(2)), followSymlinks: false)
        let changed = try owner.writeSidecarLocked(nil, orphan: true)
        return DocumentSourceRemoval(removed: changed ? [.appleDouble] : [])
    }
}
