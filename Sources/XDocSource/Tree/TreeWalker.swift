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
    let path: DocumentSourceTreePath
    /// `/proc/self/fd/N/` (or the path and `/`), without NUL: what a name is appended to for the
    /// attribute calls while the folder's listing is examined (N is its first descriptor).
    let access: [CChar]
    /// Subfolders to enter: name, whether the listing has its sidecar `._NAME`, and (when
    /// inspecting) the name of its zone file in the listing.
    var subfolders: [(name: [UInt8], sidecar: Bool, zoneFile: [UInt8]?)] = []
    var next = 0

    init(directory: OpaquePointer, descriptor: Int32, device: UInt64, inode: UInt64,
         path: DocumentSourceTreePath, access: [CChar]) {
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

/// The state of one ``DocumentSourceTree/walk(_:)``.
struct TreeWalker {
    typealias Event = DocumentSourceTree.Event

    let visit: (Event) -> DocumentSourceTree.Decision
    /// Given archives (by name) to the caller, when set (``DocumentSourceTree/walk(archives:_:)``).
    var archive: ((DocumentSourceTreePath) -> DocumentSourceTree.Decision)?
    /// The caller's inspector, when set (``DocumentSourceTree/walk(inspecting:_:)``): each entry
    /// goes to it instead of the built-in reading, and what it returns to ``record``.
    var inspection: TreeInspection?
    var record: ((any Sendable) -> DocumentSourceTree.Decision)?
    /// The attribute names of the entry being inspected (as `listxattr` fills it; allocated by
    /// the first inspection).
    private var nameList: [UInt8] = []
    var counts = DocumentSourceTree.Counts()
    private(set) var stopped = false
    private var stack: [TreeFrame] = []
    /// How many folders above the bottom of ``stack`` stay open at most (the bottom one, the
    /// root or the folder taken over from another worker, always does): descriptors stay
    /// bounded at any depth, as fts keeps them. A folder that falls out of the window is
    /// closed; it is opened again when the walk comes back to it (``reopen(_:child:)``).
    var window = 32
    /// The lowest index above 0 whose folder may be open: the ones below it (but the bottom
    /// one) are closed.
    private var lowOpen = 1
    private var listBuffer = [CChar](repeating: 0, count: 4096)
    private var fileAccess: [CChar] = []
    private var sinceProgress = 0
    /// For a walk with several threads: the pool this worker shares folders and sends events
    /// through (gathered in ``outbox``; ``visit`` and ``archive`` are not called then), and the
    /// ancestors of the folder it took over (below the bottom of ``stack``).
    var pool: TreeWorkPool?
    private var base: TreeAncestor?
    /// The counts already added to the pool's totals.
    private var reported = DocumentSourceTree.Counts()
    private var sinceCheck = 0
    private var outbox: [TreeWorkPool.Message] = []
    private var lastFlush: UInt64 = 0

    init(visit: @escaping (Event) -> DocumentSourceTree.Decision) {
        self.visit = visit
    }

    /// Whether `/proc/self/fd/N/NAME` reaches NAME in the folder open as N (Linux with /proc).
    static let procAvailable: Bool = {
        #if os(Linux)
        return access("/proc/self/fd", X_OK) == 0
        #else
        return false
        #endif
    }()

    private static let folderFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK

    // MARK: - Events

    private mutating func emit(_ event: Event) {
        guard pool == nil else {
            post(.event(event))
            return
        }
        if visit(event) == .stop { stopped = true }
    }

    /// With a pool: queues a message for the consumer, sent with the next few (a folder's, or
    /// ``TreeWorkPool/batchSize``) in one go, so the consumer is woken less often.
    private mutating func post(_ message: TreeWorkPool.Message) {
        outbox.append(message)
        if outbox.count >= TreeWorkPool.batchSize { flush() }
    }

    /// Sends the queued messages (a full batch, at a checkpoint once ``TreeWorkPool/flushInterval``
    /// has passed, and when the worker's task ends).
    mutating func flush() {
        guard let pool, !outbox.isEmpty else { return }
        if !pool.send(outbox) { stopped = true }
        outbox.removeAll(keepingCapacity: true)
        lastFlush = Self.now()
    }

    /// CLOCK_MONOTONIC in nanoseconds.
    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    mutating func problem(
        _ path: DocumentSourceTreePath, _ kind: DocumentSourceTree.Problem.Kind, _ message: String,
        _ error: DocumentSourceFileError? = nil
    ) {
        counts.problems += 1
        emit(.problem(.init(path: path, kind: kind, message: message, error: error)))
    }

    mutating func failed(
        _ path: DocumentSourceTreePath, _ error: DocumentSourceFileError, entry: DocumentSourceTree.Found.Entry? = nil
    ) {
        counts.problems += 1
        emit(.problem(.init(path: path, kind: .failed, message: error.message, error: error, entry: entry)))
    }

    private mutating func found(_ path: DocumentSourceTreePath, folder: Bool, _ stored: StoredDocumentSource,
                                sidecar: DocumentSourceTreePath?, orphan: Bool = false) {
        counts.tagged += 1
        emit(.found(.init(path: path, isFolder: folder, stored: stored, sidecar: sidecar, isOrphanSidecar: orphan)))
    }

    /// What the inspector returned for an entry.
    mutating func inspected(_ value: any Sendable) {
        counts.tagged += 1
        if pool != nil {
            post(.record(value))
        } else if record?(value) == .stop {
            stopped = true
        }
    }

    private mutating func tick() {
        sinceProgress += 1
        if sinceProgress >= DocumentSourceTree.progressInterval {
            sinceProgress = 0
            if let pool {
                if !pool.progress(unreportedCounts()) { stopped = true }
            } else {
                emit(.progress(counts))
            }
        }
    }

    /// The counts since the last call (or the start), for the pool's totals.
    mutating func unreportedCounts() -> DocumentSourceTree.Counts {
        defer { reported = counts }
        return counts.subtracting(reported)
    }

    // MARK: - Sharing (several threads)

    /// With a pool, every few entries: notes a stop, and hands a folder to a waiting worker.
    private mutating func checkpoint() {
        guard let pool else { return }
        sinceCheck = 0
        // Each send may wake the consumer: send a few records at a time only when they have
        // waited a while (with 10 % of files tagged, a send every 64 entries woke it ~9 000
        // times on 100 000 files, a fifth of the walk's system time).
        if !outbox.isEmpty && Self.now() &- lastFlush >= TreeWorkPool.flushInterval { flush() }
        guard !stopped else { return }
        let (stop, share) = pool.checkpoint()
        if stop {
            stopped = true
        } else if share {
            shareShallowest(pool)
        }
    }

    /// Opens the pending subfolder nearest the bottom of the stack (the most work left under
    /// it) and hands it to the pool.
    private mutating func shareShallowest(_ pool: TreeWorkPool) {
        guard let index = stack.firstIndex(where: { $0.hasPending }) else { return }
        let frame = stack[index]
        // A folder out of the window is opened for this one subfolder and closed again.
        let reopened = !frame.isOpen
        if reopened && !reopen(index, child: -1) { return }
        defer { if reopened { frame.close() } }
        let (name, sidecar, zoneFile) = frame.subfolders[frame.next]
        frame.next += 1
        guard let (fd, path, info) = openSubfolder(name, sidecar: sidecar, zoneFile: zoneFile, parentIndex: index)
        else { return }
        var chain = base
        for ancestor in stack[...index] {
            chain = TreeAncestor(device: ancestor.device, inode: ancestor.inode, path: ancestor.path, parent: chain)
        }
        pool.share(TreeTask(descriptor: fd, path: path, info: info, ancestors: chain))
    }

    /// Walks a folder handed over by another worker.
    mutating func run(_ task: TreeTask) {
        base = task.ancestors
        enter(opened: task.descriptor, path: task.path, info: task.info)
        drain()
    }

    // MARK: - Walking

    mutating func walk(root: String) {
        let rootPath = DocumentSourceTreePath(root)
        if let inspection, inspection.claimsEntries, claimRoot(inspection, root, path: rootPath) { return }
        var info = stat()
        guard SystemCall.retrying({ stat(root, &info) }) == 0 else {
            failed(rootPath, DocumentSourceFileError(errno: errno, path: root))
            return
        }
        let isFolder = info.st_mode & S_IFMT == S_IFDIR
        if let inspection {
            inspectRoot(inspection, root, path: rootPath, isFolder: isFolder)
        } else {
            readRoot(root, path: rootPath, isFolder: isFolder)
        }
        guard isFolder else {
            counts.files += 1
            if !stopped, info.st_mode & S_IFMT == S_IFREG { handOver(rootPath, name: rootPath.bytes) }
            return
        }
        guard !stopped, inspection?.walksFolders ?? true else { return }
        let fd = SystemCall.retrying { open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else {
            failed(rootPath, DocumentSourceFileError(errno: errno, path: root, context: "cannot read the folder: "))
            return
        }
        enter(opened: fd, path: rootPath, info: info)
        drain()
    }

    /// Reports the root's own `x-document-source`, in every store.
    private mutating func readRoot(_ root: String, path rootPath: DocumentSourceTreePath, isFolder: Bool) {
        // The root itself, in every store (its sidecar is in the parent folder, and is named
        // whenever it is there, so that a removal clears it even when another store has the
        // value a reader sees first).
        let rootFile = DocumentSourceFile(path: root)
        let rootSidecar = rootFile.sidecarPath.flatMap { path -> DocumentSourceTreePath? in
            var sidecarInfo = stat()
            guard lstat(path, &sidecarInfo) == 0, sidecarInfo.st_mode & S_IFMT == S_IFREG else { return nil }
            return DocumentSourceTreePath(path)
        }
        do {
            if let stored = try rootFile.read() {
                found(rootPath, folder: isFolder, stored, sidecar: rootSidecar)
            }
        } catch where error.kind == .notSupported {
            // A filesystem without extended attributes (FAT, exFAT, ramfs) and no sidecar: nothing
            // here, as the listing of every entry below reads it, not a failure of the walk.
        } catch {
            failed(rootPath, error, entry: .init(path: rootPath, isFolder: isFolder, sidecar: rootSidecar))
        }
    }

    /// Walks what is on the stack, depth first, until it is empty or the walk stops.
    private mutating func drain() {
        while !stopped, let top = stack.last {
            if pool != nil {
                checkpoint()
                if stopped { break }
            }
            if top.hasPending {
                let (name, sidecar, zoneFile) = top.subfolders[top.next]
                top.next += 1
                enter(name, sidecar: sidecar, zoneFile: zoneFile, parent: top)
            } else {
                stack.removeLast()
                // The folder below becomes the top: opened again first when it was out of the
                // window (from this one's `..` while it is still open).
                let below = stack.count - 1
                if below >= 1 && lowOpen > below {
                    if !stack[below].isOpen { _ = reopen(below, child: top.descriptor) }
                    lowOpen = below
                }
                top.close()
            }
        }
        while let top = stack.popLast() { top.close() }
        lowOpen = 1
    }

    /// Opens `stack[index]` again, which was closed when the walk went deeper than the window:
    /// through `..` of its subfolder `child` when that is open (one call, as fts does), else
    /// name by name from the nearest open folder below it; each folder reached must be the
    /// one met on the way down (device and inode), so a folder moved or renamed during the walk
    /// is never mistaken for another. False when it cannot be reached: what is left of it is
    /// not walked, and that is reported when something was left.
    private mutating func reopen(_ index: Int, child: Int32) -> Bool {
        let frame = stack[index]
        if child >= 0 {
            let fd = SystemCall.retrying { openat(child, "..", Self.folderFlags) }
            if fd >= 0 {
                if frame.isSame(fd) {
                    frame.descriptor = fd
                    return true
                }
                SystemCall.close(fd)
            }
        }
        if let base = stack[..<index].lastIndex(where: { $0.isOpen }) {
            var fd = stack[base].descriptor
            for step in stack[(base + 1)...index] {
                let next = Self.withCName(step.name) { name in SystemCall.retrying { openat(fd, name, Self.folderFlags) } }
                if fd != stack[base].descriptor { SystemCall.close(fd) }
                fd = next
                guard fd >= 0 else { break }
                if !step.isSame(fd) {
                    SystemCall.close(fd)
                    fd = -1
                    break
                }
            }
            if fd >= 0 {
                frame.descriptor = fd
                return true
            }
        }
        if frame.hasPending {
            frame.next = frame.subfolders.count
            problem(frame.path, .vanished, "was moved or removed during the walk; the rest of it is not walked")
        }
        return false
    }

    /// Opens the subfolder `name` of `parent`, reports its own attribute and walks its listing.
    private mutating func enter(_ name: [UInt8], sidecar: Bool, zoneFile: [UInt8]?, parent: TreeFrame) {
        guard let (fd, path, info) = openSubfolder(name, sidecar: sidecar, zoneFile: zoneFile, parentIndex: stack.count - 1)
        else { return }
        enter(opened: fd, path: path, info: info)
    }

    /// Opens the subfolder `name` of `stack[parentIndex]` and reports its own attribute; nil
    /// when it cannot be walked (reported) or the walk stopped.
    private mutating func openSubfolder(
        _ name: [UInt8], sidecar: Bool, zoneFile: [UInt8]?, parentIndex: Int
    ) -> (fd: Int32, path: DocumentSourceTreePath, info: stat)? {
        let parent = stack[parentIndex]
        let path = parent.path.appending(name)
        let fd = Self.withCName(name) { cName in
            SystemCall.retrying { openat(parent.descriptor, cName, Self.folderFlags) }
        }
        guard fd >= 0 else {
            let code = errno
            switch code {
            case ENOENT: problem(path, .vanished, "vanished during the walk")
            case ENOTDIR, ELOOP: problem(path, .vanished, "was replaced by something that is not a folder during the walk")
            default:
                failed(path, DocumentSourceFileError(errno: code, path: path.lossyString, context: "cannot read the folder: "))
            }
            return nil
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            failed(path, DocumentSourceFileError(errno: errno, path: path.lossyString, context: "cannot read the folder: "))
            SystemCall.close(fd)
            return nil
        }
        let device = UInt64(info.st_dev), inode = UInt64(info.st_ino)
        let ancestorPath = base?.first(device: device, inode: inode)?.path
            ?? stack[...parentIndex].first(where: { $0.device == device && $0.inode == inode })?.path
        if let ancestorPath {
            problem(path, .loop, "is the same folder as \(ancestorPath.visible), which holds it (a bind mount?): not walked again")
            SystemCall.close(fd)
            return nil
        }
        // The folder's own attribute, through its descriptor.
        var access: [CChar]
        var follow = false
        if Self.procAvailable {
            access = Array("/proc/self/fd/\(fd)".utf8CString.dropLast())
            follow = true  // the magic link stands for the open folder
        } else {
            access = path.bytes.map { CChar(bitPattern: $0) }
        }
        access.append(0)
        if let inspection {
            inspect(inspection, access: access, follow: follow, path: path, folder: true, in: parent,
                    sidecar: sidecar, zoneFile: zoneFile, name: name[...])
        } else {
            examine(access: access, follow: follow, path: path, folder: true,
                    sidecarIn: sidecar ? parent : nil, name: name[...])
        }
        guard !stopped else {
            SystemCall.close(fd)
            return nil
        }
        return (fd, path, info)
    }

    /// Takes over the open folder `fd`: reads its listing, pushes it and examines its files.
    private mutating func enter(opened fd: Int32, path: DocumentSourceTreePath, info: stat) {
        counts.folders += 1
        tick()
        guard let directory = fdopendir(fd) else {
            failed(path, DocumentSourceFileError(errno: errno, path: path.lossyString, context: "cannot read the folder: "))
            SystemCall.close(fd)
            return
        }
        let listing: FolderListing
        switch FolderListing.read(directory) {
        case .success(let read): listing = read
        case .failure(let error):
            failed(path, DocumentSourceFileError(errno: error.rawValue, path: path.lossyString, context: "cannot read the folder: "))
            closedir(directory)
            return
        }
        // Files are named by the folder's path and their name while that fits PATH_MAX with
        // any name (a path walk through the dentry cache; about a quarter cheaper than going
        // through procfs's magic link each time), else through /proc/self/fd/N/.
        var access: [CChar]
        if Self.procAvailable && path.bytes.count + 1 + Int(NAME_MAX) + 1 > Int(PATH_MAX) {
            access = Array("/proc/self/fd/\(fd)/".utf8CString.dropLast())
        } else {
            access = path.appending([]).bytes.map { CChar(bitPattern: $0) }
        }
        let frame = TreeFrame(
            directory: directory, descriptor: fd, device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
            path: path, access: access)
        stack.append(frame)
        // Past the window: the oldest open folder above the bottom one is closed.
        if stack.count - lowOpen > window {
            stack[lowOpen].close()
            lowOpen += 1
        }
        let sidecars = listing.sidecarNames()
        // When inspecting: the zone files `NAME:Zone.Identifier` here, by NAME (the inspector
        // tells the form); empty, and free, when there is none.
        let zoneFiles = inspection.map { listing.zoneFiles(owner: $0.zoneOwner) } ?? FolderListing.ZoneFiles()
        // The names whose sidecar (zone file) belongs to a regular file or folder here; the
        // others are orphans (NAME gone, or a link), examined after the files.
        var owned = Set<[UInt8]>()
        var ownedZones = Set<[UInt8]>()
        for index in listing.indices {
            if stopped { return }
            if pool != nil {
                sinceCheck += 1
                if sinceCheck >= 64 {
                    checkpoint()
                    if stopped { return }
                }
            }
            let name = listing.name(at: index)
            if let inspection, inspection.claimsEntries, inspection.claims(name),
                claim(inspection, name, type: listing.type(at: index), in: frame)
            {
                continue
            }
            guard !FolderListing.isSkipped(name) else { continue }
            var type = listing.type(at: index)
            if type == DT_UNKNOWN {
                var entry = stat()
                let result = Self.withCName(name) { fstatat(fd, $0, &entry, AT_SYMLINK_NOFOLLOW) }
                if result != 0 {
                    problem(path.appending(name), .vanished, "vanished during the walk")
                    continue
                }
                switch entry.st_mode & S_IFMT {
                case S_IFDIR: type = UInt8(DT_DIR)
                case S_IFREG: type = UInt8(DT_REG)
                default: continue
                }
            }
            var zoneFile: [UInt8]?
            if !zoneFiles.isEmpty {
                // A zone file is no document of its own: its NAME gets it (a folder or link of
                // that name is walked or skipped as any other).
                if type == DT_REG, zoneFiles.isZoneFile(name) { continue }
                zoneFile = zoneFiles.byOwner[Array(name)]
                if zoneFile != nil && (type == DT_DIR || type == DT_REG) { ownedZones.insert(Array(name)) }
            }
            let hasSidecar = !sidecars.isEmpty && sidecars.contains(Array(name))
            if hasSidecar && (type == DT_DIR || type == DT_REG) { owned.insert(Array(name)) }
            if type == DT_DIR {
                frame.subfolders.append((Array(name), hasSidecar, zoneFile))
            } else if type == DT_REG {
                counts.files += 1
                tick()
                // One buffer for every file's C path: no allocation for an untagged file.
                fileAccess.removeAll(keepingCapacity: true)
                fileAccess.append(contentsOf: access)
                for byte in name { fileAccess.append(CChar(bitPattern: byte)) }
                fileAccess.append(0)
                if let inspection {
                    inspect(inspection, access: fileAccess, follow: false, path: path.appending(name), folder: false,
                            in: frame, sidecar: hasSidecar, zoneFile: zoneFile, name: name, listedIn: (fd, access.count))
                } else {
                    examine(access: fileAccess, follow: false, path: path.appending(name), folder: false,
                            sidecarIn: hasSidecar ? frame : nil, name: name, listedIn: (fd, access.count))
                }
                if archive != nil, !stopped { handOver(path.appending(name), name: name) }
            }
            // Symbolic links, FIFOs, sockets and devices: not followed, not reported.
        }
        if let inspection {
            // Orphan sidecars and zone files, in name order, each under its own path.
            guard sidecars.count > owned.count || zoneFiles.byOwner.count > ownedZones.count else { return }
            var orphans: [(fileName: [UInt8], isSidecar: Bool)] = []
            for name in sidecars.subtracting(owned) { orphans.append(([UInt8(ascii: "."), UInt8(ascii: "_")] + name, true)) }
            for (owner, fileName) in zoneFiles.byOwner where !ownedZones.contains(owner) { orphans.append((fileName, false)) }
            orphans.sort { $0.fileName.lexicographicallyPrecedes($1.fileName) }
            for orphan in orphans where !stopped {
                inspectOrphan(inspection, orphan.fileName, isSidecar: orphan.isSidecar, in: frame)
            }
            return
        }
        if sidecars.count > owned.count {
            for name in sidecars.subtracting(owned).sorted(by: { $0.lexicographicallyPrecedes($1) }) where !stopped {
                examineOrphan(name, in: frame)
            }
        }
    }

    // MARK: - Inspecting (a caller's inspector instead of the built-in reading)

    /// Lists the attributes of one entry (the only call an entry without a wanted name, a
    /// sidecar or a zone file costs) and hands it to the inspector, as ``examine(access:follow:path:folder:sidecarIn:name:listedIn:)``
    /// reads it. `parent`: the open folder it is listed in (its sidecar and zone file are there).
    private mutating func inspect(
        _ inspection: TreeInspection, access: [CChar], follow: Bool,
        path makePath: @autoclosure () -> DocumentSourceTreePath, folder: Bool, in parent: TreeFrame,
        sidecar: Bool, zoneFile: [UInt8]?, name: ArraySlice<UInt8>, listedIn: (folder: Int32, nameStart: Int)? = nil
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
        guard sidecar || zoneFile != nil || (size > 0 && inspection.wantsAny(nameList, size: size)) else { return }
        let sidecarName = sidecar ? [UInt8(ascii: "."), UInt8(ascii: "_")] + name : nil
        let entry = DocumentSourceTree.InspectedEntry(
            path: makePath(), name: Array(name), isFolder: folder, isOrphan: false,
            attributeNames: .init(bytes: Array(nameList[..<size])),
            sidecar: sidecarName.map { parent.path.appending($0) }, sidecarName: sidecarName,
            zoneFile: zoneFile.map { parent.path.appending($0) }, zoneFileName: zoneFile,
            folderDescriptor: parent.descriptor, access: access, follow: follow, nameStart: listedIn?.nameStart)
        run(inspection, entry)
    }

    /// Hands the sidecar `._NAME` or zone file `NAME:Zone.Identifier` of `frame` whose NAME is
    /// not a regular file or folder there to the inspector, under its own path.
    private mutating func inspectOrphan(_ inspection: TreeInspection, _ fileName: [UInt8], isSidecar: Bool, in frame: TreeFrame) {
        let path = frame.path.appending(fileName)
        var access = frame.access
        for byte in fileName { access.append(CChar(bitPattern: byte)) }
        access.append(0)
        let entry = DocumentSourceTree.InspectedEntry(
            path: path, name: fileName, isFolder: false, isOrphan: true, attributeNames: .init(bytes: []),
            sidecar: isSidecar ? path : nil, sidecarName: isSidecar ? fileName : nil,
            zoneFile: isSidecar ? nil : path, zoneFileName: isSidecar ? nil : fileName,
            folderDescriptor: frame.descriptor, access: access, follow: false, nameStart: frame.access.count)
        run(inspection, entry)
    }

    /// The root's own entry for the inspector: its attributes listed following a link (it was
    /// named on purpose), its sidecar and zone file looked for in the folder its path leads to.
    private mutating func inspectRoot(
        _ inspection: TreeInspection, _ root: String, path rootPath: DocumentSourceTreePath, isFolder: Bool
    ) {
        if nameList.isEmpty { nameList = [UInt8](repeating: 0, count: 4096) }
        var access = Array(root.utf8CString)
        if access.count == 1 { access = Array(".".utf8CString) }
        let size: Int
        do throws(Errno) {
            size = try access.withUnsafeBufferPointer { (pointer) throws(Errno) -> Int in
                try ExtendedAttributes.listNames(atPath: pointer.baseAddress!, follow: true, buffer: &nameList)
            }
        } catch {
            failed(rootPath, DocumentSourceFileError(
                errno: error.rawValue, path: root, context: "cannot list the extended attributes: "))
            return
        }
        let located = try? SidecarFolder.locate(root, followSymlinks: true, owner: DocumentSourceFile(path: root))
        defer { if let located { SystemCall.close(located.descriptor) } }
        let folder = located?.descriptor ?? AT_FDCWD
        let name = located.map { Array($0.name.utf8) } ?? rootPath.bytes
        // A companion is there when its folder has a regular file of that name.
        func companion(_ fileName: [UInt8]?) -> (name: [UInt8], path: DocumentSourceTreePath)? {
            guard let located, let fileName else { return nil }
            var info = stat()
            let found = Self.withCName(fileName) { fstatat(located.descriptor, $0, &info, AT_SYMLINK_NOFOLLOW) } == 0
            guard found, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return (fileName, DocumentSourceTreePath(bytes: Array(located.display.utf8) + fileName))
        }
        let sidecar = companion([UInt8(ascii: "."), UInt8(ascii: "_")] + name)
        let zoneFile = companion(inspection.zoneName(name))
        guard sidecar != nil || zoneFile != nil || (size > 0 && inspection.wantsAny(nameList, size: size)) else { return }
        let entry = DocumentSourceTree.InspectedEntry(
            path: rootPath, name: name, isFolder: isFolder, isOrphan: false,
            attributeNames: .init(bytes: Array(nameList[..<size])),
            sidecar: sidecar?.path, sidecarName: sidecar?.name, zoneFile: zoneFile?.path, zoneFileName: zoneFile?.name,
            folderDescriptor: folder, access: access, follow: true, nameStart: nil)
        run(inspection, entry)
    }

    /// Calls the inspector and reports what it returns or throws.
    private mutating func run(_ inspection: TreeInspection, _ entry: DocumentSourceTree.InspectedEntry) {
        do {
            if let value = try inspection.inspect(entry) { inspected(value) }
        } catch {
            if error.kind == .notFound {
                problem(entry.path, .vanished, "vanished during the walk")
            } else {
                // No entry: Problem.removeValue() removes `x-document-source`, which is not
                // what an inspector's failure is about.
                failed(entry.path, error)
            }
        }
    }

    /// Reports the sidecar `._NAME` of `frame` whose NAME is not a regular file or folder
    /// (gone, or a symbolic link) when it holds a value, under the sidecar's own path.
    private mutating func examineOrphan(_ name: [UInt8], in frame: TreeFrame) {
        let sidecarName = [UInt8(ascii: "."), UInt8(ascii: "_")] + name
        let sidecarPath = frame.path.appending(sidecarName)
        var access = frame.access
        for byte in sidecarName { access.append(CChar(bitPattern: byte)) }
        access.append(0)
        let reader = TreeEntryReader(path: sidecarPath, access: access, follow: false)
        let entry = DocumentSourceTree.Found.Entry(
            path: sidecarPath, isFolder: false, sidecar: sidecarPath, isOrphanSidecar: true)
        do {
            if let stored = try reader.sidecarValue(folder: frame.descriptor, name: sidecarName, label: sidecarPath) {
                found(sidecarPath, folder: false, stored, sidecar: sidecarPath, orphan: true)
            }
        } catch {
            if error.kind == .notFound {
                problem(sidecarPath, .vanished, "vanished during the walk")
            } else {
                failed(sidecarPath, error, entry: entry)
            }
        }
    }

    /// Gives a regular file whose name is an archive's to ``archive``.
    mutating func handOver(_ path: DocumentSourceTreePath, name: some Collection<UInt8>) {
        guard let archive, ArchiveKind(fileName: name) != nil else { return }
        if pool != nil {
            post(.archive(path))
        } else if archive(path) == .stop {
            stopped = true
        }
    }

    /// Lists the attributes of one entry (the only call an untagged entry costs), reads the
    /// value from the first store that has one and reports it. `listedIn`: the open folder the
    /// entry is in and where its name starts in `access`, to list it relative to that folder
    /// (no path walk for each file; Linux 6.13 or newer), else by path.
    private mutating func examine(
        access: [CChar], follow: Bool, path makePath: @autoclosure () -> DocumentSourceTreePath, folder: Bool,
        sidecarIn parent: TreeFrame?, name: ArraySlice<UInt8>, listedIn: (folder: Int32, nameStart: Int)? = nil
    ) {
        if let listedIn, !follow, let names = access.withUnsafeBufferPointer({ pointer in
            ExtendedAttributes.storeNames(
                inFolder: listedIn.folder, name: pointer.baseAddress! + listedIn.nameStart, buffer: &listBuffer)
        }) {
            guard names.any || parent != nil else { return }
            read(names, access: access, follow: follow, path: makePath(), folder: folder, sidecarIn: parent, name: name,
                 listedIn: listedIn)
            return
        }
        let names: AttributeNames
        do throws(Errno) {
            names = try access.withUnsafeBufferPointer { (pointer) throws(Errno) -> AttributeNames in
                try ExtendedAttributes.storeNames(atPath: pointer.baseAddress!, follow: follow, buffer: &listBuffer)
            }
        } catch {
            listingFailed(error, makePath())
            return
        }
        guard names.any || parent != nil else { return }
        read(names, access: access, follow: follow, path: makePath(), folder: folder, sidecarIn: parent, name: name)
    }

    /// Reads the value of an entry whose attribute names are `names` (and whose sidecar, when
    /// `parent` is given, is in that folder) and reports it.
    private mutating func read(
        _ names: AttributeNames, access: [CChar], follow: Bool, path: DocumentSourceTreePath, folder: Bool,
        sidecarIn parent: TreeFrame?, name: ArraySlice<UInt8>, listedIn: (folder: Int32, nameStart: Int)? = nil
    ) {
        let sidecarPath = parent.map { $0.path.appending([UInt8(ascii: "."), UInt8(ascii: "_")] + name) }
        var reader = TreeEntryReader(path: path, access: access, follow: follow)
        if let listedIn { reader.folder = (listedIn.folder, listedIn.nameStart) }
        do {
            if let stored = try reader.value(names, sidecarFolder: parent?.descriptor, name: name, label: sidecarPath) {
                found(path, folder: folder, stored, sidecar: sidecarPath)
            }
        } catch {
            if error.kind == .notFound {
                problem(path, .vanished, "vanished during the walk")
            } else {
                failed(path, error, entry: .init(path: path, isFolder: folder, sidecar: sidecarPath))
            }
        }
    }

    /// Reports an entry whose attributes could not be listed: gone since the listing
    /// (vanished), or the failure in words.
    private mutating func listingFailed(_ error: Errno, _ path: DocumentSourceTreePath) {
        if error.rawValue == ENOENT || error.rawValue == ENOTDIR {
            problem(path, .vanished, "vanished during the walk")
        } else {
            failed(path, DocumentSourceFileError(
                errno: error.rawValue, path: path.lossyString, context: "cannot list the extended attributes: "))
        }
    }

    static func withCName<R>(_ name: some Collection<UInt8>, _ body: (UnsafePointer<CChar>) -> R) -> R {
        var bytes = name.map { CChar(bitPattern: $0) }
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
