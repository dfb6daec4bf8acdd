#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import CArchive
internal import XDSSystem
import XDocSource

/// A tar's compression, found by its magic bytes whatever the file's name says (SPEC §2), as
/// GNU tar and bsdtar find it: one filter at most, never one inside another.
struct TarCompression: Equatable {
    /// libarchive's filter code (`ARCHIVE_FILTER_GZIP`, …).
    let code: Int32
    /// Its name in messages and reports.
    let name: String

    static let gzip = TarCompression(code: ARCHIVE_FILTER_GZIP, name: "gzip")
    static let bzip2 = TarCompression(code: ARCHIVE_FILTER_BZIP2, name: "bzip2")
    static let xz = TarCompression(code: ARCHIVE_FILTER_XZ, name: "xz")
    static let zstd = TarCompression(code: ARCHIVE_FILTER_ZSTD, name: "zstd")
    static let lz4 = TarCompression(code: ARCHIVE_FILTER_LZ4, name: "lz4")
    static let lzip = TarCompression(code: ARCHIVE_FILTER_LZIP, name: "lzip")
    static let compress = TarCompression(code: ARCHIVE_FILTER_COMPRESS, name: "compress")
    static let lzma = TarCompression(code: ARCHIVE_FILTER_LZMA, name: "lzma")

    /// The compression of the file behind `source`, or nil for a plain tar (or data that is
    /// none of these: the tar reader then says what is wrong). `bytes(offset, count)` reads.
    static func detect(size: Int64, bytes: (Int64, Int) throws(ArchiveError) -> [UInt8]) throws(ArchiveError) -> TarCompression? {
        let head = try bytes(0, 512)
        func starts(_ magic: [UInt8]) -> Bool { head.starts(with: magic) }
        if starts([0x1F, 0x8B]) { return .gzip }
        if starts(Array("BZh".utf8)) { return .bzip2 }
        if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .xz }
        if starts(Array("LZIP".utf8)) { return .lzip }
        if starts([0x1F, 0x9D]) { return .compress }
        // zstd and lz4 frames, past skippable frames (0x184D2A50…5F, which both use).
        var at: Int64 = 0
        var frame = head
        for _ in 0..<1_000 where frame.count >= 4 {
            let magic = LittleEndian.uint32(frame, at: 0)
            if magic == 0xFD2F_B528 { return .zstd }
            if magic == 0x184D_2204 || magic == 0x184C_2102 { return .lz4 }
            guard magic & 0xFFFF_FFF0 == 0x184D_2A50, frame.count >= 8 else { break }
            at += 8 + Int64(LittleEndian.uint32(frame, at: 4))
            guard at < size else { break }
            frame = try bytes(at, 8)
        }
        // A plain tar: its first header's checksum holds (an lzma header could look like one).
        if head.count == 512, TarHeader.checksumHolds(head) { return nil }
        // lzma (alone) has no magic: its header, as libarchive's bidder checks it — the
        // properties byte, a dictionary size of 2^n or 2^n + 2^(n-1), and an uncompressed size
        // that is unknown (all ones) or plausible.
        if head.count >= 13, head[0] <= 224 {
            let dictionary = LittleEndian.uint32(head, at: 1)
            let bits = 32 - dictionary.leadingZeroBitCount
            let shapeOK = dictionary.nonzeroBitCount == 1
                || (dictionary.nonzeroBitCount == 2 && bits >= 2 && dictionary & (1 << (bits - 2)) != 0)
            let length = LittleEndian.uint64(head, at: 5)
            if shapeOK, dictionary >= 1 << 12, dictionary <= 1 << 30, length == UInt64.max || length < 1 << 40 {
                return .lzma
            }
        }
        return nil
    }
}

/// A tar's stream as it is decompressed: the file itself, or libarchive's raw-format reader
/// with the one filter (bidding bypassed), at most `limit` bytes.
final class TarStreamReader {
    private let source: ArchiveSource
    private let path: DocumentSourceTreePath
    private let limit: Int64
    private var archive: OpaquePointer?
    private var produced: Int64 = 0
    private let compression: TarCompression?

    init(source: ArchiveSource, path: DocumentSourceTreePath, compression: TarCompression?, limit: Int64) throws(ArchiveError) {
        self.source = source
        self.path = path
        self.compression = compression
        self.limit = limit
        guard let compression else { return }
        guard carchive_available() != 0 else {
            throw ArchiveError(.unreadable, path: path, message: String(cString: carchive_load_error()))
        }
        guard let archive = archive_read_new() else { throw ArchiveError(.unreadable, path: path, message: "out of memory") }
        self.archive = archive
        archive_read_support_format_raw(archive)
        // libarchive 3.6.2's compress decoder reads its header when it starts, which crashes
        // when it is appended before the archive is open: it is found by bidding instead, the
        // only filter offered (a compress stream inside one would be decompressed again).
        let added = compression == .compress ? archive_read_support_filter_compress(archive)
            : archive_read_append_filter(archive, compression.code)
        guard added == ARCHIVE_OK else {
            throw ArchiveError(.unreadable, path: path,
                               message: "cannot decompress \(compression.name) with this libarchive (\(words()))")
        }
        guard archive_read_open_fd(archive, source.descriptor, 65_536) == ARCHIVE_OK else {
            throw failure("not a readable archive")
        }
        var entry: OpaquePointer?
        let status = archive_read_next_header(archive, &entry)
        // An empty compressed stream is an empty archive.
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN || status == ARCHIVE_EOF else {
            throw failure("not a readable archive")
        }
        if status == ARCHIVE_EOF { archive_read_free(archive); self.archive = nil; finished = true }
    }

    private var finished = false

    deinit { if let archive { archive_read_free(archive) } }

    private func words() -> String {
        ArchiveReader.sentence(archive.flatMap { archive_error_string($0) }.map { String(cString: $0) } ?? "it ends early or is damaged")
    }

    private func failure(_ doing: String) -> ArchiveError {
        ArchiveError(.malformed, path: path, message: "\(doing) (tar, \(compression?.name ?? "plain")): \(words())")
    }

    /// Fills `buffer` with the next bytes; 0 at the end of the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        if finished { return 0 }
        let count: Int
        if let archive {
            let n = archive_read_data(archive, buffer.baseAddress, buffer.count)
            if n < 0 { throw failure("damaged archive") }
            count = n
        } else {
            let n = SystemCall.retrying { readDescriptor(source.descriptor, buffer.baseAddress, buffer.count) }
            if n < 0 { throw ArchiveError(.unreadable, path: path, message: "cannot read the archive: " + Errno.current.words) }
            count = n
        }
        if count == 0 { finished = true }
        produced += Int64(count)
        if compression != nil, produced > limit { throw ArchiveReader.limitReached(limit, path: path) }
        return count
    }
}

/// `read(2)` (the name is taken inside TarStreamReader).
private func readDescriptor(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// libarchive's raw-format writer with one compression filter, over a descriptor.
final class TarStreamWriter {
    private let archive: OpaquePointer

    init(descriptor: Int32, compression: TarCompression, path: DocumentSourceTreePath) throws(ArchiveCopyError) {
        guard carchive_available() != 0 else {
            throw .archive(ArchiveError(.unreadable, path: path, message: String(cString: carchive_load_error())))
        }
        guard let archive = archive_write_new() else {
            throw .archive(ArchiveError(.unreadable, path: path, message: "out of memory"))
        }
        self.archive = archive
        func failed() -> ArchiveCopyError {
            let words = ArchiveReader.sentence(archive_error_string(archive).map { String(cString: $0) } ?? "unknown error")
            return .archive(ArchiveError(.unreadable, path: path,
                                         message: "cannot compress \(compression.name) with this libarchive (\(words))"))
        }
        guard archive_write_add_filter(archive, compression.code) == ARCHIVE_OK,
              archive_write_set_format_raw(archive) == ARCHIVE_OK else { throw failed() }
        // No time stamp in the gzip header: the same archive gives the same copy.
        if compression == .gzip { _ = archive_write_set_filter_option(archive, "gzip", "timestamp", nil) }
        // Blocks of 10 KiB, the last one not padded.
        archive_write_set_bytes_per_block(archive, 10_240)
        archive_write_set_bytes_in_last_block(archive, 1)
        guard archive_write_open_fd(archive, descriptor) == ARCHIVE_OK else { throw outputFailure() }
        guard let entry = archive_entry_new() else { throw failed() }
        defer { archive_entry_free(entry) }
        archive_entry_set_filetype(entry, 0o100000)  // AE_IFREG: the raw writer takes one file
        guard archive_write_header(archive, entry) == ARCHIVE_OK else { throw outputFailure() }
    }

    deinit { archive_write_free(archive) }

    private func outputFailure() -> ArchiveCopyError {
        let words = ArchiveReader.sentence(archive_error_string(archive).map { String(cString: $0) } ?? "unknown error")
        return .output(words, errorNumber: EIO)
    }

    func write(_ buffer: UnsafeRawBufferPointer) throws(ArchiveCopyError) {
        var done = 0
        while done < buffer.count {
            let n = archive_write_data(archive, buffer.baseAddress! + done, buffer.count - done)
            guard n > 0 else { throw outputFailure() }
            done += n
        }
    }

    /// Flushes the compressor and its last block.
    func finish() throws(ArchiveCopyError) {
        guard archive_write_close(archive) == ARCHIVE_OK else { throw outputFailure() }
    }
}
