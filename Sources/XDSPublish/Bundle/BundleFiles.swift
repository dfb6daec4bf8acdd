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
        do throws(ReadableFile.Refusal) {
            return try ReadableFile.readWhole(path, limit: limit, options: noFollow ? [.nonBlocking, .noFollow] : .nonBlocking)
        } catch {
            switch error {
            case .folder: throw AppBundleError(tooLarge, file: path, message: "is a folder, not a file")
            case .notRegular: throw AppBundleError(tooLarge, file: path, message: "is not a regular file")
            case .tooLarge(let size):
                throw AppBundleError(tooLarge, file: path, message: "\(what) is \(size) bytes, more than the \(ByteCount.words(limit)) accepted")
            case .grew:
                throw AppBundleError(tooLarge, file: path, message: "\(what) grew past the \(ByteCount.words(limit)) accepted while being read")
            case .failed(let errno): throw failure(path, errno)
            }
        }
    }

    /// Reads at most `count` bytes from the start of the regular file at `path` (not
    /// following a symbolic link), for headers.
    static func readPrefix(_ path: String, count: Int) throws(AppBundleError) -> [UInt8] {
        let file: ReadableFile
        do throws(Errno) { file = try ReadableFile(path, options: [.nonBlocking, .noFollow]) } catch { throw failure(path, error) }
        guard file.isRegular else { throw AppBundleError(.malformedIcon, file: path, message: "is not a regular file") }
        do throws(Errno) { return try file.read(upTo: count) } catch { throw failure(path, error) }
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


    /// `folder/name`, without doubling a slash.
    static func join(_ folder: String, _ name: String) -> String { PathText.join(folder, name) }

    /// The folder part of `path` ("." for a bare name, "/" for a file at the root).
    static func folder(of path: String) -> String {
        let trimmed = PathText.trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let folder = String(trimmed[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    /// The last component of `path`, trailing slashes ignored.
    static func lastComponent(of path: String) -> String {
        let trimmed = PathText.trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

}
