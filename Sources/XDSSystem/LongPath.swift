#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Paths longer than `PATH_MAX`, which the kernel refuses whole (ENAMETOOLONG) but a tree can
/// hold (a walk meets them below deep folders).
package enum LongPath {
    /// Opens `path` relative to `base` as `openat(base, path, flags)` would were there no
    /// `PATH_MAX`: the path is cut at slashes into pieces shorter than `PATH_MAX`; each piece
    /// but the last is opened as a folder (`O_PATH`: search permission is enough, as in a path)
    /// relative to the one before, and the last with `flags`. Each piece is resolved by the
    /// kernel as part of a path would be (symbolic links on the way followed, the last one as
    /// `flags` say). At most two descriptors are open at a time; the result is the caller's.
    /// - Returns: the descriptor, or -1 with errno set.
    package static func open(_ path: [UInt8], relativeTo base: Int32 = AT_FDCWD, flags: Int32, mode: mode_t = 0) -> Int32 {
        let limit = Int(PATH_MAX) - 1
        var folder = base
        var start = 0
        defer { if folder != base { SystemCall.close(folder) } }
        while path.count - start > limit {
            // The longest piece that fits and ends at a slash (kept with the piece, so that a
            // first piece "/" stands for the root).
            guard let slash = path[start..<(start + limit)].lastIndex(of: UInt8(ascii: "/")) else {
                errno = ENAMETOOLONG
                return -1
            }
            let piece = Array(path[start...slash])
            let fd = withCPath(piece) { name in SystemCall.retrying { openat(folder, name, pathFlags | O_DIRECTORY | O_CLOEXEC) } }
            guard fd >= 0 else { return -1 }
            if folder != base { SystemCall.close(folder) }
            folder = fd
            start = slash + 1
            while start < path.count && path[start] == UInt8(ascii: "/") { start += 1 }
        }
        let rest = start < path.count ? Array(path[start...]) : Array(".".utf8)
        return withCPath(rest) { name in SystemCall.retrying { openat(folder, name, flags, mode) } }
    }

    /// `O_PATH` where there is one (Glibc's module hides the macro; 010000000 on every Linux
    /// port Swift runs on), else `O_RDONLY`.
    private static var pathFlags: Int32 {
        #if os(Linux)
        0o10_000_000
        #else
        O_RDONLY
        #endif
    }

    private static func withCPath<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        var text = bytes.map { CChar(bitPattern: $0) }
        text.append(0)
        return text.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
