#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDSWalk

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
        base = String(PathText.trimmingTrailingSlashes(base))
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
        guard let folder = try SidecarFolder.locate(path, followSymlinks: followSymlinks, owner: path)
        else { return nil }
        defer { SystemCall.close(folder.descriptor) }
        // The label people see: the resolved path when it can be had, else the path as
        // reached; made only once a sidecar is there (realpath is a walk over the whole path).
        return try reading.sidecarValue(folder: folder.descriptor, name: Array(("._" + folder.name).utf8), checkFirst: true) {
            sidecarPath ?? folder.display + "._" + folder.name
        }
    }

    /// The sidecar's location when it holds an `x-document-source` entry (not decoded); nil
    /// when there is none or the sidecar cannot be read or parsed.
    func sidecarValueLocation() -> String? {
        guard let folder = try? SidecarFolder.locate(path, followSymlinks: followSymlinks, owner: path)
        else { return nil }
        defer { SystemCall.close(folder.descriptor) }
        let name = "._" + folder.name
        guard let start = try? reading.readSidecarStart(folder: folder.descriptor, name: Array(name.utf8), checkFirst: true, location: { "" }),
            let double = try? AppleDouble(bytes: start.bytes, fileSize: start.fileSize),
            double.value(named: Self.plainAttributeName) != nil
        else { return nil }
        return sidecarPath ?? folder.display + name
    }
}
