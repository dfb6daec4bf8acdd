#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import CArchive
internal import XDSSystem
import XDocSource

/// A tar's stream as it is decompressed: the file itself, or libarchive's raw-format reader
/// with the one filter (bidding bypassed), at most `limit` bytes.
final class TarStreamReader {
    private let source: ArchiveSource
    private let path: DocumentSourceTreePath
    private let limit: Int64
    private var archive: OpaquePointer?
    private var produced: Int64 = 0
    private let compression: TarCompression

    /// Reads `source` from its start; a stream of `compression` (found by
    /// ``TarCompression/detect(reading:)``) is decompressed, at most `limit` bytes.
    init(source: ArchiveSource, path: DocumentSourceTreePath, compression: TarCompression, limit: Int64) throws(ArchiveError) {
        self.source = source
        self.path = path
        self.compression = compression
        self.limit = limit
        guard compression != .none else { return }
        guard carchive_available() != 0 else {
            throw ArchiveError(.unreadable, path: path, message: String(cString: carchive_load_error()))
        }
        guard let archive = archive_read_new() else { throw ArchiveError(.unreadable, path: path, message: "out of memory") }
        self.archive = archive
        archive_read_support_format_raw(archive)
        archive_read_support_format_empty(archive)  // an empty compressed stream is an empty tar
        // As ArchiveReader: compress by bidding, the only bidder (libarchive 3.6.2 crashes when
        // it is appended before the open), a second layer of it refused; the others appended.
        let added = compression == .compress ? archive_read_support_filter_compress(archive)
            : archive_read_append_filter(archive, compression.filterCode)
        guard added == ARCHIVE_OK else {
            throw ArchiveError(.unreadable, path: path,
                               message: "cannot decompress \(compression.rawValue) with this libarchive (\(words()))")
        }
        guard archive_read_open_fd(archive, source.descriptor, 65_536) == ARCHIVE_OK else {
            throw failure("not a readable archive")
        }
        // The formats are bid for in the open: the empty format also wins when the decoder
        // failed before its first byte (a gzip stream cut short, decoded in one buffer), and
        // only the error the decoder left says so (or, gzip's trailer cut, EmptyStreamCheck).
        let decoderFailure = archive_error_string(archive) != nil ? failure("damaged archive") : nil
        if compression == .compress, archive_filter_count(archive) > 2 {
            throw ArchiveError(.malformed, path: path,
                               message: "not a readable archive (tar): compress data inside compress data (decompressed once only)")
        }
        var entry: OpaquePointer?
        let status = archive_read_next_header(archive, &entry)
        // An empty compressed stream is an empty archive.
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN || status == ARCHIVE_EOF else {
            throw failure("not a readable archive")
        }
        if status == ARCHIVE_EOF {
            if let decoderFailure { throw decoderFailure }
            if let words = try EmptyStreamCheck.damage(archive, compression: compression, source: source, path: path) {
                throw ArchiveError(.malformed, path: path,
                                   message: "damaged archive (tar, \(compression.rawValue)): \(ArchiveReader.sentence(words))")
            }
            archive_read_free(archive)
            self.archive = nil
            finished = true
        }
    }

    private var finished = false

    deinit { if let archive { archive_read_free(archive) } }

    private func words() -> String {
        ArchiveReader.sentence(archive.flatMap { archive_error_string($0) }.map { String(cString: $0) } ?? "it ends early or is damaged")
    }

    private func failure(_ doing: String) -> ArchiveError {
        ArchiveError(.malformed, path: path, message: "\(doing) (tar, \(compression.rawValue)): \(words())")
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
        if compression != .none, produced > limit { throw ArchiveReader.limitReached(limit, path: path) }
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
                                         message: "cannot compress \(compression.rawValue) with this libarchive (\(words))"))
        }
        guard archive_write_add_filter(archive, compression.filterCode) == ARCHIVE_OK,
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
