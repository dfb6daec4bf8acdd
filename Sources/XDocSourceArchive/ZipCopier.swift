#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDocSource

/// The zip side of ``ArchiveCopy``: three passes over the central directory (read in bounded
/// chunks, as ZipReader.swift reads it), nothing kept per member but its new offset (8 bytes)
/// and the rewritten `._` entries.
/// 1. Decide: read each AppleDouble entry (bounded, through ZipReader's member read) and clean
///    it; then which `__MACOSX/` folders are left empty.
/// 2. Copy: the bytes in front of the first member, then each member kept, its local header,
///    data and data descriptor byte for byte (their extent checked: inside the file, before
///    the directory, overlapping no other member), or the rewritten entry.
/// 3. The central directory of the members kept, offsets rewritten, and the end records.
struct ZipCopier {
    let source: ArchiveSource
    let path: DocumentSourceTreePath
    let limits: ArchiveScanner.Limits
    let filter: ArchiveCopy.Filter
    /// Told what is left out, as it is decided.
    let observe: (ArchiveCopy.Event) -> Void
    var report = ArchiveCopy.Report()
    /// What pass 1 decided to leave out, with the index of the entry it concerns: said to
    /// `observe` in directory order once pass 1 is over (folders are decided last).
    private var noted: [(index: Int64, event: ArchiveCopy.Event)] = []
    /// The entry pass 1 is at.
    private var current: Int64 = 0

    init(source: ArchiveSource, path: DocumentSourceTreePath, limits: ArchiveScanner.Limits, filter: ArchiveCopy.Filter,
         observe: @escaping (ArchiveCopy.Event) -> Void = { _ in }) {
        self.source = source
        self.path = path
        self.limits = limits
        self.filter = filter
        self.observe = observe
    }

    /// One central-directory entry as stored, with its zip64 values resolved.
    struct Entry {
        var fixed: [UInt8]
        let name: [UInt8]
        var extra: [UInt8]
        let comment: [UInt8]
        var flags: UInt16 { LittleEndian.uint16(fixed, at: 8) }
        var method: Int { Int(LittleEndian.uint16(fixed, at: 10)) }
        var crc: UInt32 { LittleEndian.uint32(fixed, at: 16) }
        var compressed: Int64 = 0
        var uncompressed: Int64 = 0
        /// The local header's offset as recorded, and where it is in the file.
        var recordedLocal: Int64 = 0
        var local: Int64 = 0
        var isFolder: Bool { name.last == UInt8(ascii: "/") }
        var isRegularFile: Bool {
            let madeBy = LittleEndian.uint16(fixed, at: 4), mode = LittleEndian.uint32(fixed, at: 38) >> 16
            let type = madeBy >> 8 == 3 ? mode & 0o170000 : 0
            return !isFolder && (type == 0 || type == 0o100000)
        }
    }

    /// A `._` entry rewritten: its new data, compressed as the old one was.
    struct Rewritten {
        let data: [UInt8]
        let crc: UInt32
        let size: Int
        let method: UInt16
    }

    enum Decision {
        case drop
        case rewrite(Rewritten)
    }

    private static let macFolder = Array("__MACOSX/".utf8)
    /// The most bytes of one `._` entry read to be cleaned (XDocSource rewrites at most this).
    var appleDoubleLimit: Int { max(limits.maximumAppleDoubleSize, AppleDouble.maximumFileSize) }

    mutating func run(_ out: inout CopyOutput) throws(ArchiveCopyError) {
        let directory: ZipDirectory
        let end: ZipEndRecords
        do throws(ArchiveError) {
            directory = try ZipDirectory.locate(source, path: path)
            end = try ZipEndRecords.read(source, directory: directory, path: path)
        } catch {
            throw .archive(error)
        }

        // 1. Decide.
        var decisions: [Int64: Decision] = [:]
        var front = directory.start
        var macFolders: [(index: Int64, name: [UInt8])] = []
        var keptUnder = Set<[UInt8]>(), droppedUnder = Set<[UInt8]>()
        var work = ZipWork(limit: limits.maximumDecompressedSize, path: path)
        var count: Int64 = 0
        // Folders the entry rule drops unless something under them stays.
        var ruleFolders = Set<Int64>()
        let tracksAll = filter.entryRule != nil
        do throws(ArchiveCopyError) { try Self.forEachEntry(source, path, limits, directory) { (index, entry) throws(ArchiveCopyError) in
            count = index + 1
            current = index
            if entry.local >= 0 { front = min(front, entry.local) }
            let underMac = entry.name.starts(with: Self.macFolder)
            let rule = filter.entryRule?(entry.name, entry.isFolder) ?? .copy
            if entry.isFolder {
                if underMac { macFolders.append((index, entry.name)) }
                if case .copy = rule {} else {
                    ruleFolders.insert(index)
                    if !underMac { macFolders.append((index, entry.name)) }
                }
                return
            }
            var dropped = false
            let isAppleDouble = entry.isRegularFile && ArchiveReader.appleDoubleMember(entry.name) != nil
            var keeps: (@Sendable (String) -> Bool)?
            var dropsWhole = false
            switch rule {
            case .copy: break
            case .drop: dropsWhole = true
            case .dropUnlessHolding(let accepts): if isAppleDouble { keeps = accepts } else { dropsWhole = true }
            }
            if dropsWhole {
                decisions[index] = .drop
                report.droppedEntries += 1
                note(.entry(DocumentSourceTreePath(bytes: entry.name)))
                dropped = true
            } else if isAppleDouble {
                switch try clean(entry, index: index, directory: directory, work: &work, keeps: keeps) {
                case .drop?:
                    decisions[index] = .drop
                    dropped = true
                case .rewrite(let rewritten)?:
                    decisions[index] = .rewrite(rewritten)
                case nil:
                    break
                }
            }
            if underMac || tracksAll {
                if dropped { Self.addFolders(of: entry.name, to: &droppedUnder) } else { Self.addFolders(of: entry.name, to: &keptUnder) }
            }
        } } catch {
            flushNoted()
            throw error
        }
        report.entries = Int(count)
        if let expected = directory.entryCount, expected != count {
            throw .archive(directory.damaged("its central directory holds \(count) entries, its end record says \(expected)"))
        }
        // Deepest first, so that a folder kept keeps its parents.
        for folder in macFolders.sorted(by: { depth($0.name) > depth($1.name) }) {
            let byRule = ruleFolders.contains(folder.index)
            if !keptUnder.contains(folder.name) && (byRule || droppedUnder.contains(folder.name)) {
                decisions[folder.index] = .drop
                report.droppedEntries += 1
                if byRule { noted.append((folder.index, .entry(DocumentSourceTreePath(bytes: folder.name)))) }
            } else {
                Self.addFolders(of: folder.name, to: &keptUnder)
            }
        }
        flushNoted()

        // 2. Copy: the bytes in front, then the members.
        try copy(from: 0, count: front, to: &out)
        var offsets = [Int64](repeating: -1, count: Int(count))
        var ranges = ZipDataRanges()
        try Self.forEachEntry(source, path, limits, directory) { (index, entry) throws(ArchiveCopyError) in
            let decision = decisions[index]
            if case .drop? = decision { return }
            offsets[Int(index)] = out.position - directory.correction
            if case .rewrite(let rewritten)? = decision {
                try writeRewritten(entry, rewritten, directory: directory, to: &out)
            } else {
                try copyMember(entry, index: index, directory: directory, ranges: &ranges, to: &out)
            }
        }

        // 3. The central directory and the end records.
        let directoryStart = out.position
        var kept: Int64 = 0
        try Self.forEachEntry(source, path, limits, directory) { (index, entry) throws(ArchiveCopyError) in
            guard offsets[Int(index)] >= 0 else { return }
            var entry = entry
            if case .rewrite(let rewritten)? = decisions[index] { Self.describe(&entry, rewritten) }
            Self.setOffset(&entry, offsets[Int(index)])
            try out.write(entry.fixed + entry.name + entry.extra + entry.comment)
            kept += 1
        }
        try end.write(entries: kept, directoryStart: directoryStart - directory.correction,
                      directorySize: out.position - directoryStart, correction: directory.correction, to: &out)
    }

    /// Says what pass 1 noted, in directory order (also when pass 1 fails: what was seen).
    private mutating func flushNoted() {
        let ordered = noted.enumerated().sorted { ($0.element.index, $0.offset) < ($1.element.index, $1.offset) }
        for item in ordered { observe(item.element.event) }
        noted.removeAll()
    }

    /// Notes what is left out of the entry pass 1 is at.
    mutating func note(_ event: ArchiveCopy.Event) { noted.append((current, event)) }

    private func depth(_ name: [UInt8]) -> Int { name.lazy.filter { $0 == UInt8(ascii: "/") }.count }

    /// Adds every folder `name` lies in (`__MACOSX/`, `__MACOSX/docs/`; not `name` itself).
    private static func addFolders(of name: [UInt8], to set: inout Set<[UInt8]>) {
        for (at, byte) in name.enumerated() where byte == UInt8(ascii: "/") && at + 1 < name.count {
            set.insert(Array(name[...at]))
        }
    }

    // MARK: - The directory

    /// Calls `body` with each entry of the central directory, in order (bounded by the entry
    /// limit; a damaged entry is a damaged archive).
    /// (Static: `body` may change the copier.)
    private static func forEachEntry(
        _ source: ArchiveSource, _ path: DocumentSourceTreePath, _ limits: ArchiveScanner.Limits,
        _ directory: ZipDirectory, _ body: (Int64, Entry) throws(ArchiveCopyError) -> Void
    ) throws(ArchiveCopyError) {
        var reader = ZipChunkReader(source: source, start: directory.start, end: directory.end, path: path)
        var index: Int64 = 0
        while reader.position < directory.end {
            if index >= Int64(limits.maximumEntries) {
                throw .archive(ArchiveError(.malformed, path: path,
                                            message: "has more than \(limits.maximumEntries) entries: no copy is written"))
            }
            let fixed: [UInt8]?
            do throws(ArchiveError) { fixed = try reader.take(46) } catch { throw .archive(error) }
            guard let fixed, LittleEndian.uint32(fixed, at: 0) == 0x0201_4B50 else {
                throw .archive(directory.damaged("entry \(index + 1) of its central directory is damaged"))
            }
            let nameLength = Int(LittleEndian.uint16(fixed, at: 28)), extraLength = Int(LittleEndian.uint16(fixed, at: 30))
            let commentLength = Int(LittleEndian.uint16(fixed, at: 32))
            let variable: [UInt8]?
            do throws(ArchiveError) { variable = try reader.take(nameLength + extraLength + commentLength) } catch {
                throw .archive(error)
            }
            guard let variable else {
                throw .archive(directory.damaged("entry \(index + 1) of its central directory runs past its end"))
            }
            var entry = Entry(fixed: fixed, name: Array(variable.prefix(nameLength)),
                              extra: Array(variable[nameLength..<nameLength + extraLength]),
                              comment: Array(variable.suffix(commentLength)))
            entry.compressed = Int64(LittleEndian.uint32(fixed, at: 20))
            entry.uncompressed = Int64(LittleEndian.uint32(fixed, at: 24))
            entry.recordedLocal = Int64(LittleEndian.uint32(fixed, at: 42))
            if let zip64 = Self.zip64Fields(entry) {
                if let value = zip64.uncompressed { entry.uncompressed = Int64(clamping: LittleEndian.uint64(entry.extra, at: value)) }
                if let value = zip64.compressed { entry.compressed = Int64(clamping: LittleEndian.uint64(entry.extra, at: value)) }
                if let value = zip64.offset { entry.recordedLocal = Int64(clamping: LittleEndian.uint64(entry.extra, at: value)) }
            }
            let corrected = entry.recordedLocal.addingReportingOverflow(directory.correction)
            entry.local = corrected.overflow ? Int64.max : corrected.partialValue
            try body(index, entry)
            index += 1
        }
    }

    /// Where the zip64 values of an entry lie in its extra field (the fields whose 32-bit value
    /// is 0xFFFFFFFF, in the order uncompressed size, compressed size, offset), and where the
    /// zip64 block starts; nil without one.
    static func zip64Fields(_ entry: Entry) -> (block: Int, uncompressed: Int?, compressed: Int?, offset: Int?)? {
        guard let (block, size) = extraBlock(0x0001, in: entry.extra) else { return nil }
        var at = block + 4
        let end = block + 4 + size
        var found: [Int?] = [nil, nil, nil]
        for (slot, fixedAt) in [20 + 4, 20, 42].enumerated() where LittleEndian.uint32(entry.fixed, at: fixedAt) == 0xFFFF_FFFF {
            // Order in the block: uncompressed (fixed 24), compressed (fixed 20), offset (42).
            guard at + 8 <= end else { break }
            found[slot] = at
            at += 8
        }
        return (block, found[0], found[1], found[2])
    }

    /// The start and data size of the first extra block with `id` (complete blocks only;
    /// zipalign's padding after them is left alone).
    private static func extraBlock(_ id: UInt16, in extra: [UInt8]) -> (Int, Int)? {
        var at = 0
        while at + 4 <= extra.count {
            let blockID = LittleEndian.uint16(extra, at: at), size = Int(LittleEndian.uint16(extra, at: at + 2))
            guard at + 4 + size <= extra.count else { return nil }
            if blockID == id { return (at, size) }
            at += 4 + size
        }
        return nil
    }

    /// The extra field without its zip64 block (for a rewritten entry, small enough without).
    private static func withoutZip64(_ extra: [UInt8]) -> [UInt8] {
        guard let (block, size) = extraBlock(0x0001, in: extra) else { return extra }
        return Array(extra[..<block] + extra[(block + 4 + size)...])
    }

    /// Records the local header offset `offset`: in the zip64 block where the entry had it
    /// there, else in the 32-bit field when it fits, else in a zip64 block (added or grown).
    static func setOffset(_ entry: inout Entry, _ offset: Int64) {
        if let fields = zip64Fields(entry), let at = fields.offset {
            entry.extra.replaceSubrange(at..<at + 8, with: le(UInt64(offset), 8))
            return
        }
        if offset < 0xFFFF_FFFF {
            entry.fixed.replaceSubrange(42..<46, with: le(UInt64(offset), 4))
            return
        }
        entry.fixed.replaceSubrange(42..<46, with: le(0xFFFF_FFFF, 4))
        if let fields = zip64Fields(entry) {
            // After the sizes it holds (the offset comes third).
            let size = Int(LittleEndian.uint16(entry.extra, at: fields.block + 2))
            let insertAt = fields.block + 4 + (fields.uncompressed == nil ? 0 : 8) + (fields.compressed == nil ? 0 : 8)
            entry.extra.insert(contentsOf: le(UInt64(offset), 8), at: insertAt)
            entry.extra.replaceSubrange(fields.block + 2..<fields.block + 4, with: le(UInt64(size + 8), 2))
        } else {
            entry.extra = le(1, 2) + le(8, 2) + le(UInt64(offset), 8) + entry.extra
        }
        entry.fixed.replaceSubrange(30..<32, with: le(UInt64(entry.extra.count), 2))
    }

    /// The directory entry of a rewritten `._` entry: its new sizes, CRC and method, no data
    /// descriptor, no zip64 sizes.
    private static func describe(_ entry: inout Entry, _ rewritten: Rewritten) {
        entry.extra = withoutZip64(entry.extra)
        entry.fixed.replaceSubrange(8..<10, with: le(UInt64(entry.flags & ~0x0008), 2))
        entry.fixed.replaceSubrange(10..<12, with: le(UInt64(rewritten.method), 2))
        entry.fixed.replaceSubrange(16..<20, with: le(UInt64(rewritten.crc), 4))
        entry.fixed.replaceSubrange(20..<24, with: le(UInt64(rewritten.data.count), 4))
        entry.fixed.replaceSubrange(24..<28, with: le(UInt64(rewritten.size), 4))
        entry.fixed.replaceSubrange(30..<32, with: le(UInt64(entry.extra.count), 2))
    }

    static func le(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    // MARK: - Members

    private func damaged(_ directory: ZipDirectory, _ index: Int64, _ entry: Entry, _ words: String) -> ArchiveCopyError {
        .archive(directory.damaged("entry \(index + 1) (\(DocumentSourceTreePath(bytes: entry.name).visible)): \(words)"))
    }

    /// The local header (30 bytes, name and extra) of `entry`, checked to lie before the directory.
    private func localHeader(_ entry: Entry, index: Int64, directory: ZipDirectory) throws(ArchiveCopyError) -> [UInt8] {
        guard entry.local >= 0, entry.local <= directory.start - 30 else {
            throw damaged(directory, index, entry, "its local header is not before the central directory")
        }
        let fixed = try bytes(at: entry.local, count: 30)
        guard fixed.count == 30, LittleEndian.uint32(fixed, at: 0) == 0x0403_4B50 else {
            throw damaged(directory, index, entry, "its local header is missing or damaged")
        }
        let variable = Int(LittleEndian.uint16(fixed, at: 26)) + Int(LittleEndian.uint16(fixed, at: 28))
        guard entry.local + 30 + Int64(variable) <= directory.start else {
            throw damaged(directory, index, entry, "its local header runs into the central directory")
        }
        return fixed + (variable > 0 ? try bytes(at: entry.local + 30, count: variable) : [])
    }

    /// Copies a member as it is: local header, data, data descriptor.
    private func copyMember(_ entry: Entry, index: Int64, directory: ZipDirectory, ranges: inout ZipDataRanges,
                            to out: inout CopyOutput) throws(ArchiveCopyError) {
        let header = try localHeader(entry, index: index, directory: directory)
        let dataStart = entry.local + Int64(header.count)
        let dataEnd = dataStart.addingReportingOverflow(entry.compressed)
        guard entry.compressed >= 0, !dataEnd.overflow, dataEnd.partialValue <= directory.start else {
            throw damaged(directory, index, entry, "its data runs into the central directory")
        }
        var end = dataEnd.partialValue
        if entry.flags & 0x0008 != 0 {
            end += try descriptorLength(entry, header: header, at: end, directory: directory, index: index)
        }
        // Each byte of the archive is copied once at most: the copy is never larger than it.
        guard ranges.insert(start: entry.local, end: end) else {
            throw damaged(directory, index, entry, "its data overlaps another entry's")
        }
        try copy(from: entry.local, count: end - entry.local, to: &out)
    }

    /// The length of the data descriptor at `at` (with or without its signature, 32- or 64-bit
    /// sizes): the form whose CRC and sizes are the directory's, zip64's first when the local
    /// header has a zip64 block.
    private func descriptorLength(_ entry: Entry, header: [UInt8], at: Int64, directory: ZipDirectory,
                                  index: Int64) throws(ArchiveCopyError) -> Int64 {
        let available = Int(min(24, directory.start - at))
        let bytes = available > 0 ? try bytes(at: at, count: available) : []
        let localExtra = Array(header.suffix(Int(LittleEndian.uint16(header, at: 28))))
        let wideFirst = Self.extraBlock(0x0001, in: localExtra) != nil
        for wide in wideFirst ? [true, false] : [false, true] {
            for signed in [true, false] {
                let start = signed ? 4 : 0, width = wide ? 8 : 4
                let length = start + 4 + 2 * width
                guard bytes.count >= length else { continue }
                if signed && LittleEndian.uint32(bytes, at: 0) != 0x0807_4B50 { continue }
                let crc = LittleEndian.uint32(bytes, at: start)
                let compressed = LittleEndian.unsigned(bytes, at: start + 4, width: width)
                let uncompressed = LittleEndian.unsigned(bytes, at: start + 4 + width, width: width)
                if crc == entry.crc, compressed == UInt64(entry.compressed), uncompressed == UInt64(entry.uncompressed) {
                    return Int64(length)
                }
            }
        }
        throw damaged(directory, index, entry, "its data descriptor does not match its central directory entry")
    }

    /// Writes a rewritten `._` entry: the old local header's fields with the new sizes, CRC
    /// and method, without data descriptor or zip64 block, then the new data.
    private func writeRewritten(_ entry: Entry, _ rewritten: Rewritten, directory: ZipDirectory,
                                to out: inout CopyOutput) throws(ArchiveCopyError) {
        let old = try localHeader(entry, index: 0, directory: directory)
        let nameLength = Int(LittleEndian.uint16(old, at: 26))
        let name = Array(old[30..<30 + nameLength])
        let extra = Self.withoutZip64(Array(old[(30 + nameLength)...]))
        var header = Array(old[0..<6])
        header += Self.le(UInt64(LittleEndian.uint16(old, at: 6) & ~0x0008), 2)
        header += Self.le(UInt64(rewritten.method), 2) + Array(old[10..<14])
        header += Self.le(UInt64(rewritten.crc), 4) + Self.le(UInt64(rewritten.data.count), 4)
        header += Self.le(UInt64(rewritten.size), 4) + Self.le(UInt64(nameLength), 2) + Self.le(UInt64(extra.count), 2)
        try out.write(header + name + extra)
        try out.write(rewritten.data)
    }

    // MARK: - Bytes

    private func bytes(at offset: Int64, count: Int) throws(ArchiveCopyError) -> [UInt8] {
        let read: [UInt8]
        do throws(ArchiveError) { read = try source.bytes(at: offset, count: count, path: path) } catch { throw .archive(error) }
        guard read.count == count else {
            throw .archive(ArchiveError(.malformed, path: path, message: "damaged archive (zip): the file ended while it was read"))
        }
        return read
    }

    /// Copies `count` bytes from `offset` of the archive, a MiB at a time (a dry run only checks
    /// that they lie inside the file).
    private func copy(from offset: Int64, count: Int64, to out: inout CopyOutput) throws(ArchiveCopyError) {
        if out.discarding {
            guard offset >= 0, count >= 0, count <= source.size - offset else {
                throw .archive(ArchiveError(.malformed, path: path, message: "damaged archive (zip): the file ended while it was read"))
            }
            out.skip(count)
            return
        }
        var done: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while done < count {
            let want = Int(min(Int64(buffer.count), count - done))
            let n = SystemCall.retrying { pread(source.descriptor, buffer.baseAddress!, want, off_t(offset + done)) }
            if n < 0 {
                throw .archive(ArchiveError(.unreadable, path: path, message: "cannot read the archive: " + Errno.current.words))
            }
            if n == 0 {
                throw .archive(ArchiveError(.malformed, path: path, message: "damaged archive (zip): the file ended while it was read"))
            }
            try out.write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            done += Int64(n)
        }
    }
}
