#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDSWalk

/// What XDSProvenance reads and removes of a path besides `x-document-source`, through the same
/// stores and the same hardening: every attribute name from one listing, any attribute read
/// with the bounded read loop, the AppleDouble sidecar found relative to its folder and never
/// followed, and files beside the path (XDSProvenance's zone file) opened only when
/// they are regular files. Errors are worded as for `x-document-source` and name ``path``.
extension DocumentSourceFile {
    /// What ``attributeValue(named:)`` found.
    package enum AttributeValue: Equatable {
        /// The value, whole.
        case value([UInt8])
        /// The attribute is not set (or went away since the listing).
        case absent
        /// The value is larger than 64 KiB (the Linux limit): not read.
        case tooLarge
    }

    /// Every attribute name of the path, in listing order, from one `listxattr` call; nil when
    /// the filesystem has no extended attributes.
    package func allAttributeNames() throws(DocumentSourceFileError) -> [[UInt8]]? {
        do {
            return try ExtendedAttributes.allNames(atPath: path, follow: followSymlinks)
        } catch {
            throw reading.pathError(error.code)
        }
    }

    /// The value of the attribute `name`, read with the bounded read loop (a value over 64 KiB
    /// is refused before anything is allocated for it).
    package func attributeValue(named name: String) throws(DocumentSourceFileError) -> AttributeValue {
        do {
            guard let bytes = try ExtendedAttributes.value(named: name, atPath: path, followSymlinks: followSymlinks)
            else { return .absent }
            return .value(bytes)
        } catch {
            if error.code == E2BIG { return .tooLarge }
            if error.code == ENOTSUP || error.code == EOPNOTSUPP { return .absent }
            throw reading.readError(error)
        }
    }

    /// Removes the attribute `name`; false when it was not set. The caller holds the writer
    /// lock (``withWriterLock(_:)``).
    package func removeAttributeLocked(named name: String) throws(DocumentSourceFileError) -> Bool {
        do {
            return try ExtendedAttributes.removeValue(named: name, atPath: path, followSymlinks: followSymlinks)
        } catch {
            throw writeError(error)
        }
    }

    /// The AppleDouble sidecar `._NAME`, parsed from its first 64 KiB (the part that holds
    /// attributes), with its location for messages; nil when there is no regular file of that
    /// name (a link, FIFO or folder is never opened). A sidecar that does not parse is
    /// `DocumentSourceFileError/Kind/malformedSidecar`.
    package func readSidecarDouble() throws(DocumentSourceFileError) -> (double: AppleDouble, location: String)? {
        guard let folder = try SidecarFolder.locate(path, followSymlinks: followSymlinks, owner: path)
        else { return nil }
        defer { SystemCall.close(folder.descriptor) }
        let name = "._" + folder.name
        let location = { sidecarPath ?? folder.display + name }
        guard let start = try reading.readSidecarStart(
            folder: folder.descriptor, name: Array(name.utf8), checkFirst: true, location: location)
        else { return nil }
        do {
            return (try AppleDouble(bytes: start.bytes, fileSize: start.fileSize), location())
        } catch {
            throw DocumentSourceFileError(
                .malformedSidecar, path: path, message: "malformed AppleDouble sidecar \(location()): \(error)")
        }
    }

    /// A file beside the path (in the folder that holds it, the target's when symbolic links
    /// are followed) named `name(NAME)` for the path's last component NAME: at most `limit`
    /// bytes of it and its size, with its name and location; nil when there is no regular
    /// file of that name. Opened with `O_NOFOLLOW` and `O_NONBLOCK` after an `fstatat`, so a
    /// link, FIFO or folder of that name is never followed, waited on or read.
    package func readFileBeside(
        named name: (String) -> String, limit: Int
    ) throws(DocumentSourceFileError) -> (name: String, location: String, bytes: [UInt8], size: Int)? {
        guard let folder = try SidecarFolder.locate(path, followSymlinks: followSymlinks, owner: path)
        else { return nil }
        defer { SystemCall.close(folder.descriptor) }
        let besideName = name(folder.name)
        let location = folder.display + besideName
        guard let start = try reading.readBesideStart(
            folder: folder.descriptor, name: Array(besideName.utf8), limit: limit, location: { location })
        else { return nil }
        return (besideName, location, start.bytes, start.fileSize)
    }

    /// Deletes the file beside the path named `name(NAME)` (see ``readFileBeside(named:limit:)``)
    /// when it is a regular file; false when there is none. A link, folder or anything else of
    /// that name is left alone.
    package func removeFileBeside(named name: (String) -> String) throws(DocumentSourceFileError) -> Bool {
        guard let folder = try SidecarFolder.locate(path, followSymlinks: followSymlinks, owner: path)
        else { return false }
        defer { SystemCall.close(folder.descriptor) }
        let besideName = name(folder.name)
        do throws(Errno) {
            return try Self.removeRegularFile(besideName.utf8CString.map { $0 }, inFolder: folder.descriptor)
        } catch {
            throw DocumentSourceFileError(
                errno: error.rawValue, path: path, context: "cannot remove \(folder.display + besideName): ")
        }
    }

    /// Deletes `name` (NUL-ended, exact bytes) in the open folder `folder` when it is a regular
    /// file; false when there is none (or it went away). A link, folder or anything else of
    /// that name is left alone. Throws the errno of a failed check or removal.
    static func removeRegularFile(_ name: [CChar], inFolder folder: Int32) throws(Errno) -> Bool {
        var info = stat()
        let found = name.withUnsafeBufferPointer { n in
            SystemCall.retrying { fstatat(folder, n.baseAddress!, &info, AT_SYMLINK_NOFOLLOW) }
        }
        if found != 0 {
            if errno == ENOENT || errno == ENOTDIR { return false }
            throw Errno.current
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return false }
        if name.withUnsafeBufferPointer({ n in SystemCall.retrying { unlinkat(folder, n.baseAddress!, 0) } }) != 0 {
            if errno == ENOENT { return false }
            throw Errno.current
        }
        return true
    }

    /// The path's file type (`S_IFREG`, `S_IFDIR`, …; a symbolic link itself when links are
    /// not followed), or its error in words when it does not exist or cannot be reached (a
    /// dangling link said as such).
    package func fileType() throws(DocumentSourceFileError) -> mode_t {
        var info = stat()
        guard (followSymlinks ? stat(path, &info) : lstat(path, &info)) == 0 else {
            throw reading.pathError(errno)
        }
        return info.st_mode & S_IFMT
    }
}
