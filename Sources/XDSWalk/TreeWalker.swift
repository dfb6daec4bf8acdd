#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// The state of one ``FileTree/walk(inspecting:_:)``.
struct TreeWalker {
    typealias Event = FileTree.Event

    let visit: (Event) -> FileTree.Decision
    /// Given archives (by name) to the caller, when set (``FileTree/walk(inspecting:archives:_:)``).
    var archive: ((TreePath) -> FileTree.Decision)?
    /// The caller's inspector: each entry worth looking at goes to it, and what it returns to
    /// ``record``.
    let inspection: TreeInspection
    let record: (any Sendable) -> FileTree.Decision
    /// The attribute names of the entry being inspected (as `listxattr` fills it; allocated by
    /// the first inspection).
    var nameList: [UInt8] = []
    var counts = FileTree.Counts()
    var stopped = false
    private var stack = TreeStack()
    /// How many folders above the bottom of ``stack`` stay open at most (the bottom one, the
    /// root or the folder taken over from another worker, always does): descriptors stay
    /// bounded at any depth, as fts keeps them. A folder that falls out of the window is
    /// closed; it is opened again when the walk comes back to it (``reopen(_:child:)``).
    var window = 32
    private var fileAccess: [CChar] = []
    /// Where folders' listings are read (``FolderListing/read(_:buffer:)``), allocated by the
    /// first folder.
    private var listingBuffer: [UInt8] = []
    /// The subfolders of the folder being listed, handed to ``stack`` at the end of its listing.
    private var subfolders: [TreeStack.Subfolder] = []
    var sinceProgress = 0
    /// For a walk with several threads: the pool this worker shares folders and sends events
    /// through (gathered in ``outbox``; ``visit`` and ``archive`` are not called then), and the
    /// ancestors of the folder it took over (below the bottom of ``stack``).
    var pool: TreeWorkPool?
    private var base: TreeAncestors?
    /// The counts already added to the pool's totals.
    var reported = FileTree.Counts()
    var sinceCheck = 0
    var outbox: [TreeWorkPool.Message] = []
    /// About how many bytes the messages in ``outbox`` hold (``TreeWorkPool/cost(pathBytes:)``).
    var outboxBytes = 0
    /// Emptied batches given back by the consumer, for the next ones.
    var spares: [[TreeWorkPool.Message]] = []
    /// Batches given back by the consumer, emptied one message for each message posted
    /// (``releaseOne()``), and where the first is at.
    var garbage: [(messages: [TreeWorkPool.Message], bytes: Int)] = []
    var garbageNext = 0
    /// How many messages in ``garbage`` are still to free.
    var garbageCount = 0
    /// This worker's number in its pool.
    var worker = 0
    var lastFlush: UInt64 = 0

    init(
        visit: @escaping (Event) -> FileTree.Decision, inspection: TreeInspection,
        record: @escaping (any Sendable) -> FileTree.Decision
    ) {
        self.visit = visit
        self.inspection = inspection
        self.record = record
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

    // MARK: - Sharing (several threads)

    /// With a pool, every few entries: notes a stop, and hands a folder to a waiting worker.
    /// `listing`: whether a folder's listing is being examined (then this worker has its files
    /// still to do), else it is between two folders.
    private mutating func checkpoint(listing: Bool = false) {
        guard let pool else { return }
        sinceCheck = 0
        // Each send may wake the consumer: send a few records at a time only when they have
        // waited a while (with 10 % of files tagged, a send every 64 entries woke it ~9 000
        // times on 100 000 files, a fifth of the walk's system time).
        if !outbox.isEmpty && Self.now() &- lastFlush >= TreeWorkPool.flushInterval { flush() }
        guard !stopped else { return }
        // Between folders, a worker with one subfolder left would hand it over and then wait
        // itself: in a chain of folders the two workers did so at every level, each handover
        // a copy of the ancestors (issue 35). It keeps it.
        let (stop, share) = pool.checkpoint()
        if stop {
            stopped = true
        } else if share && (stack.pendingCount > 1 || (listing && stack.pendingCount == 1)) {
            shareShallowest(pool)
        }
    }

    /// Opens the pending subfolder nearest the bottom of the stack (the most work left under
    /// it) and hands it to the pool.
    private mutating func shareShallowest(_ pool: TreeWorkPool) {
        guard let index = stack.shallowestPending() else { return }
        // A folder out of the window is opened for this one subfolder and closed again.
        var parent = stack.descriptor(index)
        let reopened = parent < 0
        if reopened {
            parent = openAgain(index, child: -1)
            if parent < 0 { return }
        }
        defer { if reopened { SystemCall.close(parent) } }
        let (name, sidecar, companion) = stack.takePending(index)
        guard let (fd, path, info) = openSubfolder(name[...], sidecar: sidecar, companion: companion,
                                                   parentIndex: index, parent: parent)
        else { return }
        // By name below the chain handed to this worker (a folder handed over is a subfolder
        // of the chain's last); the root alone by its path.
        let chain = stack.ancestors(through: index, base: base)
        pool.share(TreeTask(descriptor: fd, path: path, info: info, ancestors: chain))
    }

    /// Walks a folder handed over by another worker.
    mutating func run(_ task: TreeTask) {
        base = task.ancestors
        enter(opened: task.descriptor, path: task.path, info: task.info)
        drain()
    }

    // MARK: - Walking

    mutating func walk(root rootPath: TreePath) {
        // Text for messages (lossy for a root that is not UTF-8: problems name rootPath).
        let root = rootPath.lossyString
        if inspection.claimsEntries, claimRoot(inspection, path: rootPath) { return }
        var info = stat()
        guard Self.withCName(rootPath.bytes, { cRoot in SystemCall.retrying({ stat(cRoot, &info) }) }) == 0 else {
            failed(rootPath, FileAccessError(errno: errno, path: root))
            return
        }
        let isFolder = info.st_mode & S_IFMT == S_IFDIR
        inspectRoot(inspection, path: rootPath, isFolder: isFolder)
        guard isFolder else {
            counts.files += 1
            if !stopped, info.st_mode & S_IFMT == S_IFREG { handOver(rootPath, name: rootPath.bytes) }
            return
        }
        guard !stopped, inspection.walksFolders else { return }
        let fd = Self.withCName(rootPath.bytes) { cRoot in
            SystemCall.retrying { open(cRoot, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK) }
        }
        guard fd >= 0 else {
            failed(rootPath, FileAccessError(errno: errno, path: root, context: "cannot read the folder: "))
            return
        }
        enter(opened: fd, path: rootPath, info: info)
        drain()
    }

    /// Walks what is on the stack, depth first, until it is empty or the walk stops.
    private mutating func drain() {
        while !stopped, !stack.isEmpty {
            if pool != nil {
                checkpoint()
                if stopped { break }
            }
            let top = stack.count - 1
            if stack.hasPending(top) {
                let (name, sidecar, companion) = stack.takePending(top)
                guard let (fd, path, info) = openSubfolder(name[...], sidecar: sidecar, companion: companion,
                                                           parentIndex: top, parent: stack.descriptor(top))
                else { continue }
                enter(opened: fd, path: path, info: info, entering: name[...])
            } else {
                // The folder below becomes the top: opened again first when it was out of the
                // window (from this one's `..` while it is still open).
                let below = top - 1
                if below >= 1 && stack.lowOpen > below {
                    let fd = openAgain(below, child: stack.descriptor(top))
                    stack.reopened(below, fd)
                }
                stack.pop()
            }
        }
        stack.removeAll()
    }

    /// Opens `stack`'s level `index` again, which was closed when the walk went deeper than
    /// the window: through `..` of its subfolder `child` when that is open (one call, as fts
    /// does), else name by name from the nearest open folder below it; each folder reached
    /// must be the one met on the way down (device and inode), so a folder moved or renamed
    /// during the walk is never mistaken for another. -1 when it cannot be reached: what is
    /// left of it is not walked, and that is reported when something was left.
    private mutating func openAgain(_ index: Int, child: Int32) -> Int32 {
        if child >= 0 {
            let fd = SystemCall.retrying { openat(child, "..", Self.folderFlags) }
            if fd >= 0 {
                if stack.isSame(fd, index) { return fd }
                SystemCall.close(fd)
            }
        }
        if let base = (0..<index).last(where: { stack.isOpen($0) }) {
            let baseFD = stack.descriptor(base)
            var fd = baseFD
            for step in (base + 1)...index {
                let next = Self.withCName(stack.name(step)) { name in SystemCall.retrying { openat(fd, name, Self.folderFlags) } }
                if fd != baseFD { SystemCall.close(fd) }
                fd = next
                guard fd >= 0 else { break }
                if !stack.isSame(fd, step) {
                    SystemCall.close(fd)
                    fd = -1
                    break
                }
            }
            if fd >= 0 { return fd }
        }
        if stack.hasPending(index) {
            stack.dropPending(index)
            problem(stack.treePath(index), .vanished, "was moved or removed during the walk; the rest of it is not walked")
        }
        return -1
    }

    /// Opens the subfolder `name` of `stack`'s level `parentIndex` (open as `parent`) and
    /// reports its own attribute; nil when it cannot be walked (reported) or the walk stopped.
    private mutating func openSubfolder(
        _ name: ArraySlice<UInt8>, sidecar: Bool, companion: [UInt8]?, parentIndex: Int, parent: Int32
    ) -> (fd: Int32, path: TreePath, info: stat)? {
        let path = TreePath(bytes: joined(stack.path[..<stack.end(parentIndex)], name))
        let fd = Self.withCName(name) { cName in
            SystemCall.retrying { openat(parent, cName, Self.folderFlags) }
        }
        guard fd >= 0 else {
            let code = errno
            switch code {
            case ENOENT: problem(path, .vanished, "vanished during the walk")
            case ENOTDIR, ELOOP: problem(path, .vanished, "was replaced by something that is not a folder during the walk")
            default:
                failed(path, FileAccessError(errno: code, path: path.lossyString, context: "cannot read the folder: "))
            }
            return nil
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            failed(path, FileAccessError(errno: errno, path: path.lossyString, context: "cannot read the folder: "))
            SystemCall.close(fd)
            return nil
        }
        let device = UInt64(info.st_dev), inode = UInt64(info.st_ino)
        let ancestorPath = base?.path(device: device, inode: inode)
            ?? stack.level(device: device, inode: inode, atOrBelow: parentIndex).map { stack.treePath($0) }
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
        let parentPath = sidecar || companion != nil ? stack.treePath(parentIndex) : nil
        inspect(inspection, access: access, follow: follow, path: path, folder: true,
                in: (parent, parentPath), sidecar: sidecar, companion: companion, name: name)
        guard !stopped else {
            SystemCall.close(fd)
            return nil
        }
        return (fd, path, info)
    }

    /// `path` joined with `name` after a `/` (none when `path` already ends in one), as
    /// ``TreePath/appending(_:)``.
    private func joined(_ path: ArraySlice<UInt8>, _ name: some Collection<UInt8>) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(path.count + 1 + name.count)
        bytes += path
        if bytes.last != UInt8(ascii: "/") { bytes.append(UInt8(ascii: "/")) }
        bytes += name
        return bytes
    }

    /// Takes over the open folder `fd`: reads its listing, pushes it and examines its files.
    /// `entering`: the folder's name when it is a subfolder of the newest folder on the stack.
    private mutating func enter(opened fd: Int32, path: TreePath, info: stat, entering: ArraySlice<UInt8>? = nil) {
        counts.folders += 1
        tick()
        // The listing is read into the walker's buffer: the stack keeps a bare descriptor per
        // open folder, and no 32 KB stream is held (or mapped and unmapped) per folder.
        if listingBuffer.isEmpty { listingBuffer = [UInt8](repeating: 0, count: FolderListing.bufferSize) }
        let listing: FolderListing
        switch listingBuffer.withUnsafeMutableBytes({ FolderListing.read(fd, buffer: $0.baseAddress!) }) {
        case .success(let read): listing = read
        case .failure(let error):
            failed(path, FileAccessError(errno: error.rawValue, path: path.lossyString, context: "cannot read the folder: "))
            SystemCall.close(fd)
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
        // A subfolder of the newest folder is entered from it (a first folder has none).
        stack.push(firstPath: entering == nil ? path.bytes : nil, name: entering,
                   device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
                   descriptor: fd)
        // Past the window: the oldest open folder above the bottom one is closed.
        stack.trim(window: window)
        subfolders.removeAll(keepingCapacity: true)
        defer {
            if !subfolders.isEmpty { stack.setPending(subfolders) }
            subfolders.removeAll(keepingCapacity: subfolders.capacity <= 64)
        }
        let sidecars = listing.sidecarNames()
        // The companions here (`NAME:Zone.Identifier` for the marks), by NAME (the inspector
        // tells the form); empty, and free, when there is none.
        let companions = inspection.companionSuffix.map { listing.companions(suffix: $0) } ?? FolderListing.Companions()
        // The names whose sidecar (companion) belongs to a regular file or folder here; the
        // others are orphans (NAME gone, or a link), inspected after the files.
        var owned = Set<[UInt8]>()
        var ownedCompanions = Set<[UInt8]>()
        for index in listing.indices {
            if stopped { return }
            if pool != nil {
                sinceCheck += 1
                if sinceCheck >= 64 {
                    if !subfolders.isEmpty {
                        stack.setPending(subfolders)
                        subfolders.removeAll(keepingCapacity: true)
                    }
                    checkpoint(listing: index + 64 < listing.indices.count)
                    if stopped { return }
                }
            }
            let name = listing.name(at: index)
            if inspection.claimsEntries, inspection.claims(name),
                claim(inspection, name, type: listing.type(at: index), in: (fd, path))
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
            var companion: [UInt8]?
            if !companions.isEmpty {
                // A companion is no document of its own: its NAME gets it (a folder or link of
                // that name is walked or skipped as any other).
                if type == DT_REG, companions.isCompanion(name) { continue }
                companion = companions.byOwner[Array(name)]
                if companion != nil && (type == DT_DIR || type == DT_REG) { ownedCompanions.insert(Array(name)) }
            }
            let hasSidecar = !sidecars.isEmpty && sidecars.contains(Array(name))
            if hasSidecar && (type == DT_DIR || type == DT_REG) { owned.insert(Array(name)) }
            if type == DT_DIR {
                subfolders.append((Array(name), hasSidecar, companion))
            } else if type == DT_REG {
                counts.files += 1
                tick()
                // One buffer for every file's C path: no allocation for an untagged file.
                fileAccess.removeAll(keepingCapacity: true)
                fileAccess.append(contentsOf: access)
                for byte in name { fileAccess.append(CChar(bitPattern: byte)) }
                fileAccess.append(0)
                inspect(inspection, access: fileAccess, follow: false, path: path.appending(name), folder: false,
                        in: (fd, path), sidecar: hasSidecar, companion: companion, name: name, listedIn: (fd, access.count))
                if archive != nil, !stopped { handOver(path.appending(name), name: name) }
            }
            // Symbolic links, FIFOs, sockets and devices: not followed, not reported.
        }
        // Orphan sidecars and companions, in name order, each under its own path.
        guard sidecars.count > owned.count || companions.byOwner.count > ownedCompanions.count else { return }
        var orphans: [(fileName: [UInt8], isSidecar: Bool)] = []
        for name in sidecars.subtracting(owned) { orphans.append(([UInt8(ascii: "."), UInt8(ascii: "_")] + name, true)) }
        for (owner, fileName) in companions.byOwner where !ownedCompanions.contains(owner) { orphans.append((fileName, false)) }
        orphans.sort { $0.fileName.lexicographicallyPrecedes($1.fileName) }
        for orphan in orphans where !stopped {
            inspectOrphan(inspection, orphan.fileName, isSidecar: orphan.isSidecar, in: (fd, path), access: access)
        }
    }

    /// Gives a regular file whose name is an archive's to ``archive``.
    mutating func handOver(_ path: TreePath, name: some Collection<UInt8>) {
        guard let archive, ArchiveKind(fileName: name) != nil else { return }
        if pool != nil {
            post(.archive(path), bytes: TreeWorkPool.cost(pathBytes: path.bytes.count))
        } else if archive(path) == .stop {
            stopped = true
        }
    }

    /// Reports an entry whose attributes could not be listed: gone since the listing
    /// (vanished), or the failure in words.
    mutating func listingFailed(_ error: Errno, _ path: TreePath) {
        if error.rawValue == ENOENT || error.rawValue == ENOTDIR {
            problem(path, .vanished, "vanished during the walk")
        } else {
            failed(path, FileAccessError(
                errno: error.rawValue, path: path.lossyString, context: "cannot list the extended attributes: "))
        }
    }

    static func withCName<R>(_ name: some Collection<UInt8>, _ body: (UnsafePointer<CChar>) -> R) -> R {
        var bytes = name.map { CChar(bitPattern: $0) }
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
