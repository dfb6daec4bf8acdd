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
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
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
        guard let (bytes, size, sidecar) = try readSidecarStart() else { return nil }
        let double: AppleDouble
        do {
            double = try AppleDouble(bytes: bytes, fileSize: size)
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

    /// The sidecar's location when it holds an `x-document-source` entry (not decoded); nil
    /// when there is none or the sidecar cannot be read or parsed.
    func sidecarValueLocation() -> String? {
        guard let (bytes, size, sidecar) = try? readSidecarStart(),
            let double = try? AppleDouble(bytes: bytes, fileSize: size),
            double.value(named: Self.plainAttributeName) != nil
        else { return nil }
        return sidecar
    }

    /// Reads the first ``AppleDouble/attributeAreaLimit`` bytes of the sidecar and returns them
    /// with the file's size and the sidecar's location; nil when there is no such regular file.
    private func readSidecarStart() throws(DocumentSourceFileError) -> ([UInt8], Int, String)? {
        guard let folder = try SidecarFolder.locate(path, followSymlinks: followSymlinks, owner: self)
        else { return nil }
        defer { SystemCall.close(folder.descriptor) }
        let name = "._" + folder.name
        // The label people see: the resolved path when it can be had (as before), else the
        // path as reached; the file itself is always opened relative to its folder.
        // Made only once a sidecar is there: realpath is a walk over the whole path.
        func location() -> String { sidecarPath ?? folder.display + name }
        func failure(_ code: Int32) -> DocumentSourceFileError {
            DocumentSourceFileError(
                errno: code, path: path, context: "cannot read the AppleDouble sidecar \(location()): ")
        }
        // Three tries: a sidecar swapped for another file between the check and the open is
        // checked again rather than read unchecked.
        for _ in 0..<3 {
            var before = stat()
            if SystemCall.retrying({ fstatat(folder.descriptor, name, &before, AT_SYMLINK_NOFOLLOW) }) != 0 {
                let code = errno
                if code == ENOENT || code == ENOTDIR { return nil }
                throw failure(code)
            }
            guard before.st_mode & S_IFMT == S_IFREG else { return nil }
            let fd = SystemCall.retrying {
                openat(folder.descriptor, name, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
            }
            if fd < 0 {
                let code = errno
                // Gone, or replaced by a symbolic link (O_NOFOLLOW), since the check.
                if code == ENOENT || code == ELOOP { return nil }
                throw failure(code)
            }
            defer { SystemCall.close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw failure(errno) }
            guard info.st_mode & S_IFMT == S_IFREG, info.st_dev == before.st_dev, info.st_ino == before.st_ino
            else { continue }
            let start: (bytes: [UInt8], fileSize: Int)
            do throws(Errno) {
                start = try Self.readSidecarStart(fd, size: Int(info.st_size))
            } catch {
                throw failure(error.rawValue)
            }
            return (start.bytes, start.fileSize, location())
        }
        throw DocumentSourceFileError(
            .ioError, path: path, message: "the AppleDouble sidecar \(location()) kept changing while it was read; try again")
    }
}

extension DocumentSourceFile {
    /// Reads the first ``AppleDouble/attributeAreaLimit`` bytes of the open sidecar `fd` whose
    /// size is `size`; returns them with the size to judge them by (a file that shrank while it
    /// was read is judged by what was there). Shared by the reader and the tree walk.
    static func readSidecarStart(_ fd: Int32, size: Int) throws(Errno) -> (bytes: [UInt8], fileSize: Int) {
        let wanted = min(size, AppleDouble.attributeAreaLimit)
        var failure: Errno?
        let bytes = [UInt8](unsafeUninitializedCapacity: wanted) { buffer, count in
            do throws(Errno) {
                count = try SystemCall.readFully(fd, into: UnsafeMutableRawBufferPointer(buffer))
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return (bytes, bytes.count < wanted ? bytes.count : size)
    }
}
