#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

extension DocumentSourceTree {
    /// One entry a walk hands to a ``DocumentSourceTreeInspector``: its path, its attribute
    /// names as listed, its companions in the folder's listing (an AppleDouble sidecar
    /// `._NAME`, a zone file `NAME:Zone.Identifier`), and ways to read them relative to the
    /// folder the walk has open.
    ///
    /// Valid only during ``DocumentSourceTreeInspector/inspect(_:)``: ``folderDescriptor`` is
    /// closed after it (so the entry is deliberately not `Sendable`; copy what a record needs).
    public struct InspectedEntry {
        /// The root as given joined with the path below it (`ROOT/a/b.txt`), exact bytes. For
        /// an orphan (``isOrphan``), the sidecar's or zone file's own path.
        public let path: DocumentSourceTreePath
        /// The entry's own name in its folder (the last component of ``path``; for a root,
        /// the last component of where it leads, links followed), exact bytes.
        public let name: [UInt8]
        /// Whether it is a folder.
        public let isFolder: Bool
        /// Whether this is a sidecar `._NAME` or a zone file `NAME:Zone.Identifier` whose NAME
        /// is not a regular file or folder in the listing (deleted, renamed, or a symbolic
        /// link): what it holds belongs to nothing else the walk reports, so it is inspected
        /// under its own path. ``sidecar`` or ``zoneFile`` is then that file itself, and
        /// ``attributeNames`` is empty (its own attributes are not listed).
        public let isOrphan: Bool
        /// Every attribute name of the entry, from the one `listxattr` the walk made (empty on
        /// a filesystem without extended attributes, and for an orphan).
        public let attributeNames: AttributeNameList
        /// The AppleDouble sidecar `._NAME` beside the entry, when its folder's listing has one
        /// (a regular file, or an entry of unknown type): read it with ``readSidecar()``.
        public let sidecar: DocumentSourceTreePath?
        /// The sidecar's name in ``folderDescriptor`` (`._NAME`), when there is one: with the
        /// descriptor, what a sidecar edit relative to the folder needs.
        public let sidecarName: [UInt8]?
        /// The zone file `NAME:Zone.Identifier` beside the entry, when its folder's listing has
        /// one (``DocumentSourceTreeInspector/zoneFileOwner(_:)``): read it with
        /// ``readZoneFile(upTo:)``.
        public let zoneFile: DocumentSourceTreePath?
        /// The zone file's name in ``folderDescriptor``, when there is one.
        public let zoneFileName: [UInt8]?
        /// The open folder the entry (and its sidecar and zone file) is in, as the walk listed
        /// it, wherever it is now; valid only during the inspection, never to be closed. For a
        /// root, the folder its path leads to (opened for the inspection; `AT_FDCWD` when it
        /// could not be, and nothing beside it is then looked for). On Linux it may be an
        /// `O_PATH` descriptor: use it as the folder of `openat`, `fstatat`, `unlinkat`,
        /// `renameat`.
        public let folderDescriptor: Int32

        /// The C path for attribute calls by path (NUL-ended) and whether it is followed.
        let access: [CChar]
        let follow: Bool
        /// Where the entry's name starts in ``access``, when its values can be read relative
        /// to ``folderDescriptor`` (getxattrat).
        let nameStart: Int?

        init(
            path: DocumentSourceTreePath, name: [UInt8], isFolder: Bool, isOrphan: Bool,
            attributeNames: AttributeNameList, sidecar: DocumentSourceTreePath?, sidecarName: [UInt8]?,
            zoneFile: DocumentSourceTreePath?, zoneFileName: [UInt8]?, folderDescriptor: Int32,
            access: [CChar], follow: Bool, nameStart: Int?
        ) {
            self.path = path
            self.name = name
            self.isFolder = isFolder
            self.isOrphan = isOrphan
            self.attributeNames = attributeNames
            self.sidecar = sidecar
            self.sidecarName = sidecarName
            self.zoneFile = zoneFile
            self.zoneFileName = zoneFileName
            self.folderDescriptor = folderDescriptor
            self.access = access
            self.follow = follow
            self.nameStart = nameStart
        }

        /// The value of the attribute `attributeName` (exact bytes, as listed), read relative to
        /// ``folderDescriptor`` where the kernel can (`getxattrat`, Linux 6.13), else by path,
        /// never following a symbolic link below a root; nil when it is not set (any more).
        /// Values are at most 64 KiB (Linux's own limit).
        /// - Throws: ``DocumentSourceFileError``: ``DocumentSourceFileError/Kind/notFound``
        ///   when the entry is gone, ``DocumentSourceFileError/Kind/malformedValue`` for a
        ///   value over 64 KiB, else the read's failure in words.
        public func value(ofAttribute attributeName: ArraySlice<UInt8>) throws(DocumentSourceFileError) -> [UInt8]? {
            var cName = [CChar](repeating: 0, count: attributeName.count + 1)
            cName.withUnsafeMutableBytes { out in
                attributeName.withUnsafeBytes { out.copyMemory(from: $0) }
            }
            if let nameStart, !follow {
                do {
                    return try ExtendedAttributes.value(
                        cName: cName, inFolder: folderDescriptor, cPath: access, nameStart: nameStart)
                } catch where error.code == ENOSYS {
                    // No getxattrat: by path.
                } catch {
                    throw readError(error, attributeName)
                }
            }
            do {
                return try ExtendedAttributes.value(cName: cName, atCPath: access, follow: follow)
            } catch {
                throw readError(error, attributeName)
            }
        }

        /// ``value(ofAttribute:)-(ArraySlice<UInt8>)`` for a name as an array.
        public func value(ofAttribute attributeName: [UInt8]) throws(DocumentSourceFileError) -> [UInt8]? {
            try value(ofAttribute: attributeName[...])
        }

        /// ``value(ofAttribute:)-(ArraySlice<UInt8>)`` for a name as text (its UTF-8 bytes).
        public func value(ofAttribute attributeName: String) throws(DocumentSourceFileError) -> [UInt8]? {
            try value(ofAttribute: Array(attributeName.utf8)[...])
        }

        private func readError(_ failure: ExtendedAttributeFailure, _ name: ArraySlice<UInt8>) -> DocumentSourceFileError {
            let shown = DocumentSourceTreePath(bytes: Array(name)).visible
            switch failure.code {
            case E2BIG:
                return DocumentSourceFileError(
                    .malformedValue, path: path.lossyString,
                    message: "the value of \(shown) is larger than 64 KiB", errorNumber: E2BIG)
            case ERANGE:
                return DocumentSourceFileError(
                    .ioError, path: path.lossyString,
                    message: "the value of \(shown) kept changing while it was read; try again", errorNumber: ERANGE)
            default:
                return DocumentSourceFileError(
                    errno: failure.code, path: path.lossyString, context: "cannot read the attribute \(shown): ")
            }
        }

        /// The AppleDouble sidecar ``sidecar``, parsed (its first 64 KiB, where xnu keeps the
        /// attributes), or nil when there is none or it is gone or no longer a regular file. It
        /// is opened relative to ``folderDescriptor`` without following a link or waiting on a
        /// FIFO.
        /// - Throws: ``DocumentSourceFileError``: ``DocumentSourceFileError/Kind/malformedSidecar``
        ///   when it is not a well-formed AppleDouble file, else the read's failure.
        public func readSidecar() throws(DocumentSourceFileError) -> AppleDouble? {
            guard let sidecarName, let sidecar else { return nil }
            let reading = StoredValueReading(path: path.lossyString, followSymlinks: false)
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

        /// The zone file ``zoneFile``: at most `maximum` bytes from its start, and its size (a
        /// size over `maximum` tells a file too large to be what it claims); nil when there is
        /// none or it is gone or no longer a regular file. Opened relative to
        /// ``folderDescriptor`` without following a link or waiting on a FIFO.
        /// - Throws: ``DocumentSourceFileError`` when it cannot be read.
        public func readZoneFile(upTo maximum: Int) throws(DocumentSourceFileError) -> (bytes: [UInt8], fileSize: Int)? {
            guard let zoneFileName, let zoneFile else { return nil }
            var cName = zoneFileName.map { CChar(bitPattern: $0) }
            cName.append(0)
            let file: ReadableFile
            do throws(Errno) {
                file = try cName.withUnsafeBufferPointer { (name) throws(Errno) -> ReadableFile in
                    try ReadableFile(name.baseAddress!, relativeTo: folderDescriptor, options: [.nonBlocking, .noFollow])
                }
            } catch {
                if error.rawValue == ENOENT || error.rawValue == ELOOP || error.rawValue == ENOTDIR { return nil }
                throw DocumentSourceFileError(
                    errno: error.rawValue, path: zoneFile.lossyString, context: "cannot read the zone file: ")
            }
            guard file.isRegular else { return nil }
            do throws(Errno) {
                let bytes = try file.read(upTo: max(0, maximum))
                return (bytes, max(file.size, bytes.count))
            } catch {
                throw DocumentSourceFileError(
                    errno: error.rawValue, path: zoneFile.lossyString, context: "cannot read the zone file: ")
            }
        }
    }
}
