#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// The folder an AppleDouble sidecar lives in, held open, and the name whose sidecar it is.
///
/// Found without `realpath`, so a file whose absolute path is longer than PATH_MAX (a deep
/// working folder, or symbolic links into a deep tree) still has its sidecar found: the
/// path's folder is opened as given, and when symbolic links are followed each link is read
/// with `readlinkat` relative to the folder it sits in and its target opened relative to that
/// folder, until the last component is no link (at most 40 links, the kernel's own limit).
package struct SidecarFolder {
    /// The open folder (closed by the caller).
    package let descriptor: Int32
    /// The last component of the (resolved) path: the sidecar is `._` + name.
    package let name: String
    /// The folder as a path prefix for messages: empty or ending in `/`.
    package let display: String

    /// Opens the folder that holds `path` (its final target when `followSymlinks`); nil when
    /// the path or a link on the way does not exist or has no last component. `owner`: the
    /// path messages name (the file whose sidecar it is, as its caller gave it).
    package static func locate(
        _ path: String, followSymlinks: Bool, owner: String
    ) throws(FileAccessError) -> SidecarFolder? {
        var base = AT_FDCWD
        var current = path
        var display = ""
        defer { if base != AT_FDCWD { SystemCall.close(base) } }
        for _ in 0...40 {
            guard let (folder, name) = split(current) else { return nil }
            if name == "." || name == ".." {
                // The name is that of the folder `.` or `..` stands for, which only resolving
                // the path tells; this rare case goes through realpath as before.
                guard followSymlinks || base == AT_FDCWD, let resolved = resolved(path) else { return nil }
                return try locate(resolved, followSymlinks: false, owner: owner)
            }
            var fd = SystemCall.retrying { openat(base, folder.isEmpty ? "." : folder, folderFlags) }
            if fd < 0 && errno == ENAMETOOLONG {
                // Deeper than PATH_MAX (a walk goes there): opened piece by piece.
                fd = LongPath.open(Array(folder.utf8), relativeTo: base, flags: folderFlags)
            }
            if fd < 0 {
                let code = errno
                if code == ENOENT || code == ENOTDIR || code == ELOOP { return nil }
                throw FileAccessError(
                    errno: code, path: owner, context: "cannot open the folder of the AppleDouble sidecar: ")
            }
            if base != AT_FDCWD { SystemCall.close(base) }
            base = fd
            display = (current.hasPrefix("/") ? "" : display) + folder
            guard followSymlinks, let target = try linkTarget(fd, name, owner: owner) else {
                defer { base = AT_FDCWD }  // handed over to the result
                return SidecarFolder(descriptor: fd, name: name, display: display)
            }
            current = target
        }
        return nil  // a loop of links: the attribute call itself reports ELOOP
    }

    /// The descriptor flags for a folder that is only searched and read relative to.
    private static var folderFlags: Int32 {
        #if os(Linux)
        // O_PATH (010000000 on every Linux port Swift runs on; Glibc's module hides the
        // macro): a folder with search but no read permission still works, as in a path.
        0o10_000_000 | O_DIRECTORY | O_CLOEXEC
        #else
        O_RDONLY | O_DIRECTORY | O_CLOEXEC
        #endif
    }

    /// The target of `name` in `folder` when it is a symbolic link, else nil.
    private static func linkTarget(
        _ folder: Int32, _ name: String, owner: String
    ) throws(FileAccessError) -> String? {
        var info = stat()
        guard SystemCall.retrying({ fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) }) == 0,
            info.st_mode & S_IFMT == S_IFLNK
        else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = SystemCall.retrying { readlinkat(folder, name, &buffer, buffer.count - 1) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Splits a path into its folder part (empty, or ending in `/`) and last component; nil
    /// for `/` and the empty path.
    package static func split(_ path: String) -> (folder: String, name: String)? {
        let trimmed = PathText.trimmingTrailingSlashes(path)
        guard !trimmed.isEmpty, trimmed != "/" else { return nil }
        guard let slash = trimmed.lastIndex(of: "/") else { return ("", String(trimmed)) }
        return (String(trimmed[...slash]), String(trimmed[trimmed.index(after: slash)...]))
    }

    private static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
