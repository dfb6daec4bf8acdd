#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// Each entry the walk meets, handed to the reader (``FileTreeInspector``): listed once, and
/// inspected only when it has a wanted name, a sidecar or a companion.
extension TreeWalker {
    /// Lists the attributes of one entry (the only call an entry without a wanted name, a
    /// sidecar or a companion costs) and hands it to the inspector. `parent`: the open folder
    /// it is listed in (its sidecar and companion are there) and its path (needed only when
    /// there is a sidecar or companion). `listedIn`: the open folder the
    /// entry is in and where its name starts in `access`, to list it relative to that folder
    /// (no path walk for each file; Linux 6.13 or newer), else by path.
    mutating func inspect(
        _ inspection: TreeInspection, access: [CChar], follow: Bool,
        path makePath: @autoclosure () -> TreePath, folder: Bool, in parent: (descriptor: Int32, path: TreePath?),
        sidecar: Bool, companion: [UInt8]?, name: ArraySlice<UInt8>, listedIn: (folder: Int32, nameStart: Int)? = nil
    ) {
        if nameList.isEmpty { nameList = [UInt8](repeating: 0, count: 4096) }
        var size = 0
        if let listedIn, !follow, let listed = access.withUnsafeBufferPointer({ pointer in
            ExtendedAttributes.listNames(
                inFolder: listedIn.folder, name: pointer.baseAddress! + listedIn.nameStart, buffer: &nameList)
        }) {
            size = listed
        } else {
            do throws(Errno) {
                size = try access.withUnsafeBufferPointer { (pointer) throws(Errno) -> Int in
                    try ExtendedAttributes.listNames(atPath: pointer.baseAddress!, follow: follow, buffer: &nameList)
                }
            } catch {
                listingFailed(error, makePath())
                return
            }
        }
        guard sidecar || companion != nil || (size > 0 && inspection.wantsAny(nameList, size: size)) else { return }
        let sidecarName = sidecar ? [UInt8(ascii: "."), UInt8(ascii: "_")] + name : nil
        let entry = FileTree.InspectedEntry(
            path: makePath(), name: Array(name), isFolder: folder, isOrphan: false,
            attributeNames: .init(bytes: Array(nameList[..<size])),
            sidecar: sidecarName.map { parent.path!.appending($0) }, sidecarName: sidecarName,
            companion: companion.map { parent.path!.appending($0) }, companionName: companion,
            folderDescriptor: parent.descriptor, access: access, follow: follow, nameStart: listedIn?.nameStart)
        run(inspection, entry)
    }

    /// Hands the sidecar `._NAME` or companion of the open folder `folder` (`access`: its files'
    /// prefix) whose NAME is not a regular file or folder there to the inspector, under its own path.
    mutating func inspectOrphan(
        _ inspection: TreeInspection, _ fileName: [UInt8], isSidecar: Bool,
        in folder: (descriptor: Int32, path: TreePath), access prefix: [CChar]
    ) {
        let path = folder.path.appending(fileName)
        var access = prefix
        for byte in fileName { access.append(CChar(bitPattern: byte)) }
        access.append(0)
        let entry = FileTree.InspectedEntry(
            path: path, name: fileName, isFolder: false, isOrphan: true, attributeNames: .init(bytes: []),
            sidecar: isSidecar ? path : nil, sidecarName: isSidecar ? fileName : nil,
            companion: isSidecar ? nil : path, companionName: isSidecar ? nil : fileName,
            folderDescriptor: folder.descriptor, access: access, follow: false, nameStart: prefix.count)
        run(inspection, entry)
    }

    /// The root's own entry for the inspector: its attributes listed following a link (it was
    /// named on purpose), its sidecar and companion looked for in the folder its path leads to.
    mutating func inspectRoot(
        _ inspection: TreeInspection, path rootPath: TreePath, isFolder: Bool
    ) {
        if nameList.isEmpty { nameList = [UInt8](repeating: 0, count: 4096) }
        let root = rootPath.lossyString  // messages only
        var access = rootPath.bytes.map { CChar(bitPattern: $0) } + [0]
        if access.count == 1 { access = Array(".".utf8CString) }
        let size: Int
        do throws(Errno) {
            size = try access.withUnsafeBufferPointer { (pointer) throws(Errno) -> Int in
                try ExtendedAttributes.listNames(atPath: pointer.baseAddress!, follow: true, buffer: &nameList)
            }
        } catch {
            failed(rootPath, FileAccessError(
                errno: error.rawValue, path: root, context: "cannot list the extended attributes: "))
            return
        }
        let located = try? SidecarFolder.locate(bytes: rootPath.bytes, followSymlinks: true, owner: root)
        defer { if let located { SystemCall.close(located.descriptor) } }
        let folder = located?.descriptor ?? AT_FDCWD
        let name = located?.nameBytes ?? rootPath.bytes
        // A companion is there when its folder has a regular file of that name.
        func beside(_ fileName: [UInt8]?) -> (name: [UInt8], path: TreePath)? {
            guard let located, let fileName else { return nil }
            var info = stat()
            let found = Self.withCName(fileName) { fstatat(located.descriptor, $0, &info, AT_SYMLINK_NOFOLLOW) } == 0
            guard found, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return (fileName, TreePath(bytes: located.displayBytes + fileName))
        }
        let sidecar = beside([UInt8(ascii: "."), UInt8(ascii: "_")] + name)
        let companion = beside(inspection.companionSuffix.map { name + $0 })
        guard sidecar != nil || companion != nil || (size > 0 && inspection.wantsAny(nameList, size: size)) else { return }
        let entry = FileTree.InspectedEntry(
            path: rootPath, name: name, isFolder: isFolder, isRoot: true, isOrphan: false,
            attributeNames: .init(bytes: Array(nameList[..<size])),
            sidecar: sidecar?.path, sidecarName: sidecar?.name, companion: companion?.path, companionName: companion?.name,
            folderDescriptor: folder, access: access, follow: true, nameStart: nil)
        run(inspection, entry)
    }

    /// Calls the inspector and reports what it returns or throws.
    mutating func run(_ inspection: TreeInspection, _ entry: FileTree.InspectedEntry) {
        do {
            if let value = try inspection.inspect(entry) { inspected(value, path: entry.path) }
        } catch {
            if error.kind == .notFound {
                problem(entry.path, .vanished, "vanished during the walk")
            } else if inspection.failuresNameTheEntry {
                failed(entry.path, error, entry: FileTree.Entry(
                    path: entry.path, isFolder: entry.isFolder, sidecar: entry.sidecar,
                    isOrphanSidecar: entry.isOrphan && entry.sidecar != nil))
            } else {
                failed(entry.path, error)
            }
        }
    }
}
