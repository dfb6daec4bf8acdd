internal import XDSSystem
import XDocSource

/// The tar side of ``ArchiveCopy``: the stream (decompressed with its one filter) is copied as
/// 512-byte blocks, in one pass; only pax headers that hold records the filter drops are
/// rewritten (the other records byte-exact, the header's size and checksum recomputed) or left
/// out, and `._NAME` entries (with the pax and GNU long-name headers in front of them) left out
/// or rewritten. Headers before an entry are held until the entry's header says what it is.
struct TarCopier {
    let source: ArchiveSource
    let path: DocumentSourceTreePath
    let limits: ArchiveScanner.Limits
    let filter: ArchiveCopy.Filter
    /// Told what is left out, as it is decided.
    let observe: (ArchiveCopy.Event) -> Void
    var report = ArchiveCopy.Report()

    /// A header read before its entry's: a pax header (its records, filtered) or a GNU
    /// long-name header (`L`, `K`) as it is.
    private enum Prefix {
        case pax(header: [UInt8], records: [PaxRecord], changed: Bool)
        case raw([UInt8])

        /// About the bytes it holds.
        var count: Int {
            switch self {
            case .pax(let header, let records, _): header.count + records.reduce(0) { $0 + $1.raw.count }
            case .raw(let bytes): bytes.count
            }
        }
    }

    /// A folder entry the rule drops, held (with the headers in front of it) until the next
    /// entry: written before a kept entry under it (a `__MACOSX/` that a kept `._` entry stays
    /// in), else left out. Nested ones in order, at most ``pendingLimit`` of them.
    private struct PendingFolder {
        let name: [UInt8]
        let entry: DocumentSourceTreePath
        let prefixes: [Prefix]
        let header: [UInt8]
        let keywords: [[UInt8]]
    }

    private var input: TarStreamReader!
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    private var headers = 0
    private var pending: [PendingFolder] = []
    private var pendingBytes = 0
    private static let pendingLimit = 64

    init(source: ArchiveSource, path: DocumentSourceTreePath, limits: ArchiveScanner.Limits, filter: ArchiveCopy.Filter,
         observe: @escaping (ArchiveCopy.Event) -> Void = { _ in }) {
        self.source = source
        self.path = path
        self.limits = limits
        self.filter = filter
        self.observe = observe
    }

    /// The most bytes of a pax header or `._` entry held in memory.
    private var heldLimit: Int { max(limits.maximumAppleDoubleSize, AppleDouble.maximumFileSize) }

    private func damaged(_ words: String) -> ArchiveCopyError {
        .archive(ArchiveError(.malformed, path: path, message: "damaged archive (tar): \(words)"))
    }

    mutating func run(_ out: inout CopyOutput) throws(ArchiveCopyError) {
        let compression: TarCompression
        do throws(ArchiveError) {
            let source = self.source, path = self.path
            compression = try TarCompression.detect { (offset: Int64, count: Int) throws(ArchiveError) -> [UInt8] in
                try source.bytes(at: offset, count: count, path: path)
            }
            input = try TarStreamReader(source: source, path: path, compression: compression,
                                        limit: limits.maximumDecompressedSize)
        } catch {
            throw .archive(error)
        }
        report.compression = compression == .none ? nil : compression.rawValue
        if compression != .none, !out.discarding {
            out.compressor = try TarStreamWriter(descriptor: out.descriptor, compression: compression, path: path)
        }
        try copyBlocks(&out)
        try out.compressor?.finish()
    }

    private mutating func copyBlocks(_ out: inout CopyOutput) throws(ArchiveCopyError) {
        var prefixes: [Prefix] = []
        // The keywords dropped from the pax headers held for the next entry.
        var droppedKeywords: [[UInt8]] = []
        while true {
            guard let header = try block() else {
                // The stream ends without end-of-archive blocks (tar readers accept that).
                dropPending(under: nil)
                try flush(&prefixes, &out)
                return
            }
            if header.allSatisfy({ $0 == 0 }) {
                // The end: these blocks and whatever follows them, as they are.
                dropPending(under: nil)
                try flush(&prefixes, &out)
                try out.write(header)
                try copyRest(&out)
                return
            }
            headers += 1
            guard headers <= limits.maximumEntries else {
                throw .archive(ArchiveError(.malformed, path: path,
                                            message: "has more than \(limits.maximumEntries) entries: no copy is written"))
            }
            guard TarHeader.checksumHolds(header) else {
                if headers == 1 { throw .archive(ArchiveError(.malformed, path: path, message: "not a readable archive (tar): its first header is not a tar header")) }
                throw damaged("header \(headers) has a bad checksum")
            }
            guard var size = TarHeader.size(header) else { throw damaged("header \(headers) has a bad size field") }
            let type = header[156]
            switch type {
            case UInt8(ascii: "x"), UInt8(ascii: "X"), UInt8(ascii: "g"):
                let data = try held(size, what: "pax header")
                guard let records = PaxRecord.parse(data) else { throw damaged("pax header \(headers) is malformed") }
                let (kept, dropped) = filtered(records)
                report.droppedRecords += dropped.count
                let prefix = Prefix.pax(header: header, records: kept, changed: !dropped.isEmpty)
                if kept.isEmpty && !records.isEmpty { report.droppedHeaders += 1 }
                if type == UInt8(ascii: "g") {
                    if !dropped.isEmpty {
                        observe(.paxRecords(member: DocumentSourceTreePath(bytes: TarHeader.name(header)), keywords: dropped))
                    }
                    // A global header applies to what follows: a folder held goes before it.
                    dropPending(under: nil)
                    try flush(&prefixes, &out)
                    try write(prefix, &out)
                } else {
                    droppedKeywords += dropped
                    prefixes.append(prefix)
                }
                continue
            case UInt8(ascii: "L"), UInt8(ascii: "K"):
                let data = try held(size, what: "long-name header")
                prefixes.append(.raw(header + Self.padded(data)))
                continue
            default:
                break
            }
            report.entries += 1
            // The size a pax header gives wins; links and special files carry no data (but a
            // pax hard link may), as libarchive reads them.
            var paxPath: [UInt8]?, longName: [UInt8]?
            for prefix in prefixes {
                switch prefix {
                case .pax(_, let records, _):
                    for record in records {
                        if record.keyword == Array("size".utf8), let value = Int64(String(decoding: record.value, as: UTF8.self)), value >= 0 {
                            size = value
                        }
                        if record.keyword == Array("path".utf8) { paxPath = Array(record.value) }
                    }
                case .raw(let bytes) where bytes[156] == UInt8(ascii: "L"):
                    let data = bytes[512...]
                    longName = Array(data.prefix { $0 != 0 })
                default:
                    break
                }
            }
            let hasPax = prefixes.contains { if case .pax = $0 { true } else { false } }
            switch type {
            case UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "4"), UInt8(ascii: "5"), UInt8(ascii: "6"):
                size = 0
            case UInt8(ascii: "1") where !hasPax:
                size = 0
            default:
                break
            }
            var head = header
            // Old GNU sparse files: extension headers follow (isextended at 482, then 504).
            if type == UInt8(ascii: "S"), header[482] != 0 {
                var more = true
                while more {
                    guard let extension_ = try block() else { throw damaged("the archive ends inside a sparse header") }
                    head += extension_
                    more = extension_[504] != 0
                }
            }
            let name = paxPath ?? longName ?? TarHeader.name(header)
            let entryName = DocumentSourceTreePath(bytes: name)
            let isFile = type == 0 || type == UInt8(ascii: "0") || type == UInt8(ascii: "7")
            dropPending(under: name)
            switch filter.entryRule?(name, type == UInt8(ascii: "5")) ?? .copy {
            case .copy:
                break
            case .drop where type == UInt8(ascii: "5") && pending.count < Self.pendingLimit
                && pendingBytes + head.count + prefixes.reduce(0, { $0 + $1.count }) <= heldLimit:
                pendingBytes += head.count + prefixes.reduce(0) { $0 + $1.count }
                pending.append(PendingFolder(name: name, entry: entryName, prefixes: prefixes, header: head, keywords: droppedKeywords))
                prefixes.removeAll()
                droppedKeywords.removeAll()
                try skipData(size)
                continue
            case .drop:
                try dropEntry(entryName, size: size, &prefixes, &droppedKeywords)
                continue
            case .dropUnlessHolding(let keeps):
                try keepOnly(entryName, isFile: isFile, header: header, size: size, keeps: keeps, &prefixes, &droppedKeywords, &out)
                continue
            }
            if !droppedKeywords.isEmpty {
                observe(.paxRecords(member: entryName, keywords: droppedKeywords))
                droppedKeywords.removeAll()
            }
            if isFile, ArchiveReader.appleDoubleMember(name) != nil, size > Int64(heldLimit) {
                // Too large to be looked into: left out whole with its headers (SPEC §6), so
                // that no mark it may hold is copied unseen.
                report.unreadableEntries += 1
                observe(.unreadable(entry: entryName, reason: .tooLarge(limit: heldLimit)))
                prefixes.removeAll()
                try skipData(size)
                continue
            }
            if isFile, let described = ArchiveReader.appleDoubleMember(name) {
                let data = try held(size, what: "entry")
                let member = DocumentSourceTreePath(bytes: described)
                switch AppleDoubleCleaning.clean(data, filter: filter) {
                case .keep(let readable):
                    if !readable { report.unreadAppleDoubleEntries += 1 }
                    try writePending(&out)
                    try flush(&prefixes, &out)
                    try out.write(head + Self.padded(data))
                case .unrewritable, .dropEntry:  // (`clean` never says dropEntry)
                    report.unreadableEntries += 1
                    observe(.unreadable(entry: entryName, reason: .damaged))
                    prefixes.removeAll()
                case .drop(let attributes, let names):
                    report.droppedEntries += 1
                    report.droppedAttributes += attributes
                    observe(.attributes(member: member, entry: entryName, names: names))
                    prefixes.removeAll()
                case .replace(let file, let attributes, let names):
                    report.rewrittenEntries += 1
                    report.droppedAttributes += attributes
                    observe(.attributes(member: member, entry: entryName, names: names))
                    prefixes = Self.resized(prefixes, file.count)
                    try writePending(&out)
                    try flush(&prefixes, &out)
                    try out.write(TarHeader.withSize(header, file.count) + Self.padded(file))
                }
                continue
            }
            try writePending(&out)
            try flush(&prefixes, &out)
            try out.write(head)
            try copyData(size, &out)
        }
    }

    /// A pax header's records the filter keeps (a `LIBARCHIVE.xattr.` record rewritten as
    /// `SCHILY.xattr.` in its place when ``ArchiveCopy/Filter/rewritesLibarchiveXattr``), and
    /// the keywords of those that go as stored (the rewritten ones among them).
    private mutating func filtered(_ records: [PaxRecord]) -> (kept: [PaxRecord], dropped: [[UInt8]]) {
        var kept: [PaxRecord] = [], dropped: [[UInt8]] = []
        let twins = filter.rewritesLibarchiveXattr ? Set(records.compactMap(\.schilyName)) : []
        for record in records {
            if filter.dropsPaxKeyword(record.keyword) {
                dropped.append(record.keyword)
            } else if filter.rewritesLibarchiveXattr, record.keyword.starts(with: PaxXattr.libarchive) {
                dropped.append(record.keyword)
                if let rewritten = record.schilyRewrite, let name = rewritten.schilyName, !twins.contains(name) {
                    kept.append(rewritten)
                    report.rewrittenRecords += 1
                }
            } else {
                kept.append(record)
            }
        }
        return (kept, dropped)
    }

    /// Leaves out an entry the filter's rule drops, with the headers in front of it; its
    /// records are not listed (the entry is named whole).
    private mutating func dropEntry(_ entry: DocumentSourceTreePath, size: Int64, _ prefixes: inout [Prefix],
                                    _ droppedKeywords: inout [[UInt8]]) throws(ArchiveCopyError) {
        report.droppedEntries += 1
        observe(.entry(entry))
        prefixes.removeAll()
        droppedKeywords.removeAll()
        try skipData(size)
    }

    /// ``ArchiveCopy/EntryRule/dropUnlessHolding(_:)``: a `._` entry read and left out, or
    /// rebuilt with what is kept; anything else left out.
    private mutating func keepOnly(_ entry: DocumentSourceTreePath, isFile: Bool, header: [UInt8], size: Int64,
                                   keeps: (String) -> Bool, _ prefixes: inout [Prefix], _ droppedKeywords: inout [[UInt8]],
                                   _ out: inout CopyOutput) throws(ArchiveCopyError) {
        guard isFile, let described = ArchiveReader.appleDoubleMember(entry.bytes) else {
            return try dropEntry(entry, size: size, &prefixes, &droppedKeywords)
        }
        if size > Int64(heldLimit) {
            report.unreadableEntries += 1
            observe(.unreadable(entry: entry, reason: .tooLarge(limit: heldLimit)))
            prefixes.removeAll()
            droppedKeywords.removeAll()
            return try skipData(size)
        }
        let data = try held(size, what: "entry")
        let cleaning = AppleDoubleCleaning.keepOnly(data, keeps: keeps, filter: filter)
        if case .dropEntry = cleaning {
            report.droppedEntries += 1
            observe(.entry(entry))
            prefixes.removeAll()
            droppedKeywords.removeAll()
            return
        }
        if !droppedKeywords.isEmpty {
            observe(.paxRecords(member: entry, keywords: droppedKeywords))
            droppedKeywords.removeAll()
        }
        switch cleaning {
        case .replace(let file, let attributes, let names):
            report.rewrittenEntries += 1
            report.droppedAttributes += attributes
            observe(.attributes(member: DocumentSourceTreePath(bytes: described), entry: entry, names: names))
            prefixes = Self.resized(prefixes, file.count)
            try writePending(&out)
            try flush(&prefixes, &out)
            try out.write(TarHeader.withSize(header, file.count) + Self.padded(file))
        case .unrewritable:
            report.unreadableEntries += 1
            observe(.unreadable(entry: entry, reason: .damaged))
            prefixes.removeAll()
        default:
            try writePending(&out)
            try flush(&prefixes, &out)
            try out.write(header + Self.padded(data))
        }
    }

    /// Leaves out the folders held that `name` is not in (all of them for nil), as
    /// ``dropEntry(_:size:_:_:)`` would have when they were read.
    private mutating func dropPending(under name: [UInt8]?) {
        var kept = pending.count
        if let name {
            kept = pending.prefix { folder in
                var prefix = folder.name
                while prefix.last == UInt8(ascii: "/") { prefix.removeLast() }
                return name.count > prefix.count + 1 && name.starts(with: prefix) && name[prefix.count] == UInt8(ascii: "/")
            }.count
        }
        for folder in pending[kept...] {
            report.droppedEntries += 1
            observe(.entry(folder.entry))
        }
        pending.removeSubrange(kept...)
        pendingBytes = pending.reduce(0) { $0 + $1.header.count + $1.prefixes.reduce(0) { $0 + $1.count } }
    }

    /// Writes the folders held (each one a kept entry is in), with their headers, before it.
    private mutating func writePending(_ out: inout CopyOutput) throws(ArchiveCopyError) {
        for folder in pending {
            if !folder.keywords.isEmpty { observe(.paxRecords(member: folder.entry, keywords: folder.keywords)) }
            var prefixes = folder.prefixes
            try flush(&prefixes, &out)
            try out.write(folder.header)
        }
        pending.removeAll()
        pendingBytes = 0
    }

    /// The headers in front of a rewritten entry: its new size in the pax header that gave one
    /// (the ustar header's is set by `TarHeader.withSize`).
    private static func resized(_ prefixes: [Prefix], _ size: Int) -> [Prefix] {
        prefixes.map { prefix in
            guard case .pax(let paxHeader, let records, _) = prefix,
                  records.contains(where: { $0.keyword == Array("size".utf8) }) else { return prefix }
            return .pax(header: paxHeader, records: records.map {
                $0.keyword == Array("size".utf8) ? PaxRecord.make($0.keyword, Array(String(size).utf8)) : $0
            }, changed: true)
        }
    }

    /// Writes the held headers, the pax ones rewritten when records went (and left out when
    /// none is left).
    private mutating func flush(_ prefixes: inout [Prefix], _ out: inout CopyOutput) throws(ArchiveCopyError) {
        for prefix in prefixes { try write(prefix, &out) }
        prefixes.removeAll()
    }

    private func write(_ prefix: Prefix, _ out: inout CopyOutput) throws(ArchiveCopyError) {
        switch prefix {
        case .raw(let bytes):
            try out.write(bytes)
        case .pax(let header, let records, let changed):
            guard !(changed && records.isEmpty) else { return }
            let data = records.flatMap(\.raw)
            let head = changed ? TarHeader.withSize(header, data.count) : header
            try out.write(head + Self.padded(data))
        }
    }

    private static func padded(_ data: [UInt8]) -> [UInt8] {
        let rest = data.count % 512
        return rest == 0 ? data : data + [UInt8](repeating: 0, count: 512 - rest)
    }

    // MARK: - The stream

    /// The next 512 bytes; nil at the end of the stream (a partial block is damage).
    private mutating func block() throws(ArchiveCopyError) -> [UInt8]? {
        try fill(512)
        let available = buffer.count - bufferStart
        if available == 0 { return nil }
        guard available >= 512 else { throw damaged("the archive ends inside a block") }
        defer { bufferStart += 512 }
        return Array(buffer[bufferStart..<bufferStart + 512])
    }

    /// A header's data, held in memory: `size` bytes (at most the held limit) and the padding
    /// to the block, which is dropped.
    private mutating func held(_ size: Int64, what: String) throws(ArchiveCopyError) -> [UInt8] {
        guard size <= Int64(heldLimit) else {
            throw damaged("a \(what) of \(size) bytes (more than the \(ArchiveScanner.Limits.sizeText(Int64(heldLimit))) read)")
        }
        let blocks = (Int(size) + 511) / 512
        try fill(blocks * 512)
        guard buffer.count - bufferStart >= blocks * 512 else { throw damaged("the archive ends inside a \(what)") }
        defer { bufferStart += blocks * 512 }
        return Array(buffer[bufferStart..<bufferStart + Int(size)])
    }

    /// Copies `size` bytes of data and their padding as they are.
    private mutating func copyData(_ size: Int64, _ out: inout CopyOutput) throws(ArchiveCopyError) {
        var left = (size + 511) / 512 * 512
        while left > 0 {
            try fill(512)
            let available = buffer.count - bufferStart
            guard available > 0 else { throw damaged("the archive ends inside an entry's data") }
            let take = Int(min(Int64(available), left))
            try out.write(buffer[bufferStart..<bufferStart + take])
            bufferStart += take
            left -= Int64(take)
        }
    }

    /// Reads and drops `size` bytes of data and their padding (an entry left out unread).
    private mutating func skipData(_ size: Int64) throws(ArchiveCopyError) {
        var left = (size + 511) / 512 * 512
        while left > 0 {
            try fill(512)
            let available = buffer.count - bufferStart
            guard available > 0 else { throw damaged("the archive ends inside an entry's data") }
            let take = Int(min(Int64(available), left))
            bufferStart += take
            left -= Int64(take)
        }
    }

    /// Copies the rest of the stream as it is.
    private mutating func copyRest(_ out: inout CopyOutput) throws(ArchiveCopyError) {
        while true {
            try fill(1)
            guard buffer.count > bufferStart else { return }
            try out.write(buffer[bufferStart...])
            bufferStart = buffer.count
        }
    }

    /// Reads until at least `count` bytes are buffered, or the stream ends.
    private mutating func fill(_ count: Int) throws(ArchiveCopyError) {
        guard buffer.count - bufferStart < count else { return }
        buffer.removeFirst(bufferStart)
        bufferStart = 0
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while buffer.count < count {
            let input = self.input!
            let outcome = chunk.withUnsafeMutableBytes { raw -> Result<Int, ArchiveError> in
                do throws(ArchiveError) { return .success(try input.read(into: raw)) } catch { return .failure(error) }
            }
            let n: Int
            switch outcome {
            case .success(let read): n = read
            case .failure(let error): throw .archive(error)
            }
            if n == 0 { return }
            buffer += chunk[0..<n]
        }
    }
}
