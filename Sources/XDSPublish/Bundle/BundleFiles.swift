#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// The file-system side of ``AppBundle``: what a path is, bounded whole-file reads, and the
/// names in a folder. Plain system calls (no Foundation), each failure in words.
enum BundleFiles {
    /// What is at a path, following symbolic links (`stat`), or not following them (`lstat`).
    enum EntryType: Equatable {
        case missing
        case folder
        case regularFile
        case other
        case failed(Errno)
    }

    static func type(of path: String, followLinks: Bool = true) -> EntryType {
        var info = stat()
        let status = followLinks ? stat(path, &info) : lstat(path, &info)
        guard status == 0 else {
            let error = Errno.current
            return error.rawValue == ENOENT || error.rawValue == ENOTDIR ? .missing : .failed(error)
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .folder
        case S_IFREG: return .regularFile
        default: return .other
        }
    }

    /// Whether `path` itself is a symbolic link (`lstat`).
    static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// Reads the regular file at `path` whole, refusing one over `limit` bytes before reading
    /// it. Opened non-blocking and without becoming a controlling terminal, so a FIFO or device
    /// is neither waited on nor read; `noFollow` refuses a symbolic link as the last component.
    /// `what` names the file in messages ("the Info.plist", "the icon").
    static func read(_ path: String, limit: Int, what: String, noFollow: Bool,
                     tooLarge: AppBundleError.Kind) throws(AppBundleError) -> [UInt8] {
        var flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK
        if noFollow { flags |= O_NOFOLLOW }
        let fd = SystemCall.retrying { open(path, flags) }
        guard fd >= 0 else { throw failure(path, .current) }
        defer { SystemCall.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(path, .current) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            let folder = info.st_mode & S_IFMT == S_IFDIR
            throw AppBundleError(tooLarge, file: path, message: folder ? "is a folder, not a file" : "is not a regular file")
        }
        guard info.st_size <= off_t(limit) else {
            throw AppBundleError(tooLarge, file: path, message: "\(what) is \(info.st_size) bytes, more than the \(sizeInWords(limit)) accepted")
        }
        // One byte more than the size, to notice a file that grew after fstat.
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        let outcome = bytes.withUnsafeMutableBytes { buffer -> Result<Int, Errno> in
            do throws(Errno) { return .success(try SystemCall.readFully(fd, into: buffer)) } catch { return .failure(error) }
        }
        let count: Int
        switch outcome {
        case .success(let n): count = n
        case .failure(let error): throw failure(path, error)
        }
        guard count <= limit else {
            throw AppBundleError(tooLarge, file: path, message: "\(what) grew past the \(sizeInWords(limit)) accepted while being read")
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Reads at most `count` bytes from the start of the regular file at `path` (not
    /// following a symbolic link), for headers.
    static func readPrefix(_ path: String, count: Int) throws(AppBundleError) -> [UInt8] {
        let fd = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW) }
        guard fd >= 0 else { throw failure(path, .current) }
        defer { SystemCall.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(path, .current) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw AppBundleError(.malformedIcon, file: path, message: "is not a regular file")
        }
        var bytes = [UInt8](repeating: 0, count: count)
        let outcome = bytes.withUnsafeMutableBytes { buffer -> Result<Int, Errno> in
            do throws(Errno) { return .success(try SystemCall.readFully(fd, into: buffer)) } catch { return .failure(error) }
        }
        switch outcome {
        case .success(let n): bytes.removeSubrange(n...)
        case .failure(let error): throw failure(path, error)
        }
        return bytes
    }

    /// The names in `folder` (without `.` and `..`) that are valid UTF-8, at most `limit` of
    /// them (a hostile folder cannot make the listing unbounded).
    static func names(in folder: String, limit: Int = 100_000) throws(AppBundleError) -> [String] {
        guard let directory = opendir(folder) else { throw failure(folder, .current) }
        defer { closedir(directory) }
        var names: [String] = []
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while names.count < limit {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw failure(folder, .current) }
                break
            }
            let raw = (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self)
            guard let name = String(validatingCString: raw), name != ".", name != ".." else { continue }
            names.append(name)
        }
        return names
    }

    /// The error for a failed open, read or listing: missing → ``AppBundleError/Kind/notFound``,
    /// anything else ``AppBundleError/Kind/unreadable``.
    static func failure(_ path: String, _ error: Errno) -> AppBundleError {
        switch error.rawValue {
        case ENOENT, ENOTDIR: AppBundleError(.notFound, file: path, message: "no such file or folder")
        case ELOOP: AppBundleError(.unreadable, file: path, message: "is a symbolic link, which is not followed inside a bundle")
        default: AppBundleError(.unreadable, file: path, message: "cannot read: \(error.words)")
        }
    }

    /// "4 MiB", "64 KiB", or a byte count.
    static func sizeInWords(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    /// `folder/name`, without doubling a slash.
    static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The folder part of `path` ("." for a bare name, "/" for a file at the root).
    static func folder(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let folder = String(trimmed[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    /// The last component of `path`, trailing slashes ignored.
    static func lastComponent(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
