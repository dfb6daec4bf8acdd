import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension TemporaryFolder {
    /// Removes `path` however deep the folders in it go (FileManager gives up below PATH_MAX):
    /// every folder is first moved up to be a direct child of `path` (`renameat`, two
    /// descriptors at a time), then the two-level tree that is left is removed.
    static func removeDeep(_ path: String) {
        let top = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard top >= 0 else { return }
        defer { close(top) }
        var queue = subfolders(top)
        var moved = 0
        while let name = queue.popLast() {
            let folder = openat(top, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folder >= 0 else { continue }
            for child in subfolders(folder) {
                moved += 1
                let flat = ".flat-\(moved)"
                if renameat(folder, child, top, flat) == 0 { queue.append(flat) }
            }
            close(folder)
        }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The names of the folders (not links) in the open folder `fd`.
    private static func subfolders(_ fd: Int32) -> [String] {
        let copy = dup(fd)
        guard copy >= 0, let stream = fdopendir(copy) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard name != ".", name != ".." else { continue }
            var info = stat()
            if fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFDIR { names.append(name) }
        }
        return names
    }
}
