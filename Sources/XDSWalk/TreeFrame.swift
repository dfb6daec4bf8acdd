#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// One folder on the walk's stack: its listing examined, its subfolders still to enter; open
/// while it is among the walker's newest folders (``TreeWalker/window``), closed otherwise and
/// opened again (checked by device and inode) when the walk comes back to it.
final class TreeFrame {
    /// The stream the folder was listed with, which owns ``descriptor``; nil once the folder
    /// has been closed (a folder opened again has a bare descriptor).
    var directory: OpaquePointer?
    /// The open folder, or -1 while it is closed.
    var descriptor: Int32
    let device: UInt64
    let inode: UInt64
    let path: TreePath
    /// `/proc/self/fd/N/` (or the path and `/`), without NUL: what a name is appended to for the
    /// attribute calls while the folder's listing is examined (N is its first descriptor).
    let access: [CChar]
    /// Subfolders to enter: name, whether the listing has its sidecar `._NAME`, and the name of
    /// its companion in the listing (``FileTreeInspector/companionSuffix``).
    var subfolders: [(name: [UInt8], sidecar: Bool, companion: [UInt8]?)] = []
    var next = 0

    init(directory: OpaquePointer, descriptor: Int32, device: UInt64, inode: UInt64,
         path: TreePath, access: [CChar]) {
        self.directory = directory
        self.descriptor = descriptor
        self.device = device
        self.inode = inode
        self.path = path
        self.access = access
    }

    var isOpen: Bool { descriptor >= 0 }

    var hasPending: Bool { next < subfolders.count }

    /// The folder's own name: the last component of ``path`` (a folder below the walker's
    /// first, whose path is its parent's joined with its name).
    var name: ArraySlice<UInt8> {
        let bytes = path.bytes[...]
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return bytes }
        return bytes[(slash + 1)...]
    }

    /// Closes the folder (nothing when it is closed).
    func close() {
        if let directory {
            closedir(directory)
        } else if descriptor >= 0 {
            SystemCall.close(descriptor)
        }
        directory = nil
        descriptor = -1
    }

    /// Whether the open folder `fd` is this folder.
    func isSame(_ fd: Int32) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
