#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// A walker's stack of folders, flat at any depth: the newest folder's path in one byte
/// buffer, 16 bytes a level (inode, where the level's path ends in that buffer, where its
/// subfolders still to enter start), the subfolders still to enter of every level in a second
/// byte buffer, the devices only where they change, and descriptors for the open folders
/// only (the bottom one and the newest ``TreeWalker/window``).
///
/// A folder object a level (its name, its subfolder list, its path) held about 280 bytes a
/// level: 16 MB at 20 000 levels (issue 35).
struct TreeStack {
    struct Level {
        let inode: UInt64
        /// `path[..<end]` is the folder's path.
        let end: UInt32
        /// Its subfolders still to enter: `pending[pendingStart..<` the next level's start (or
        /// the end) `]`.
        var pendingStart: UInt32
    }

    /// A subfolder still to enter: its name, whether its folder's listing has its sidecar
    /// `._NAME`, and its companion's name there (``FileTreeInspector/companionSuffix``).
    typealias Subfolder = (name: [UInt8], sidecar: Bool, companion: [UInt8]?)

    /// The path of the newest folder; each level's is a prefix of it.
    private(set) var path: [UInt8] = []
    private var levels = LevelBuffer()
    /// Each level's subfolders still to enter, in reverse order (the next one last): per entry
    /// the name, the companion's name, then 2 bytes of name length, 2 of companion length
    /// (0xFFFF: none) and 1 of flags (bit 0: sidecar).
    private var pending: [UInt8] = []
    /// Where the device changes along the stack: the device of a level is that of the last
    /// change at or below it (one entry, nearly always).
    private var devices: [(level: Int, device: UInt64)] = []
    /// How many subfolders wait, on every level.
    private(set) var pendingCount = 0
    /// The bottom level's open folder, and those of levels `lowOpen...` (``open[0]`` is
    /// `lowOpen`'s); -1 for a folder closed.
    private var bottom: Int32 = -1
    private var open: [Int32] = []
    /// The lowest level above 0 whose folder may be open: the ones below it (but the bottom
    /// one) are closed.
    private(set) var lowOpen = 1

    var count: Int { levels.count }
    var isEmpty: Bool { levels.isEmpty }

    func inode(_ level: Int) -> UInt64 { levels[level].inode }

    func device(_ level: Int) -> UInt64 {
        var index = devices.count - 1
        while index > 0 && devices[index].level > level { index -= 1 }
        return devices[index].device
    }

    /// The open folder of `level`, or -1 while it is closed.
    func descriptor(_ level: Int) -> Int32 {
        if level == 0 { return bottom }
        return level >= lowOpen && level - lowOpen < open.count ? open[level - lowOpen] : -1
    }

    func isOpen(_ level: Int) -> Bool { descriptor(level) >= 0 }

    /// Where the path of `level` ends in ``path``.
    func end(_ level: Int) -> Int { Int(levels[level].end) }

    /// The folder's path.
    func treePath(_ level: Int) -> TreePath {
        level == levels.count - 1 ? TreePath(bytes: path) : TreePath(bytes: Array(path[..<end(level)]))
    }

    /// The folder's name in the folder below it (level 1 and up).
    func name(_ level: Int) -> ArraySlice<UInt8> {
        precondition(level >= 1)
        let below = end(level - 1)
        let start = below > 0 && path[below - 1] == UInt8(ascii: "/") ? below : below + 1
        return path[start..<end(level)]
    }

    /// Pushes a folder: the walker's first (`name` nil: its whole path), or a subfolder of the
    /// newest one.
    mutating func push(firstPath: [UInt8]? = nil, name: ArraySlice<UInt8>? = nil, device: UInt64, inode: UInt64,
                       descriptor: Int32) {
        if let firstPath {
            precondition(levels.isEmpty)
            path = firstPath
            bottom = descriptor
        } else if let name {
            if path.last != UInt8(ascii: "/") { path.append(UInt8(ascii: "/")) }
            path.append(contentsOf: name)
            open.append(descriptor)
        }
        if devices.last?.device != device { devices.append((levels.count, device)) }
        levels.append(Level(inode: inode, end: UInt32(path.count), pendingStart: UInt32(pending.count)))
    }

    /// Pops the newest folder, closing it.
    mutating func pop() {
        let level = levels.count - 1
        if level == 0 {
            Self.close(&bottom)
            open.removeAll()
            lowOpen = 1
            path.removeAll()
        } else {
            if level >= lowOpen && !open.isEmpty { Self.close(&open[open.count - 1]); open.removeLast() }
            path.removeSubrange(end(level - 1)...)
        }
        let start = Int(levels[level].pendingStart)
        if start < pending.count { dropPending(from: start) }
        if devices.last?.level == level { devices.removeLast() }
        levels.removeLast()
    }

    /// Closes every folder and empties the stack.
    mutating func removeAll() {
        while !levels.isEmpty { pop() }
        pending.removeAll()
        pendingCount = 0
    }

    /// Closes the oldest open folder above the bottom one while more than `window` are open.
    mutating func trim(window: Int) {
        while open.count > window {
            Self.close(&open[0])
            open.removeFirst()
            lowOpen += 1
        }
    }

    /// Makes `level` (just below ``lowOpen``) the lowest open one again, open as `descriptor`
    /// (-1 when it could not be reached).
    mutating func reopened(_ level: Int, _ descriptor: Int32) {
        precondition(level == lowOpen - 1 && level >= 1)
        open.insert(descriptor, at: 0)
        lowOpen = level
    }

    private static func close(_ descriptor: inout Int32) {
        if descriptor >= 0 { SystemCall.close(descriptor) }
        descriptor = -1
    }

    // MARK: - Subfolders still to enter

    private func pendingEnd(_ level: Int) -> Int {
        level + 1 < levels.count ? Int(levels[level + 1].pendingStart) : pending.count
    }

    func hasPending(_ level: Int) -> Bool { pendingEnd(level) > Int(levels[level].pendingStart) }

    /// Adds subfolders to enter to the newest folder, after those it has (entered in order).
    mutating func setPending(_ subfolders: [Subfolder]) {
        let start = Int(levels[levels.count - 1].pendingStart)
        // Nothing waits on this level yet: encoded straight at the end of the buffer.
        let appending = start == pending.count
        var chunk: [UInt8] = []
        if appending { swap(&chunk, &pending) }
        for subfolder in subfolders.reversed() {
            chunk.append(contentsOf: subfolder.name)
            if let companion = subfolder.companion { chunk.append(contentsOf: companion) }
            let nameCount = subfolder.name.count
            let companionCount = subfolder.companion?.count ?? 0xFFFF
            chunk.append(UInt8(truncatingIfNeeded: nameCount))
            chunk.append(UInt8(truncatingIfNeeded: nameCount >> 8))
            chunk.append(UInt8(truncatingIfNeeded: companionCount))
            chunk.append(UInt8(truncatingIfNeeded: companionCount >> 8))
            chunk.append(subfolder.sidecar ? 1 : 0)
        }
        if appending {
            swap(&chunk, &pending)
        } else {
            // Later subfolders go first in the buffer: the next one to enter stays last.
            pending.insert(contentsOf: chunk, at: start)
        }
        pendingCount += subfolders.count
    }

    /// Takes the next subfolder to enter of `level` (which has one).
    mutating func takePending(_ level: Int) -> Subfolder {
        let end = pendingEnd(level)
        let sidecar = pending[end - 1] & 1 != 0
        let companionCount = Int(pending[end - 3]) | Int(pending[end - 2]) << 8
        let nameCount = Int(pending[end - 5]) | Int(pending[end - 4]) << 8
        let companionStart = end - 5 - (companionCount == 0xFFFF ? 0 : companionCount)
        let start = companionStart - nameCount
        let name = Array(pending[start..<companionStart])
        let companion = companionCount == 0xFFFF ? nil : Array(pending[companionStart..<(end - 5)])
        if end == pending.count {
            pending.removeLast(end - start)
        } else {
            pending.removeSubrange(start..<end)
        }
        // Taken below the newest level (a folder handed to another worker): the levels above
        // start that much lower.
        let removed = UInt32(end - start)
        for above in (level + 1)..<levels.count { levels[above].pendingStart -= removed }
        pendingCount -= 1
        return (name, sidecar, companion)
    }

    /// Drops the pending subfolders of `start..<end` (whole entries).
    private mutating func dropPending(from start: Int, to end: Int? = nil) {
        let stop = end ?? pending.count
        var at = stop
        while at > start {
            let companionCount = Int(pending[at - 3]) | Int(pending[at - 2]) << 8
            let nameCount = Int(pending[at - 5]) | Int(pending[at - 4]) << 8
            at -= 5 + nameCount + (companionCount == 0xFFFF ? 0 : companionCount)
            pendingCount -= 1
        }
        pending.removeSubrange(start..<stop)
    }

    /// Drops what is left to enter of `level` (its folder cannot be reached again).
    mutating func dropPending(_ level: Int) {
        let start = Int(levels[level].pendingStart), end = pendingEnd(level)
        guard end > start else { return }
        dropPending(from: start, to: end)
        let removed = UInt32(end - start)
        for above in (level + 1)..<levels.count { levels[above].pendingStart -= removed }
    }

    /// The lowest level with a subfolder to enter.
    func shallowestPending() -> Int? {
        guard pendingCount > 0 else { return nil }
        return (0..<levels.count).first { hasPending($0) }
    }

    // MARK: - Loops

    /// The level whose folder is `device` and `inode`, at or below `level`.
    func level(device: UInt64, inode: UInt64, atOrBelow level: Int) -> Int? {
        for (segment, change) in devices.enumerated().reversed() where change.level <= level && change.device == device {
            let top = segment + 1 < devices.count ? min(level, devices[segment + 1].level - 1) : level
            var current = top
            while current >= change.level {
                if levels[current].inode == inode { return current }
                current -= 1
            }
        }
        return nil
    }

    /// Whether the open folder `fd` is `level`'s folder (device and inode).
    func isSame(_ fd: Int32, _ level: Int) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && UInt64(info.st_dev) == device(level) && UInt64(info.st_ino) == inode(level)
    }

    /// The levels from 0 to `level` as the ancestors of a folder handed to another worker,
    /// below `base` (the ancestors of this stack's bottom folder).
    func ancestors(through level: Int, base: TreeAncestors?) -> TreeAncestors {
        var text: [UInt8]
        if base == nil {
            text = Array(path[..<end(0)])
        } else {
            // The bottom folder by name: a subfolder of the base's last folder.
            let whole = path[..<end(0)]
            let slash = whole.dropLast().lastIndex(of: UInt8(ascii: "/"))
            text = Array(whole[(slash.map { $0 + 1 } ?? 0)...])
        }
        var ends = [UInt32(text.count)]
        let offset = end(0) - text.count
        if level >= 1 {
            text += path[end(0)..<end(level)]
            for index in 1...level { ends.append(UInt32(end(index) - offset)) }
        }
        var nodes: [(device: UInt64, inode: UInt64)] = []
        nodes.reserveCapacity(level + 1)
        for index in 0...level { nodes.append((device(index), levels[index].inode)) }
        return TreeAncestors(text: text, ends: ends, nodes: nodes, parent: base)
    }
}

/// The folders a folder handed to another worker is in (device, inode, path), shared by
/// everything under it: how that worker still catches a bind-mount loop. Immutable; one
/// object for each handover, holding the levels between the previous handover and it, by
/// name (a path is built only when a loop is reported): whole paths made a chain handed over
/// at depth N hold N²/2 bytes, and an object a level 100 bytes a level (issue 35).
final class TreeAncestors: @unchecked Sendable {
    /// The levels' names joined with `/`; the first level is a whole path when ``parent`` is
    /// nil, else a name in the parent's last folder.
    private let text: [UInt8]
    /// Where each level's part of ``text`` ends.
    private let ends: [UInt32]
    private let nodes: [(device: UInt64, inode: UInt64)]
    let parent: TreeAncestors?

    init(text: [UInt8], ends: [UInt32], nodes: [(device: UInt64, inode: UInt64)], parent: TreeAncestors?) {
        self.text = text
        self.ends = ends
        self.nodes = nodes
        self.parent = parent
    }

    /// The path of the nearest folder in the chain with this device and inode.
    func path(device: UInt64, inode: UInt64) -> TreePath? {
        var segment: TreeAncestors? = self
        while let current = segment {
            if let index = current.nodes.lastIndex(where: { $0.inode == inode && $0.device == device }) {
                return TreePath(bytes: current.path(through: index))
            }
            segment = current.parent
        }
        return nil
    }

    /// The path of this segment's level `index`.
    private func path(through index: Int) -> [UInt8] {
        var bytes = parent.map { $0.path(through: $0.ends.count - 1) } ?? []
        if !bytes.isEmpty && bytes.last != UInt8(ascii: "/") { bytes.append(UInt8(ascii: "/")) }
        bytes += text[..<Int(ends[index])]
        return bytes
    }
}

/// The levels of a ``TreeStack``, in blocks of 1 024 (16 KB), each mapped when the stack
/// reaches it and unmapped when it leaves it: nothing is copied as the stack grows, and no
/// block sits in the malloc heap between the walk's short-lived allocations. One block grown
/// by copying held the old and new blocks at once (786 KB at the peak of a 20 000-level
/// chain), and blocks in a worker's malloc arena kept the free space between them resident
/// (a path's allocation, growing level by level, never fitted a gap left by a shorter one).
final class LevelBuffer {
    private static let shift = 10
    private static let blockSize = 1 << shift
    private var blocks: [UnsafeMutablePointer<TreeStack.Level>] = []
    /// A block kept after the stack left it (the walk often comes straight back).
    private var spare: UnsafeMutablePointer<TreeStack.Level>?
    private(set) var count = 0

    deinit {
        for block in blocks { Self.unmap(block) }
        if let spare { Self.unmap(spare) }
    }

    private static let blockBytes = blockSize * MemoryLayout<TreeStack.Level>.stride

    private static func map() -> UnsafeMutablePointer<TreeStack.Level> {
        guard let block = mmap(nil, blockBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            block != MAP_FAILED
        else { fatalError("no memory for \(blockSize) more folder levels") }
        return block.bindMemory(to: TreeStack.Level.self, capacity: blockSize)
    }

    private static func unmap(_ block: UnsafeMutablePointer<TreeStack.Level>) {
        munmap(block, blockBytes)
    }

    var isEmpty: Bool { count == 0 }

    subscript(index: Int) -> TreeStack.Level {
        get {
            precondition(index >= 0 && index < count)
            return blocks[index >> Self.shift][index & (Self.blockSize - 1)]
        }
        set {
            precondition(index >= 0 && index < count)
            blocks[index >> Self.shift][index & (Self.blockSize - 1)] = newValue
        }
    }

    func append(_ level: TreeStack.Level) {
        if count == blocks.count << Self.shift {
            blocks.append(spare ?? Self.map())
            spare = nil
        }
        (blocks[count >> Self.shift] + (count & (Self.blockSize - 1))).initialize(to: level)
        count += 1
    }

    func removeLast() {
        precondition(count > 0)
        count -= 1
        if count & (Self.blockSize - 1) == 0 {
            let block = blocks.removeLast()
            if spare == nil { spare = block } else { Self.unmap(block) }
        }
    }
}
