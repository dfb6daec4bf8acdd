#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// Entries an inspector claims by name (``FileTreeInspector/claimsEntry(named:)``):
/// handed over whole, before the walk looks at them any other way.
extension TreeWalker {
    /// Hands the entry `name` of the open folder `folder` (`type`: its `d_type`) to the
    /// inspector's ``FileTreeInspector/inspect(claimed:)``; true when it took it.
    mutating func claim(
        _ inspection: TreeInspection, _ name: ArraySlice<UInt8>, type: UInt8, in folder: (descriptor: Int32, path: TreePath)
    ) -> Bool {
        let entryType: FileTree.ClaimedEntry.EntryType
        switch Int(type) {
        case Int(DT_REG): entryType = FileTree.ClaimedEntry.EntryType.file
        case Int(DT_DIR): entryType = .folder
        case Int(DT_LNK): entryType = .link
        case Int(DT_UNKNOWN):
            var info = stat()
            guard Self.withCName(name, { fstatat(folder.descriptor, $0, &info, AT_SYMLINK_NOFOLLOW) }) == 0 else { return false }
            entryType = FileTree.ClaimedEntry.type(ofMode: info.st_mode)
        default: entryType = .other
        }
        let entry = FileTree.ClaimedEntry(
            path: folder.path.appending(name), name: Array(name), type: entryType, isRoot: false,
            folderDescriptor: folder.descriptor)
        return runClaimed(inspection, entry)
    }

    /// A root whose last component the inspector may claim: handed to it (its folder opened
    /// for the call); true when it took it. A root that does not exist is left to the walk.
    mutating func claimRoot(_ inspection: TreeInspection, path rootPath: TreePath) -> Bool {
        var bytes = rootPath.bytes
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
        let name = Array(bytes[(slash.map { $0 + 1 } ?? 0)...])
        guard !name.isEmpty, name != [UInt8(ascii: ".")], name != [UInt8(ascii: "."), UInt8(ascii: ".")],
            inspection.claims(name[...]) || bytes.split(separator: UInt8(ascii: "/")).contains(where: { inspection.claims($0) })
        else { return false }
        let folderPath = slash.map { $0 == 0 ? [UInt8(ascii: "/")] : Array(bytes[..<$0]) } ?? [UInt8(ascii: ".")]
        let folder = Self.withCName(folderPath) { cPath in
            SystemCall.retrying { open(cPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK) }
        }
        guard folder >= 0 else { return false }
        defer { SystemCall.close(folder) }
        var info = stat()
        guard Self.withCName(name, { fstatat(folder, $0, &info, AT_SYMLINK_NOFOLLOW) }) == 0 else { return false }
        let entry = FileTree.ClaimedEntry(
            path: rootPath, name: name, type: FileTree.ClaimedEntry.type(ofMode: info.st_mode), isRoot: true,
            folderDescriptor: folder)
        let taken = runClaimed(inspection, entry)
        if taken, entry.type == .file, !stopped { handOver(rootPath, name: name) }
        return taken
    }

    /// Calls the inspector on a claimed entry and reports what it returns or throws; true when
    /// it took the entry.
    mutating func runClaimed(_ inspection: TreeInspection, _ entry: FileTree.ClaimedEntry) -> Bool {
        do {
            guard let taken = try inspection.inspectClaimed(entry) else { return false }
            if let record = taken { inspected(record, path: entry.path) }
        } catch {
            if error.kind == .notFound {
                problem(entry.path, .vanished, "vanished during the walk")
            } else {
                failed(entry.path, error)
            }
        }
        return true
    }
}
