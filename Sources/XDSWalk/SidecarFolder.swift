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
    /// The last component of the (resolved) path, exact bytes: the sidecar is `._` + name.
    package let nameBytes: [UInt8]
    /// The folder as a path prefix for messages, exact bytes: empty or ending in `/`.
    package let displayBytes: [UInt8]

    /// ``nameBytes`` as text (lossy for a name that is not UTF-8: XDocSource's paths are text).
    package var name: String { String(decoding: nameBytes, as: UTF8.self) }
    /// ``displayBytes`` as text (lossy, as ``name``).
    package var display: String { String(decoding: displayBytes, as: UTF8.self) }

    /// Opens the folder that holds `path` (its final target when `followSymlinks`); nil when
    /// the path or a link on the way does not exist or has no last component. `owner`: the
    /// path messages name (the file whose sidecar it is, as its caller gave it).
    package static func locate(
        _ path: String, followSymlinks: Bool, owner: String
    ) throws(FileAccessError) -> SidecarFolder? {
        try locate(bytes: Array(path.utf8), followSymlinks: followSymlinks, owner: owner)
    }

    /// ``locate(_:followSymlinks:owner:)`` for a path as exact bytes (a walk's root, which need
    /// not be UTF-8).
    package static func locate(
        bytes path: [UInt8], followSymlinks: Bool, owner: String
    ) throws(FileAccessError) -> SidecarFolder? {
        var base = AT_FDCWD
        var current = path
        var display: [UInt8] = []
        defer { if base != AT_FDCWD { SystemCall.close(base) } }
        for _ in 0...40 {
            guard let (folder, name) = split(bytes: current) else { return nil }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] {
                // The name is that of the folder `.` or `..` stands for, which only resolving
                // the path tells; this rare case goes through realpath as before.
                guard followSymlinks || base == AT_FDCWD, let resolved = resolved(path) else { return nil }
                return try locate(bytes: resolved, followSymlinks: false, owner: owner)
            }
            var fd = TreeWalker.withCName(folder.isEmpty ? [UInt8(ascii: ".")] : folder) { cFolder in
                SystemCall.retrying { openat(base, cFolder, folderFlags) }
            }
            if fd < 0 && errno == ENAMETOOLONG {
                // Deeper than PATH_MAX (a walk goes there): opened piece by piece.
                fd = LongPath.open(folder, relativeTo: base, flags: folderFlags)
            }
            if fd < 0 {
                let code = errno
                if code == ENOENT || code == ENOTDIR || code == ELOOP { return nil }
                throw FileAccessError(
                    errno: code, path: owner, context: "cannot open the folder of the AppleDouble sidecar: ")
            }
            if base != AT_FDCWD { SystemCall.close(base) }
            base = fd
            display = (current.first == UInt8(ascii: "/") ? [] : display) + folder
            guard followSymlinks, let target = try linkTarget(fd, name, owner: owner) else {
                defer { base = AT_FDCWD }  // handed over to the result
                return SidecarFolder(descriptor: fd, nameBytes: name, displayBytes: display)
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
        _ folder: Int32, _ name: [UInt8], owner: String
    ) throws(FileAccessError) -> [UInt8]? {
        var info = stat()
        guard TreeWalker.withCName(name, { cName in SystemCall.retrying({ fstatat(folder, cName, &info, AT_SYMLINK_NOFOLLOW) }) }) == 0,
            info.st_mode & S_IFMT == S_IFLNK
        else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = TreeWalker.withCName(name) { cName in
            SystemCall.retrying { readlinkat(folder, cName, &buffer, buffer.count - 1) }
        }
        guard count > 0 else { return nil }
        return buffer[..<count].map { UInt8(bitPattern: $0) }
    }

    /// Splits a path into its folder part (empty, or ending in `/`) and last component; nil
    /// for `/` and the empty path.
    package static func split(_ path: String) -> (folder: String, name: String)? {
        let trimmed = PathText.trimmingTrailingSlashes(path)
        guard !trimmed.isEmpty, trimmed != "/" else { return nil }
        guard let slash = trimmed.lastIndex(of: "/") else { return ("", String(trimmed)) }
        return (String(trimmed[...slash]), String(trimmed[trimmed.index(after: slash)...]))
    }

    /// ``split(_:)`` on exact bytes.
    static func split(bytes path: [UInt8]) -> (folder: [UInt8], name: [UInt8])? {
        var end = path.count
        while end > 1, path[end - 1] == UInt8(ascii: "/") { end -= 1 }
        let trimmed = path[..<end]
        guard !trimmed.isEmpty, !(trimmed.count == 1 && trimmed.first == UInt8(ascii: "/")) else { return nil }
        guard let slash = trimmed.lastIndex(of: UInt8(ascii: "/")) else { return ([], Array(trimmed)) }
        return (Array(trimmed[...slash]), Array(trimmed[(slash + 1)...]))
    }

    private static func resolved(_ path: [UInt8]) -> [UInt8]? {
        guard let pointer = TreeWalker.withCName(path, { realpath($0, nil) }) else { return nil }
        defer { free(pointer) }
        return Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
    }
}
