#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDocSource
import XDSWalk

extension MacMetadataTree.Inspector {
    /// A regular `._NAME` named as a root (`xds strip --mac-metadata ._a.png --keep quarantine`)
    /// when what it holds decides its fate (a kind kept, or sidecars kept): read and decided as
    /// a `._` met in the walk (``plan(_:)``), so that one holding a kept mark is never deleted
    /// whole. Deleted whole, rewritten (under the writers' lock of NAME when NAME is beside it:
    /// only what is kept, or without the entries that go), or, when nothing in it goes, left
    /// to the walk as any file. Its marks and Apple attributes are found under NAME when NAME
    /// is a file or folder beside it, else under its own path (an orphan, as in the walk).
    func inspectRootSidecar(
        _ entry: FileTree.ClaimedEntry
    ) throws(FileAccessError) -> FileTree.Claim<MacMetadataTree.Record> {
        let ownerName = Array(entry.name.dropFirst(2))
        var info = stat()
        let hasOwner = Self.withCName(ownerName) { fstatat(entry.folderDescriptor, $0, &info, AT_SYMLINK_NOFOLLOW) } == 0
            && (info.st_mode & S_IFMT == S_IFREG || info.st_mode & S_IFMT == S_IFDIR)
        let described = hasOwner && entry.path.bytes.count >= entry.name.count && entry.path.bytes.suffix(entry.name.count).elementsEqual(entry.name)
            ? TreePath(bytes: Array(entry.path.bytes.dropLast(entry.name.count)) + ownerName)
            : entry.path
        guard let start = try Self.readStart(entry) else { return .declined }
        let double: AppleDouble?
        do {
            double = try AppleDouble(bytes: start.bytes, fileSize: start.fileSize)
        } catch {
            // Whatever it holds, a `._` is Mac metadata; a malformed one kept is left as it is.
            guard selection.removes(.sidecar) else {
                throw FileAccessError(
                    .malformedSidecar, path: described.lossyString,
                    message: "malformed AppleDouble sidecar \(entry.path.lossyString): \(error)")
            }
            double = nil
        }
        var planned = plan(double)
        switch planned {
        case .none:
            return .declined
        case .delete:
            if !dryRun { guard try entry.remove() else { return .taken(nil) } }
        case .edit:
            guard !dryRun else { break }
            guard let owner = String(validatingUTF8Bytes: ownerName) else {
                throw FileAccessError(
                    .ioError, path: entry.path.lossyString, message: "its name is not UTF-8, so it is not rewritten",
                    errorNumber: EILSEQ)
            }
            // Decided again from the whole file as read under the lock, as in the walk.
            let file = DocumentSourceFile(path: described.lossyString, followSymlinks: false)
            let rewrite = { () throws(FileAccessError) -> Bool in
                try file.editSidecarLocked(
                    inFolder: entry.folderDescriptor, ownerName: owner, location: entry.path.lossyString, orphan: !hasOwner
                ) { (current) throws(AppleDoubleError) -> AppleDouble.Edit in
                    planned = plan(try AppleDouble(bytes: current, fileSize: current.count))
                    switch planned {
                    case .none: return .unchanged
                    case .delete: return .delete
                    case .edit(let removing, _, let rebuild): return try Self.edit(current, removing: Set(removing), rebuild: rebuild)
                    }
                }
            }
            guard try hasOwner ? file.withWriterLock(rewrite) : rewrite() else { return .taken(nil) }
        }
        let found = findings(planned, path: described, sidecar: entry.path)
        return .taken(found.isEmpty ? nil : MacMetadataTree.Record(findings: found))
    }

    /// The first ``AppleDouble/attributeAreaLimit`` bytes of the claimed file and its size,
    /// opened relative to its folder without following a link or waiting on a FIFO; nil when
    /// it is no longer a regular file.
    static func readStart(_ entry: FileTree.ClaimedEntry) throws(FileAccessError) -> (bytes: [UInt8], fileSize: Int)? {
        do throws(Errno) {
            let file = try withCName(entry.name) { (name) throws(Errno) -> ReadableFile in
                try ReadableFile(name, relativeTo: entry.folderDescriptor, options: [.nonBlocking, .noFollow])
            }
            guard file.isRegular else { return nil }
            let bytes = try file.read(upTo: AppleDouble.attributeAreaLimit)
            return (bytes, max(file.size, bytes.count))
        } catch {
            if error.rawValue == ELOOP { return nil }
            throw FileAccessError(errno: error.rawValue, path: entry.path.lossyString, context: "cannot read it: ")
        }
    }

    /// `body` given `name` as a NUL-ended C string.
    static func withCName<T, E: Error>(_ name: [UInt8], _ body: (UnsafePointer<CChar>) throws(E) -> T) throws(E) -> T {
        var cName = name.map { CChar(bitPattern: $0) }
        cName.append(0)
        let result: Result<T, E> = cName.withUnsafeBufferPointer { pointer in
            do throws(E) { return .success(try body(pointer.baseAddress!)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
