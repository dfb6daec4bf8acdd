#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDSWalk

extension DocumentSourceTree {
    /// The `x-document-source` reader of a walk (``DocumentSourceTree/walk(_:)``): the walk's
    /// inspector that reads the value of each entry from the stores its attribute list and its
    /// folder's listing say are there, through the one reading function of a file's own read
    /// (`StoredValueReading.firstStored(lookUp:sidecar:)`: its names, its store order, its
    /// messages), relative to the open folder where the kernel can.
    struct Reader: DocumentSourceTreeInspector {
        typealias Record = Found

        /// A value that does not parse still names its entry: `remove -r` removes it.
        var failuresNameTheEntry: Bool { true }

        /// The names of `StoredValueReading`'s table: the native attribute and Samba's streams.
        /// Asked of every name of every entry: told by length first, then by `memcmp`.
        func wantsAttribute(named name: UnsafeBufferPointer<UInt8>) -> Bool {
            guard let start = name.baseAddress else { return false }
            for wanted in StoredValueReading.attributeNameBytes where wanted.count == name.count {
                if wanted.withUnsafeBufferPointer({ memcmp($0.baseAddress!, start, name.count) }) == 0 { return true }
            }
            return false
        }

        func inspect(_ entry: InspectedEntry) throws(DocumentSourceFileError) -> Found? {
            if entry.isRoot { return try readRoot(entry) }
            let reading = StoredValueReading(path: entry.path, followSymlinks: false)
            let stored = try reading.firstStored(
                lookUp: { (attribute) throws(DocumentSourceFileError) -> StoredValueReading.Lookup in
                    guard entry.attributeNames.contains(StoredValueReading.bytes(ofAttributeName: attribute)),
                        let bytes = try Self.read(attribute, of: entry, reading)
                    else { return .absent }
                    return .found(bytes)
                },
                sidecar: { () throws(DocumentSourceFileError) -> StoredDocumentSource? in
                    guard let sidecarName = entry.sidecarName, let sidecar = entry.sidecar else { return nil }
                    let location = sidecar.lossyString
                    return try reading.sidecarValue(
                        folder: entry.folderDescriptor, name: sidecarName, checkFirst: false) { location }
                }
            ).0
            guard let stored else { return nil }
            return Found(
                path: entry.path, isFolder: entry.isFolder, stored: stored, sidecar: entry.sidecar,
                isOrphanSidecar: entry.isOrphan)
        }

        /// A root, read as ``DocumentSourceFile/read()`` reads its path (links followed), its
        /// sidecar named as ``DocumentSourceFile/sidecarPath`` names it whenever it is there (so
        /// that a removal clears it even when another store has the value a reader sees first).
        private func readRoot(_ entry: InspectedEntry) throws(DocumentSourceFileError) -> Found? {
            let root = entry.path.lossyString
            let rootFile = DocumentSourceFile(path: root)
            let rootSidecar = rootFile.sidecarPath.flatMap { path -> DocumentSourceTreePath? in
                var sidecarInfo = stat()
                guard lstat(path, &sidecarInfo) == 0, sidecarInfo.st_mode & S_IFMT == S_IFREG else { return nil }
                return DocumentSourceTreePath(path)
            }
            do {
                guard let stored = try rootFile.read() else { return nil }
                return Found(path: entry.path, isFolder: entry.isFolder, stored: stored, sidecar: rootSidecar)
            } catch where error.kind == .notSupported {
                // A filesystem without extended attributes (FAT, exFAT, ramfs) and no sidecar:
                // nothing here, as the listing of every entry below reads it, not a failure.
                return nil
            }
        }

        /// The attribute `name` of `entry`, relative to its folder where the kernel can
        /// (getxattrat, Linux 6.13), else by its C path; failures worded by `reading`.
        private static func read(
            _ name: String, of entry: InspectedEntry, _ reading: StoredValueReading
        ) throws(DocumentSourceFileError) -> [UInt8]? {
            if let nameStart = entry.nameStart, !entry.follow {
                do {
                    return try ExtendedAttributes.value(
                        named: name, inFolder: entry.folderDescriptor, cPath: entry.access, nameStart: nameStart)
                } catch where error.code == ENOSYS {
                    // No getxattrat: by path.
                } catch {
                    throw reading.readError(error)
                }
            }
            do {
                return try ExtendedAttributes.value(named: name, atCPath: entry.access, follow: entry.follow)
            } catch {
                throw reading.readError(error)
            }
        }
    }
}
