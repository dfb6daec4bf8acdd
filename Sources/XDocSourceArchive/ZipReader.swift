#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import CZlib
internal import XDSSystem
import XDocSource

/// A zip archive read through its central directory (APPNOTE 4.3.12–4.3.16), our own reader:
/// - the directory is streamed in bounded chunks and nothing is kept per member, so memory is
///   flat in the member count, and members are skipped by their offsets, never inflated
///   (libarchive's streaming reader inflates every member whose size follows its data);
/// - names are the exact bytes stored (libarchive turns a UTF-8-flagged name into the locale's
///   charset and Unicode NFC, and gives nothing at all in the C locale);
/// - a self-extracting zip (bytes in front, offsets written for the zip alone) lists like any
///   other: the directory is found from the end record, and the offsets corrected by where it
///   really starts, as `unzip` does;
/// - a zip without an end record (cut short, inside its directory or before it) is refused;
///   where a zip64 locator and record are found, they are the truth and the classic record's
///   fields are not looked at (an invalid one, libarchive's issue 869, is read as unzip reads it);
/// - extra fields are walked by their headers, and bytes that are not a whole header (zero
///   padding, as zipalign writes) end the walk: they are padding, not damage.
/// Only `._NAME` entries and a `.textpack`'s `info.json` are read, stored or deflated, bounded.
extension ArchiveReader {
    mutating func runZip() throws(ArchiveError) {
        let directory = try ZipDirectory.locate(source, path: archivePath)
        var reader = ZipChunkReader(source: source, start: directory.start, end: directory.end, path: archivePath)
        var work = ZipWork(limit: scanner.limits.maximumDecompressedSize, path: archivePath)
        var index: Int64 = 0
        while reader.position < directory.end {
            if summary.entries >= scanner.limits.maximumEntries {
                report(.tooManyEntries, nil,
                       "has more than \(scanner.limits.maximumEntries) entries: the scan stopped there")
                summary.stopped = true
                return
            }
            guard let fixed = try reader.take(46), LittleEndian.uint32(fixed, at: 0) == 0x0201_4B50 else {
                throw directory.damaged("entry \(index + 1) of its central directory is damaged")
            }
            let madeBy = LittleEndian.uint16(fixed, at: 4), flags = LittleEndian.uint16(fixed, at: 8)
            let method = Int(LittleEndian.uint16(fixed, at: 10)), crc = LittleEndian.uint32(fixed, at: 16)
            var compressed = Int64(LittleEndian.uint32(fixed, at: 20)), uncompressed = Int64(LittleEndian.uint32(fixed, at: 24))
            let nameLength = Int(LittleEndian.uint16(fixed, at: 28)), extraLength = Int(LittleEndian.uint16(fixed, at: 30))
            let commentLength = Int(LittleEndian.uint16(fixed, at: 32))
            let external = LittleEndian.uint32(fixed, at: 38)
            var local = Int64(LittleEndian.uint32(fixed, at: 42))
            guard let variable = try reader.take(nameLength + extraLength + commentLength) else {
                throw directory.damaged("entry \(index + 1) of its central directory runs past its end")
            }
            index += 1
            summary.entries += 1
            let name = Array(variable.prefix(nameLength))
            // Zip64 extended information: the fields that are 0xFFFFFFFF, in this order.
            var extra = variable.dropFirst(nameLength).prefix(extraLength)
            while extra.count >= 4 {
                let id = LittleEndian.uint16(extra, at: 0), size = Int(LittleEndian.uint16(extra, at: 2))
                let body = extra.dropFirst(4).prefix(size)
                if id == 0x0001 {
                    var at = 0
                    for field in [0, 1, 2] {
                        let value: Int64
                        switch field {
                        case 0: value = uncompressed
                        case 1: value = compressed
                        default: value = local
                        }
                        guard value == 0xFFFF_FFFF, at + 8 <= body.count else { continue }
                        // Up to 2^64 - 1: clamped, so a size or offset is never negative (one
                        // this large lies past the end of any file, and is refused there).
                        let wide = Int64(clamping: LittleEndian.uint64(body, at: at))
                        at += 8
                        switch field {
                        case 0: uncompressed = wide
                        case 1: compressed = wide
                        default: local = wide
                        }
                    }
                }
                extra = extra.dropFirst(4 + size)
            }

            // Folders and links carry nothing xds reads (their AppleDouble entries are files).
            let mode = external >> 16
            let unixType = madeBy >> 8 == 3 ? mode & 0o170000 : 0
            guard name.last != UInt8(ascii: "/"), unixType == 0 || unixType == 0o100000 else { continue }
            let encrypted = flags & 0x41 != 0  // traditional or strong encryption
            // An offset past the directory (or that overflows when corrected) is checked when
            // the member is read; Int64.max stands for "beyond any file".
            let corrected = local.addingReportingOverflow(directory.correction)
            let member = ZipMember(local: corrected.overflow ? Int64.max : corrected.partialValue, compressed: compressed,
                                   uncompressed: uncompressed, method: method, crc: crc)
            let source = self.source
            fileMember(name, encrypted: encrypted, declaredSize: uncompressed) { limit in
                member.read(source, directory: directory, entry: (index, name), limit: limit, work: &work)
            }
            if let failure = work.failure { throw failure }
            if summary.stopped { return }
        }
        if let expected = directory.entryCount, expected != index {
            throw directory.damaged("its central directory holds \(index) entries, its end record says \(expected)")
        }
    }
}

/// Where the central directory lies, from the end record.
struct ZipDirectory {
    /// The directory's first byte and the end (the zip64 or classic end record).
    let start: Int64
    let end: Int64
    /// Added to every offset the directory records: the bytes in front of the zip (0 for a
    /// plain zip; a self-extracting one has its program there).
    let correction: Int64
    /// The entry count the end record gives, when it can be trusted (not the 16-bit field
    /// saturated or wrapped by a writer with more entries).
    let entryCount: Int64?
    let path: DocumentSourceTreePath

    func damaged(_ words: String) -> ArchiveError {
        ArchiveError(.malformed, path: path, message: "damaged archive (zip): \(words)")
    }

    static func locate(_ source: ArchiveSource, path: DocumentSourceTreePath) throws(ArchiveError) -> ZipDirectory {
        func refused(_ words: String) -> ArchiveError {
            ArchiveError(.malformed, path: path, message: "not a readable archive (zip): \(words)")
        }
        let size = source.size
        guard size >= 22 else {
            throw refused(size == 0 ? "the file is empty" : "the file is too short to be a zip (\(size) bytes)")
        }
        // The end record: 22 bytes and a comment of up to 65535, the last one in the file.
        let tailCount = Int(min(size, 22 + 65_535))
        let tailStart = size - Int64(tailCount)
        let tail = try source.bytes(at: tailStart, count: tailCount, path: path)
        guard tail.count == tailCount else { throw refused("the file ended while it was read") }
        var at = tail.count - 22
        var found: Int?
        while at >= 0 {
            if tail[at] == 0x50, tail[at + 1] == 0x4B, tail[at + 2] == 5, tail[at + 3] == 6,
               at + 22 + Int(LittleEndian.uint16(tail, at: at + 20)) <= tail.count
            {
                found = at
                break
            }
            at -= 1
        }
        guard let eocd = found else {
            throw refused("no end-of-central-directory record (not a zip, or cut short)")
        }
        let eocdPosition = tailStart + Int64(eocd)
        var disk = UInt64(LittleEndian.uint16(tail, at: eocd + 4)), directoryDisk = UInt64(LittleEndian.uint16(tail, at: eocd + 6))
        var onDisk = UInt64(LittleEndian.uint16(tail, at: eocd + 8)), total = UInt64(LittleEndian.uint16(tail, at: eocd + 10))
        var directorySize = Int64(LittleEndian.uint32(tail, at: eocd + 12))
        var directoryOffset = Int64(LittleEndian.uint32(tail, at: eocd + 16))
        var end = eocdPosition
        var entryCount: Int64? = total == 0xFFFF ? nil : Int64(total)
        var disks: UInt32 = 1

        // Zip64: a locator just before the end record points at the zip64 end record. Where
        // there is one, its record is the truth, and the classic record's fields are not
        // looked at (writers leave them 0xFFFF, or anything: libarchive's issue 869), as
        // libarchive and unzip read it.
        if let zip64 = try Zip64End.locate(source, before: eocdPosition, path: path) {
            guard let record = zip64.record else { throw refused("its zip64 end record is missing or damaged") }
            disk = UInt64(LittleEndian.uint32(record, at: 16))
            directoryDisk = UInt64(LittleEndian.uint32(record, at: 20))
            onDisk = LittleEndian.uint64(record, at: 24)
            total = LittleEndian.uint64(record, at: 32)
            directorySize = Int64(clamping: LittleEndian.uint64(record, at: 40))
            directoryOffset = Int64(clamping: LittleEndian.uint64(record, at: 48))
            entryCount = total <= UInt64(Int64.max) ? Int64(total) : nil
            end = zip64.recordPosition
            disks = zip64.disks  // 1 (Info-ZIP), or 0 as some writers leave it
        }
        guard disk == 0, directoryDisk == 0, onDisk == total, disks <= 1 else {
            throw refused("a zip split across several files (multi-volume) is not read")
        }
        let start = end - directorySize
        guard directorySize >= 0, start >= 0, directoryOffset >= 0, start - directoryOffset >= 0 else {
            throw refused("its end record places the central directory outside the file")
        }
        return ZipDirectory(start: start, end: end, correction: start - directoryOffset,
                            entryCount: entryCount, path: path)
    }
}

/// The zip64 end-of-central-directory locator (20 bytes, just before the classic end record)
/// and the zip64 end record it points at (APPNOTE 4.3.14–4.3.15).
struct Zip64End {
    /// The 56 fixed bytes of the zip64 end record, or nil when the locator points at none.
    let record: [UInt8]?
    /// Where the record starts (where the central directory ends).
    let recordPosition: Int64
    /// The total number of disks the locator gives.
    let disks: UInt32

    /// The locator before the classic end record at `eocdPosition` and its record, or nil when
    /// there is no locator (a zip without zip64).
    static func locate(_ source: ArchiveSource, before eocdPosition: Int64, path: DocumentSourceTreePath) throws(ArchiveError) -> Zip64End? {
        guard eocdPosition >= 20 + 56 else { return nil }
        let locator = try source.bytes(at: eocdPosition - 20, count: 20, path: path)
        guard locator.count == 20, LittleEndian.uint32(locator, at: 0) == 0x0706_4B50 else { return nil }
        let disks = LittleEndian.uint32(locator, at: 16)
        // Where it is (an extensible-data-free record just before the locator), else where the
        // locator says (the offsets of a self-extracting zip are too small, and a record with
        // extensible data is longer).
        let recorded = Int64(bitPattern: LittleEndian.uint64(locator, at: 8))
        for candidate in [eocdPosition - 20 - 56, recorded] where candidate >= 0 && candidate <= eocdPosition - 20 - 56 {
            let bytes = try source.bytes(at: candidate, count: 56, path: path)
            if bytes.count == 56, LittleEndian.uint32(bytes, at: 0) == 0x0606_4B50 {
                return Zip64End(record: bytes, recordPosition: candidate, disks: disks)
            }
        }
        return Zip64End(record: nil, recordPosition: 0, disks: disks)
    }
}

/// The central directory, read forward in chunks of at least 256 KiB.
struct ZipChunkReader {
    let source: ArchiveSource
    let end: Int64
    let path: DocumentSourceTreePath
    private(set) var position: Int64
    private var buffer: [UInt8] = []
    private var bufferStart: Int64

    init(source: ArchiveSource, start: Int64, end: Int64, path: DocumentSourceTreePath) {
        self.source = source
        self.end = end
        self.path = path
        position = start
        bufferStart = start
    }

    /// The next `count` bytes, or nil when they would run past the directory's end.
    mutating func take(_ count: Int) throws(ArchiveError) -> [UInt8]? {
        guard position + Int64(count) <= end else { return nil }
        if position + Int64(count) > bufferStart + Int64(buffer.count) {
            let wanted = Int(min(end - position, Int64(max(count, 262_144))))
            buffer = try source.bytes(at: position, count: wanted, path: path)
            bufferStart = position
            guard buffer.count >= count else {
                throw ArchiveError(.malformed, path: path, message: "damaged archive (zip): the file ended inside its central directory")
            }
        }
        let from = Int(position - bufferStart)
        position += Int64(count)
        return Array(buffer[from..<from + count])
    }
}

/// One member's data, as its central-directory entry describes it.
struct ZipMember {
    /// The local header's offset in the file (corrected).
    let local: Int64
    let compressed: Int64
    let uncompressed: Int64
    let method: Int
    let crc: UInt32

    /// Reads the data (stored or deflated), at most `limit` bytes once inflated, checking the
    /// size and the CRC the directory records. Data that runs into the central directory (or
    /// past the file), or overlaps a member read before, is damage: `.stopped`, with the
    /// reason in `work.failure`; so are inflating past the archive limit, a read of the file
    /// that fails and zlib that cannot be loaded (``ArchiveError/Kind/unreadable``).
    func read(_ source: ArchiveSource, directory: ZipDirectory, entry: (index: Int64, name: [UInt8]), limit: Int,
              work: inout ZipWork) -> ArchiveReader.DataRead {
        // For the damage's words only (escaping every name read would cost a long directory).
        var described: String { "entry \(entry.index) (\(DocumentSourceTreePath(bytes: entry.name).visible))" }
        // Inflate and the CRC need zlib: without it no entry can be read, and that is no fault
        // of the archive (SPEC §5: a library that cannot be loaded is 74), so the read ends.
        guard czlib_available() != 0 else {
            return work.stop(ArchiveError(.unreadable, path: work.path, message: String(cString: czlib_load_error())))
        }
        // Every offset and size here comes from the archive: each sum is checked, and the
        // data must end before the central directory (so within the file).
        guard local <= directory.start - 30 else {
            return work.stop(directory.damaged("the local header of \(described) is not before its central directory"))
        }
        let header: [UInt8]
        do throws(ArchiveError) {
            header = try source.bytes(at: local, count: 30, path: work.path)
        } catch {
            return work.stop(error)  // a read that failed (74): not the entry's fault
        }
        guard header.count == 30, LittleEndian.uint32(header, at: 0) == 0x0403_4B50 else {
            return .failed("its local header is missing or damaged")
        }
        // local + 30 + two 16-bit lengths: local is below the directory start, so no overflow.
        let dataStart = local + 30 + Int64(LittleEndian.uint16(header, at: 26)) + Int64(LittleEndian.uint16(header, at: 28))
        let dataEnd = dataStart.addingReportingOverflow(compressed)
        guard compressed >= 0, !dataEnd.overflow, dataEnd.partialValue <= directory.start else {
            return work.stop(directory.damaged("the data of \(described) runs into its central directory"))
        }
        // A zip bomb points many entries at one member's data: each read range is kept, and
        // one that overlaps another is damage, not a new member.
        guard work.ranges.insert(start: local, end: dataEnd.partialValue) else {
            return work.stop(directory.damaged("the data of \(described) overlaps another entry's"))
        }
        var output: [UInt8] = []
        switch method {
        case 0:
            guard compressed == uncompressed else { return .failed("stored data whose two sizes differ") }
            guard uncompressed <= Int64(limit) else { return .tooLarge(declared: uncompressed) }
            do throws(ArchiveError) {
                output = try source.bytes(at: dataStart, count: Int(compressed), path: work.path)
            } catch {
                return work.stop(error)
            }
            guard output.count == Int(compressed) else { return .failed("the file ends inside its data") }
        case 8:
            switch inflate(source, from: dataStart, to: dataEnd.partialValue, limit: limit, work: &work) {
            case .bytes(let bytes): output = bytes
            case let other: return other
            }
        default:
            return .failed("it uses compression method \(method), which is not read (only stored and deflated entries are)")
        }
        guard Int64(output.count) == uncompressed else {
            return .failed("its data is \(output.count) bytes, not the \(uncompressed) its directory entry says")
        }
        let sum = output.withUnsafeBufferPointer { buffer in
            UInt32(crc32(0, buffer.baseAddress, uInt(buffer.count)))
        }
        guard sum == crc else { return .failed("CRC mismatch (damaged data)") }
        return .bytes(output)
    }

    /// Inflates `start..<end`, at most `limit` bytes of output, each byte counted against the
    /// archive limit in `work`.
    private func inflate(_ source: ArchiveSource, from start: Int64, to end: Int64, limit: Int,
                         work: inout ZipWork) -> ArchiveReader.DataRead {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return .failed("zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var position = start
        var input: [UInt8] = []
        while true {
            if stream.avail_in == 0 {
                guard position < end else { return .failed("its compressed data ends early") }
                do throws(ArchiveError) {
                    input = try source.bytes(at: position, count: Int(min(65_536, end - position)), path: work.path)
                } catch {
                    return work.stop(error)
                }
                guard !input.isEmpty else { return .failed("the file ends inside its data") }
                position += Int64(input.count)
            }
            let (code, produced) = input.withUnsafeMutableBufferPointer { inputBuffer in
                chunk.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    if stream.avail_in == 0 {
                        stream.next_in = inputBuffer.baseAddress
                        stream.avail_in = uInt(inputBuffer.count)
                    } else {
                        // Continue where zlib stopped in this same buffer.
                        stream.next_in = inputBuffer.baseAddress! + (inputBuffer.count - Int(stream.avail_in))
                    }
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let code = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (code, out.count - Int(stream.avail_out))
                }
            }
            // The work is bounded per archive, not only per member: many members that each
            // inflate to just under the per-member bound add up.
            work.inflated += Int64(produced)
            guard work.inflated <= work.limit else { return work.stop(ArchiveReader.limitReached(work.limit, path: work.path)) }
            guard output.count + produced <= limit else { return .tooLarge(declared: nil) }
            output += chunk[0..<produced]
            switch code {
            case Z_STREAM_END: return .bytes(output)
            case Z_OK, Z_BUF_ERROR: continue
            default:
                let why = stream.msg.map { String(cString: $0) } ?? "code \(code)"
                return .failed("its compressed data is damaged (\(why))")
            }
        }
    }
}

/// What reading a zip's members has cost so far, and why the scan must end, if it must (issue
/// 24): the data ranges read, so that a member overlapping one read before is damage (a zip
/// bomb points thousands of entries at one member's data), and the bytes inflated, bounded by
/// the archive limit (``ArchiveScanner/Limits/maximumDecompressedSize``) as a tar's are.
struct ZipWork {
    /// The most bytes inflated in all.
    let limit: Int64
    /// The archive, for the limit's error.
    let path: DocumentSourceTreePath
    /// Bytes inflated so far (every member read, whatever came of it).
    var inflated: Int64 = 0
    /// The byte ranges of the members read so far (local header to the end of the data).
    var ranges = ZipDataRanges()
    /// Why the scan ends (damage or the limit), once it must.
    private(set) var failure: ArchiveError?

    init(limit: Int64, path: DocumentSourceTreePath) {
        self.limit = limit
        self.path = path
    }

    /// Ends the scan with `error`: the member's read gives `.stopped`.
    mutating func stop(_ error: ArchiveError) -> ArchiveReader.DataRead {
        failure = error
        return .stopped
    }
}

extension ArchiveSource {
    /// Up to `count` bytes at `offset` (fewer at the end of the file).
    func bytes(at offset: Int64, count: Int, path: DocumentSourceTreePath) throws(ArchiveError) -> [UInt8] {
        // Offsets and counts come from the archive: nothing past the end of the file is asked
        // for (so offset + done cannot overflow) nor allocated.
        guard offset >= 0, offset < size, count > 0 else { return [] }
        let count = Int(min(Int64(count), size - offset))
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                SystemCall.retrying { pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            }
            if n < 0 {
                throw ArchiveError(.unreadable, path: path, message: "cannot read the archive: " + Errno.current.words)
            }
            if n == 0 { break }
            done += n
        }
        if done < count { bytes.removeLast(count - done) }
        return bytes
    }
}

