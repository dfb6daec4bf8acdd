#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

extension FileTree {
    /// One entry a walk hands to a ``FileTreeInspector``: its path, its attribute
    /// names as listed, what is beside it in the folder's listing (an AppleDouble sidecar
    /// `._NAME`, the reader's companion file such as `NAME:Zone.Identifier`), and ways to read
    /// them relative to the folder the walk has open.
    ///
    /// Valid only during ``FileTreeInspector/inspect(_:)``: ``folderDescriptor`` is
    /// closed after it (so the entry is deliberately not `Sendable`; copy what a record needs).
    public struct InspectedEntry {
        /// The root as given joined with the path below it (`ROOT/a/b.txt`), exact bytes. For
        /// an orphan (``isOrphan``), the sidecar's or companion's own path.
        public let path: TreePath
        /// The entry's own name in its folder (the last component of ``path``; for a root,
        /// the last component of where it leads, links followed), exact bytes.
        public let name: [UInt8]
        /// Whether it is a folder.
        public let isFolder: Bool
        /// Whether it was named as a root (its path is the root as given).
        public let isRoot: Bool
        /// Whether this is a sidecar `._NAME` or a companion whose NAME is not a regular file or
        /// folder in the listing (deleted, renamed, or a symbolic link): what it holds belongs
        /// to nothing else the walk reports, so it is inspected under its own path.
        /// ``sidecar`` or ``companion`` is then that file itself, and
        /// ``attributeNames`` is empty (its own attributes are not listed).
        public let isOrphan: Bool
        /// Every attribute name of the entry, from the one `listxattr` the walk made (empty on
        /// a filesystem without extended attributes, and for an orphan).
        public let attributeNames: AttributeNameList
        /// The AppleDouble sidecar `._NAME` beside the entry, when its folder's listing has one
        /// (a regular file, or an entry of unknown type): read it with XDocSource's `readSidecar()`.
        public let sidecar: TreePath?
        /// The sidecar's name in ``folderDescriptor`` (`._NAME`), when there is one: with the
        /// descriptor, what a sidecar edit relative to the folder needs.
        public let sidecarName: [UInt8]?
        /// The companion file beside the entry (`NAME:Zone.Identifier` for the marks), when its
        /// folder's listing has one (``FileTreeInspector/companionSuffix``): read it with
        /// ``readCompanion(upTo:describedAs:)``.
        public let companion: TreePath?
        /// The companion's name in ``folderDescriptor``, when there is one.
        public let companionName: [UInt8]?
        /// The open folder the entry (and its sidecar and companion) is in, as the walk listed
        /// it, wherever it is now; valid only during the inspection, never to be closed. For a
        /// root, the folder its path leads to (opened for the inspection; `AT_FDCWD` when it
        /// could not be, and nothing beside it is then looked for). On Linux it may be an
        /// `O_PATH` descriptor: use it as the folder of `openat`, `fstatat`, `unlinkat`,
        /// `renameat`.
        public let folderDescriptor: Int32

        /// The C path for attribute calls by path (NUL-ended) and whether it is followed.
        package let access: [CChar]
        package let follow: Bool
        /// Where the entry's name starts in ``access``, when its values can be read relative
        /// to ``folderDescriptor`` (getxattrat).
        package let nameStart: Int?

        init(
            path: TreePath, name: [UInt8], isFolder: Bool, isRoot: Bool = false, isOrphan: Bool,
            attributeNames: AttributeNameList, sidecar: TreePath?, sidecarName: [UInt8]?,
            companion: TreePath?, companionName: [UInt8]?, folderDescriptor: Int32,
            access: [CChar], follow: Bool, nameStart: Int?
        ) {
            self.path = path
            self.name = name
            self.isFolder = isFolder
            self.isRoot = isRoot
            self.isOrphan = isOrphan
            self.attributeNames = attributeNames
            self.sidecar = sidecar
            self.sidecarName = sidecarName
            self.companion = companion
            self.companionName = companionName
            self.folderDescriptor = folderDescriptor
            self.access = access
            self.follow = follow
            self.nameStart = nameStart
        }

        /// The value of the attribute `attributeName` (exact bytes, as listed), read relative to
        /// ``folderDescriptor`` where the kernel can (`getxattrat`, Linux 6.13), else by path,
        /// never following a symbolic link below a root; nil when it is not set (any more).
        /// Values are at most 64 KiB (Linux's own limit).
        /// - Throws: ``FileAccessError``: ``FileAccessError/Kind/notFound``
        ///   when the entry is gone, ``FileAccessError/Kind/malformedValue`` for a
        ///   value over 64 KiB, else the read's failure in words.
        public func value(ofAttribute attributeName: ArraySlice<UInt8>) throws(FileAccessError) -> [UInt8]? {
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
        public func value(ofAttribute attributeName: [UInt8]) throws(FileAccessError) -> [UInt8]? {
            try value(ofAttribute: attributeName[...])
        }

        /// ``value(ofAttribute:)-(ArraySlice<UInt8>)`` for a name as text (its UTF-8 bytes).
        public func value(ofAttribute attributeName: String) throws(FileAccessError) -> [UInt8]? {
            try value(ofAttribute: Array(attributeName.utf8)[...])
        }

        private func readError(_ failure: ExtendedAttributeFailure, _ name: ArraySlice<UInt8>) -> FileAccessError {
            let shown = TreePath(bytes: Array(name)).visible
            switch failure.code {
            case E2BIG:
                return FileAccessError(
                    .malformedValue, path: path.lossyString,
                    message: "the value of \(shown) is larger than 64 KiB", errorNumber: E2BIG)
            case ERANGE:
                return FileAccessError(
                    .ioError, path: path.lossyString,
                    message: "the value of \(shown) kept changing while it was read; try again", errorNumber: ERANGE)
            default:
                return FileAccessError(
                    errno: failure.code, path: path.lossyString, context: "cannot read the attribute \(shown): ")
            }
        }

        /// The companion file ``companion``: at most `maximum` bytes from its start, and its
        /// size (a size over `maximum` tells a file too large to be what it claims); nil when
        /// there is none or it is gone or no longer a regular file. Opened relative to
        /// ``folderDescriptor`` without following a link or waiting on a FIFO.
        /// - Parameters:
        ///   - maximum: how many bytes to read at most.
        ///   - noun: what the reader calls the file in messages ("zone file").
        /// - Throws: ``FileAccessError`` when it cannot be read ("cannot read the NOUN: …").
        public func readCompanion(
            upTo maximum: Int, describedAs noun: String
        ) throws(FileAccessError) -> (bytes: [UInt8], fileSize: Int)? {
            guard let companionName, let companion else { return nil }
            var cName = companionName.map { CChar(bitPattern: $0) }
            cName.append(0)
            let file: ReadableFile
            do throws(Errno) {
                file = try cName.withUnsafeBufferPointer { (name) throws(Errno) -> ReadableFile in
                    try ReadableFile(name.baseAddress!, relativeTo: folderDescriptor, options: [.nonBlocking, .noFollow])
                }
            } catch {
                if error.rawValue == ENOENT || error.rawValue == ELOOP || error.rawValue == ENOTDIR { return nil }
                throw FileAccessError(
                    errno: error.rawValue, path: companion.lossyString, context: "cannot read the \(noun): ")
            }
            guard file.isRegular else { return nil }
            do throws(Errno) {
                let bytes = try file.read(upTo: max(0, maximum))
                return (bytes, max(file.size, bytes.count))
            } catch {
                throw FileAccessError(
                    errno: error.rawValue, path: companion.lossyString, context: "cannot read the \(noun): ")
            }
        }
    }
}
