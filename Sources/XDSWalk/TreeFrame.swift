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
    /// The folder it was entered from (nil for the walker's first folder: the root, or a
    /// folder handed over by another worker).
    let parent: TreeFrame?
    /// The name in ``parent``; for a first folder, its whole path.
    private let component: [UInt8]
    /// The path while the folder is the walk's newest (its files are named from it), or once
    /// asked for again; a folder with a subfolder on the stack forgets it (``forgetPath()``).
    /// Each folder keeping its whole path made a chain of N folders hold N²/2 bytes (50 MB at
    /// 5 000 levels, 475 MB at 20 000: issue 35); now the stack holds its names once.
    private var kept: TreePath?
    /// `/proc/self/fd/N/` (or the path and `/`), without NUL: what a name is appended to for the
    /// attribute calls while the folder's listing is examined (N is its first descriptor).
    /// Emptied once a subfolder is entered (``forgetPath()``): the folder's files have all been
    /// examined by then, and a path-long copy per folder added up to megabytes at depth.
    private(set) var access: [CChar]
    /// Subfolders to enter: name, whether the listing has its sidecar `._NAME`, and the name of
    /// its companion in the listing (``FileTreeInspector/companionSuffix``).
    var subfolders: [(name: [UInt8], sidecar: Bool, companion: [UInt8]?)] = []
    var next = 0

    init(directory: OpaquePointer, descriptor: Int32, device: UInt64, inode: UInt64,
         path: TreePath, parent: TreeFrame?, name: [UInt8], access: [CChar]) {
        self.directory = directory
        self.descriptor = descriptor
        self.device = device
        self.inode = inode
        self.parent = parent
        self.component = parent == nil ? path.bytes : name
        self.kept = path
        self.access = access
    }

    /// The folder's path: the first folder's joined with the names down to this one (kept
    /// while it is asked for, until ``forgetPath()``).
    var path: TreePath {
        if let kept { return kept }
        var frames: [TreeFrame] = []
        var node = self
        while node.kept == nil, let up = node.parent {
            frames.append(node)
            node = up
        }
        var bytes = node.kept?.bytes ?? node.component
        for frame in frames.reversed() {
            if bytes.last != UInt8(ascii: "/") { bytes.append(UInt8(ascii: "/")) }
            bytes += frame.component
        }
        let path = TreePath(bytes: bytes)
        kept = path
        return path
    }

    /// Lets go of the path (a subfolder is now the newest; a first folder keeps its own) and
    /// of ``access`` (its files have been examined).
    func forgetPath() {
        if parent != nil { kept = nil }
        access = []
    }

    var isOpen: Bool { descriptor >= 0 }

    var hasPending: Bool { next < subfolders.count }

    /// The folder's own name: the last component of ``path`` (a folder below the walker's
    /// first, whose path is its parent's joined with its name).
    var name: ArraySlice<UInt8> {
        if parent != nil { return component[...] }
        let bytes = component[...]
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
