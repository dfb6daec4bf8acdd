#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

extension DocumentSourceTree.Found {
    /// Removes the attribute from the native attribute and Samba's stream attributes of this
    /// file or folder, as ``DocumentSourceFile/remove()`` does, working on the exact bytes of
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
    /// Paths longer than `PATH_MAX` cannot be removed this way (ENAMETOOLONG, as an I/O error).
    ///
    /// - Returns: the stores cleared (empty when none had a value) and what remains.
    /// - Throws: ``DocumentSourceFileError`` when the first store that had to change could not,
    ///   ``DocumentSourceFileError/Kind/notFound`` when the file is gone.
    @discardableResult
    public func remove(sidecar removeSidecar: Bool = false) throws(DocumentSourceFileError) -> DocumentSourceRemoval {
        let label = path.lossyString
        var cPath = path.bytes.map { CChar(bitPattern: $0) }
        cPath.append(0)
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (isFolder ? O_DIRECTORY : 0)
        let fd = cPath.withUnsafeBufferPointer { p in SystemCall.retrying { open(p.baseAddress!, flags) } }
        if fd < 0 && errno != EACCES {
            throw DocumentSourceFileError(errno: errno == ELOOP ? ENOENT : errno, path: label)
        }
        defer { if fd >= 0 { SystemCall.close(fd) } }
        if fd >= 0, !Self.lock(fd) {
            throw DocumentSourceFileError(
                .ioError, path: label, message: "another program has held a lock on the file for 10 seconds; try again",
                errorNumber: EWOULDBLOCK)
        }
        func remove(_ name: String) throws(ExtendedAttributeFailure) -> Bool {
            fd >= 0
                ? try ExtendedAttributes.removeValue(named: name, descriptor: fd)
                : try ExtendedAttributes.removeValue(named: name, atCPath: cPath)
        }
        var result = DocumentSourceRemoval(removed: [])
        for (store, name) in [(DocumentSourceStore.xattr, DocumentSourceFile.attributeName)]
            + SambaStream.attributeNames.map({ (DocumentSourceStore.sambaStream, $0) })
        {
            do {
                if try remove(name), !result.removed.contains(store) { result.removed.append(store) }
            } catch {
                let failure = DocumentSourceFileError(errno: error.code, path: label)
                // No extended attributes on this filesystem: the sidecar is the store.
                if removeSidecar && failure.kind == .notSupported { break }
                // Nothing changed yet: the failure is the answer.
                guard !result.removed.isEmpty else { throw failure }
                if store == .sambaStream {
                    result.remaining.append(.init(store: .sambaStream, location: name, failure: failure))
                }
            }
        }
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
            // The sidecar's path as a whole: openat with AT_FDCWD takes a path.
            let reader = TreeEntryReader(path: path, access: cPath, follow: false)
            if let stored = try? reader.sidecarValue(folder: AT_FDCWD, name: sidecar.bytes, label: sidecar) {
                result.remaining.append(.init(store: .appleDouble, location: stored.location))
            }
        }
        return result
    }

    /// Takes the writers' exclusive `flock` on `fd`, waiting up to ten seconds for another
    /// writer (as `DocumentSourceFile` does); false when it is still held then. A filesystem that
    /// refuses `flock` is written without it.
    private static func lock(_ fd: Int32) -> Bool {
        for _ in 0..<1000 {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK || errno == EINTR else { return true }
            usleep(10_000)
        }
        return false
    }
}
