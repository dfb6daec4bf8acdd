#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

extension FileTree {
    /// What a ``FileTreeInspector`` says of an entry it may claim by its name
    /// (``FileTreeInspector/inspect(claimed:)``).
    public enum Claim<Record: Sendable> {
        /// Not the inspector's: the walk treats the entry as it would have (walks a folder,
        /// inspects a file, skips a sidecar it hands over with its owner).
        case declined
        /// The inspector's, whole: not walked, not counted, not inspected again; the record, if
        /// any, is reported.
        case taken(Record?)
    }

    /// An entry a walk hands to ``FileTreeInspector/inspect(claimed:)`` because of its
    /// name, before it looks at it any other way (what `xds check` does with `.DS_Store`,
    /// `__MACOSX`, a link named `._x`): its path, type as listed (links not followed), and the
    /// open folder it is in. Valid only during that call.
    public struct ClaimedEntry {
        /// What the entry is, not following a link.
        public enum EntryType: Sendable, Hashable {
            /// A regular file.
            case file
            /// A folder.
            case folder
            /// A symbolic link.
            case link
            /// A FIFO, socket or device.
            case other
        }

        /// The root as given joined with the path below it; for a root, the root as given.
        public let path: TreePath
        /// The entry's name in ``folderDescriptor``, exact bytes.
        public let name: [UInt8]
        /// What it is.
        public let type: EntryType
        /// Whether it was named as a root.
        public let isRoot: Bool
        /// The open folder it is in (`AT_FDCWD` for a root named without a folder), never to be
        /// closed: use it with `openat`, `fstatat`, `unlinkat`.
        public let folderDescriptor: Int32

        /// Creates one (the walk's, and a caller's for a root it handles itself).
        package init(path: TreePath, name: [UInt8], type: EntryType, isRoot: Bool, folderDescriptor: Int32) {
            self.path = path
            self.name = name
            self.type = type
            self.isRoot = isRoot
            self.folderDescriptor = folderDescriptor
        }

        /// The type of `mode` (`st_mode`).
        static func type(ofMode mode: mode_t) -> EntryType {
            switch mode & S_IFMT {
            case S_IFREG: .file
            case S_IFDIR: .folder
            case S_IFLNK: .link
            default: .other
            }
        }

        /// Deletes the entry relative to its folder, never following a link: a file, link or
        /// anything but a folder is unlinked; a folder is removed with everything in it (each
        /// subfolder opened without following a link, so nothing outside it is touched). False
        /// when it was gone already.
        /// - Throws: ``FileAccessError`` naming the path of what could not be removed.
        package func remove() throws(FileAccessError) -> Bool {
            do throws(Errno) {
                return try Self.remove(name, in: folderDescriptor, isFolder: type == .folder)
            } catch {
                throw FileAccessError(errno: error.rawValue, path: path.lossyString, context: "cannot remove it: ")
            }
        }

        /// For a folder: whether a regular file anywhere in it (subfolders opened without
        /// following a link; at most `depth` deep) passes `test`, given its name, its first
        /// `limit` bytes and its size. What cannot be opened or read is passed over.
        package func containsFile(limit: Int, depth: Int = 64, where test: ([UInt8], [UInt8], Int) -> Bool) -> Bool {
            guard type == .folder else { return false }
            return Self.containsFile(name, in: folderDescriptor, limit: limit, depth: depth, test)
        }

        private static func containsFile(
            _ name: [UInt8], in folder: Int32, limit: Int, depth: Int, _ test: ([UInt8], [UInt8], Int) -> Bool
        ) -> Bool {
            guard depth > 0 else { return false }
            var cName = name.map { CChar(bitPattern: $0) }
            cName.append(0)
            let fd = cName.withUnsafeBufferPointer { n in
                SystemCall.retrying { openat(folder, n.baseAddress!, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK) }
            }
            guard fd >= 0 else { return false }
            guard let directory = fdopendir(fd) else {
                SystemCall.close(fd)
                return false
            }
            defer { closedir(directory) }
            guard case .success(let listing) = FolderListing.read(directory) else { return false }
            for index in listing.indices {
                let child = Array(listing.name(at: index))
                var info = stat()
                let found = TreeWalker.withCName(child) { fstatat(fd, $0, &info, AT_SYMLINK_NOFOLLOW) } == 0
                guard found else { continue }
                if info.st_mode & S_IFMT == S_IFDIR {
                    if containsFile(child, in: fd, limit: limit, depth: depth - 1, test) { return true }
                } else if info.st_mode & S_IFMT == S_IFREG {
                    let file = TreeWalker.withCName(child) { p in
                        SystemCall.retrying { openat(fd, p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK) }
                    }
                    guard file >= 0 else { continue }
                    var bytes = [UInt8](repeating: 0, count: max(0, limit))
                    let count = bytes.withUnsafeMutableBytes { buffer in SystemCall.retrying { read(file, buffer.baseAddress, buffer.count) } }
                    SystemCall.close(file)
                    if count >= 0, test(child, Array(bytes[..<count]), Int(info.st_size)) { return true }
                }
            }
            return false
        }

        private static func remove(_ name: [UInt8], in folder: Int32, isFolder: Bool) throws(Errno) -> Bool {
            var cName = name.map { CChar(bitPattern: $0) }
            cName.append(0)
            if !isFolder {
                if cName.withUnsafeBufferPointer({ n in SystemCall.retrying { unlinkat(folder, n.baseAddress!, 0) } }) == 0 {
                    return true
                }
                if errno == ENOENT { return false }
                // Became a folder since it was listed: removed as one.
                guard errno == EISDIR || errno == EPERM else { throw Errno.current }
            }
            let fd = cName.withUnsafeBufferPointer { n in
                SystemCall.retrying { openat(folder, n.baseAddress!, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK) }
            }
            if fd < 0 {
                if errno == ENOENT { return false }
                if errno == ENOTDIR || errno == ELOOP { return try remove(name, in: folder, isFolder: false) }
                throw Errno.current
            }
            guard let directory = fdopendir(fd) else {
                let code = errno
                SystemCall.close(fd)
                throw Errno(rawValue: code)
            }
            let listing: FolderListing
            switch FolderListing.read(directory) {
            case .success(let read): listing = read
            case .failure(let error):
                closedir(directory)
                throw error
            }
            var firstFailure: Errno?
            for index in listing.indices {
                do throws(Errno) {
                    _ = try remove(Array(listing.name(at: index)), in: fd, isFolder: listing.type(at: index) == DT_DIR)
                } catch {
                    if firstFailure == nil { firstFailure = error }
                }
            }
            closedir(directory)
            if let firstFailure { throw firstFailure }
            if cName.withUnsafeBufferPointer({ n in SystemCall.retrying { unlinkat(folder, n.baseAddress!, AT_REMOVEDIR) } }) != 0 {
                if errno == ENOENT { return false }
                throw Errno.current
            }
            return true
        }
    }
}
