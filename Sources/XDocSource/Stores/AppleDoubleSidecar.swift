#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    func readSidecar() throws(DocumentSourceFileError) -> StoredDocumentSource? {
        guard let sidecar = sidecarPath else { return nil }
        guard let (bytes, size) = try readStart(of: sidecar) else { return nil }
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

    /// Reads the first ``AppleDouble/attributeAreaLimit`` bytes of a regular file and returns
    /// them with the file's size; nil when there is no such regular file.
    private func readStart(of sidecar: String) throws(DocumentSourceFileError) -> ([UInt8], Int)? {
        // O_NONBLOCK: a FIFO named `._NAME` must not hang the reader.
        let fd = open(sidecar, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw DocumentSourceFileError(
                errno: code, path: path, context: "cannot read the AppleDouble sidecar \(sidecar): ")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = Int(info.st_size)
        let wanted = min(size, AppleDouble.attributeAreaLimit)
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: wanted) { buffer, count in
            count = 0
            while count < wanted {
                let n = readBytes(fd, buffer.baseAddress! + count, wanted - count)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if n == 0 { break }  // shrank while we read: parse what is there
                count += n
            }
        }
        if failure != 0 {
            throw DocumentSourceFileError(
                errno: failure, path: path, context: "cannot read the AppleDouble sidecar \(sidecar): ")
        }
        // A file that shrank while we read is judged by what was there.
        return (bytes, bytes.count < wanted ? bytes.count : size)
    }
}

/// read(2), named apart from ``DocumentSourceFile/read()``.
private func readBytes(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(fd, buffer, count)
    #else
    Darwin.read(fd, buffer, count)
    #endif
}
