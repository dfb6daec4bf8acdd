#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

extension DocumentSourceFile {
    /// The path of the AppleDouble sidecar that would carry this file's attributes: `._NAME` in
    /// the same folder (the folder of the symlink's target when symlinks are followed), or nil
    /// when the path has no last component (`/`, `.`, `..`) or cannot be resolved.
    public var sidecarPath: String? {
        var base = path
        if followSymlinks {
            guard let resolved = realpath(path, nil) else { return nil }
            base = String(cString: resolved)
            free(resolved)
        }
        base = String(PathText.trimmingTrailingSlashes(base))
        let folder: Substring
        let name: Substring
        if let slash = base.lastIndex(of: "/") {
            folder = base[...slash]
            name = base[base.index(after: slash)...]
        } else {
            folder = ""
            name = base[...]
        }
        guard !name.isEmpty, name != ".", name != ".." else { return nil }
        return folder + "._" + name
    }

    /// Reads the `x-document-source` entry of the AppleDouble sidecar, or nil when there is no
    /// sidecar or it has no such entry.
    ///
    /// The sidecar is found relative to its folder (`openat`, `fstatat`), never through
    /// `realpath`, so it is found however long the absolute path is. Only a regular file named
    /// `._NAME` is a sidecar: a FIFO, socket, device or symbolic link of that name is never
    /// opened (macOS writes sidecars as plain files; following a link could read anything) and
    /// counts as no sidecar.
    func readSidecar() throws(DocumentSourceFileError) -> StoredDocumentSource? {
        guard let folder = try SidecarFolder.locate(path, followSymlinks: followSymlinks, owner: self)
        else { return nil }
        defer { SystemCall.close(folder.descriptor) }
        // The label people see: the resolved path when it can be had, else the path as
        // reached; made only once a sidecar is there (realpath is a walk over the whole path).
        return try sidecarValue(folder: folder.descriptor, name: Array(("._" + folder.name).utf8), checkFirst: true) {
            sidecarPath ?? folder.display + "._" + folder.name
        }
    }

    /// The sidecar's location when it holds an `x-document-source` entry (not decoded); nil
    /// when there is none or the sidecar cannot be read or parsed.
    func sidecarValueLocation() -> String? {
        guard let folder = try? SidecarFolder.locate(path, followSymlinks: followSymlinks, owner: self)
        else { return nil }
        defer { SystemCall.close(folder.descriptor) }
        let name = "._" + folder.name
        guard let start = try? readSidecarStart(folder: folder.descriptor, name: Array(name.utf8), checkFirst: true, location: { "" }),
            let double = try? AppleDouble(bytes: start.bytes, fileSize: start.fileSize),
            double.value(named: Self.plainAttributeName) != nil
        else { return nil }
        return sidecarPath ?? folder.display + name
    }
}

extension DocumentSourceFile {
    /// The one sidecar reader, for a file's own read (``readSidecar()``) and for the tree walk
    /// (`TreeEntryReader`): the `x-document-source` entry of the AppleDouble file `name` in the
    /// open folder `folder`, decoded, or nil when there is no such regular file or it has no
    /// entry. `name` is the file name's bytes (a name met in a walk need not be UTF-8);
    /// `location` names the sidecar in messages (made only when one is needed).
    func sidecarValue(
        folder: Int32, name: [UInt8], checkFirst: Bool, location: () -> String
    ) throws(DocumentSourceFileError) -> StoredDocumentSource? {
        guard let start = try readSidecarStart(folder: folder, name: name, checkFirst: checkFirst, location: location)
        else { return nil }
        let sidecar = location()
        let double: AppleDouble
        do {
            double = try AppleDouble(bytes: start.bytes, fileSize: start.fileSize)
        } catch {
            throw DocumentSourceFileError(
                .malformedSidecar, path: path,
                message: "malformed AppleDouble sidecar \(sidecar): \(error)")
        }
        guard let value = double.value(named: Self.plainAttributeName) else { return nil }
        guard value.count <= Self.maximumValueSize else {
            throw DocumentSourceFileError(
                .malformedValue, path: path,
                message: "the x-document-source value in \(sidecar) is larger than 64 KiB")
        }
        let source = try decodeValue(value, from: sidecar)
        return StoredDocumentSource(source: source, store: .appleDouble, location: sidecar)
    }

    /// The first ``AppleDouble/attributeAreaLimit`` bytes of the sidecar `name` in `folder`,
    /// with the size to judge them by (a file that shrank while it was read is judged by what
    /// was there); nil when there is no such regular file. Opened with `O_NOFOLLOW` and
    /// `O_NONBLOCK` (XDSSystem's `ReadableFile`), so a link or FIFO of that name is never
    /// followed or waited on. With `checkFirst` (a path whose folder listing was not read),
    /// the name is `fstatat`-ed first so that nothing but a regular file is ever opened, and
    /// a file swapped between the check and the open is checked again (three tries).
    private func readSidecarStart(
        folder: Int32, name: [UInt8], checkFirst: Bool, location: () -> String
    ) throws(DocumentSourceFileError) -> (bytes: [UInt8], fileSize: Int)? {
        let name = name.map { CChar(bitPattern: $0) } + [0]
        func failure(_ code: Int32) -> DocumentSourceFileError {
            DocumentSourceFileError(
                errno: code, path: path, context: "cannot read the AppleDouble sidecar \(location()): ")
        }
        for _ in 0..<3 {
            var before = stat()
            if checkFirst {
                if SystemCall.retrying({ fstatat(folder, name, &before, AT_SYMLINK_NOFOLLOW) }) != 0 {
                    let code = errno
                    if code == ENOENT || code == ENOTDIR { return nil }
                    throw failure(code)
                }
                guard before.st_mode & S_IFMT == S_IFREG else { return nil }
            }
            let file: ReadableFile
            do throws(Errno) {
                file = try ReadableFile(name, relativeTo: folder, options: [.nonBlocking, .noFollow])
            } catch {
                // Gone, or replaced by a symbolic link (O_NOFOLLOW), since the check.
                if error.rawValue == ENOENT || error.rawValue == ELOOP { return nil }
                throw failure(error.rawValue)
            }
            guard file.isRegular else {
                if checkFirst { continue }
                return nil
            }
            if checkFirst, file.info.st_dev != before.st_dev || file.info.st_ino != before.st_ino { continue }
            let wanted = min(file.size, AppleDouble.attributeAreaLimit)
            do throws(Errno) {
                let bytes = try file.read(upTo: wanted)
                return (bytes, bytes.count < wanted ? bytes.count : file.size)
            } catch {
                throw failure(error.rawValue)
            }
        }
        throw DocumentSourceFileError(
            .ioError, path: path, message: "the AppleDouble sidecar \(location()) kept changing while it was read; try again")
    }
}
