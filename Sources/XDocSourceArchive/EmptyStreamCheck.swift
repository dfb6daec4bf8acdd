internal import CArchive
internal import CZlib
import XDocSource

/// Tells an empty compressed stream (an empty archive) from a damaged one that libarchive read
/// as empty. Its "empty" format wins the bid whenever the decoder gives no byte, and a decoder
/// that fails on its first buffer gives none: most leave words, but gzip's fails without any
/// when a member's 8-byte trailer is cut short, and drops what it decoded (libarchive 3.6.2,
/// `consume_trailer`). So a small `.tar.gz` cut in its last bytes listed as an empty archive
/// and cleaned into an empty copy. The tar reader and the clean copy's stream share this check.
enum EmptyStreamCheck {
    /// Why a compressed stream that libarchive read as an empty archive is damaged, nil when it
    /// is empty (or was not compressed, or not read as empty). Call after the first header call
    /// gave `ARCHIVE_EOF`; the decoders that leave words are checked right after the open (the
    /// header call clears them).
    static func damage(_ archive: OpaquePointer, compression: TarCompression, source: ArchiveSource,
                       path: DocumentSourceTreePath) throws(ArchiveError) -> String? {
        guard compression == .gzip, archive_format(archive) == ARCHIVE_FORMAT_EMPTY else { return nil }
        return try gzipDamage(source, path: path)
    }

    /// Reads the gzip members from the file's start with zlib, which checks each trailer (CRC
    /// and size): nil when each ends with its trailer and gives no byte, as libarchive's
    /// decoder read them; else libarchive's own words for a cut ("truncated gzip input") or
    /// zlib's. Bytes after the members that start no gzip member are left, as libarchive leaves
    /// them. Stops at the first byte of output, so it holds at most one 64 KiB read.
    static func gzipDamage(_ source: ArchiveSource, path: DocumentSourceTreePath) throws(ArchiveError) -> String? {
        // Without zlib nothing can be told (SPEC §5: a library that cannot be loaded is 74).
        guard czlib_available() != 0 else { throw ArchiveError(.unreadable, path: path, message: String(cString: czlib_load_error())) }
        var offset: Int64 = 0
        var output = [UInt8](repeating: 0, count: 1)
        while true {
            let magic = try source.bytes(at: offset, count: 2, path: path)
            guard magic == [0x1F, 0x8B] else { return nil }
            var stream = z_stream()
            // 15 + 16: a gzip header and trailer around the deflate data.
            guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                return "zlib could not start"
            }
            defer { inflateEnd(&stream) }
            var code = Z_OK
            while code != Z_STREAM_END {
                var input = try source.bytes(at: offset, count: 65_536, path: path)
                guard !input.isEmpty else { return "truncated gzip input" }
                let (status, taken, produced) = input.withUnsafeMutableBufferPointer { inputBuffer in
                    output.withUnsafeMutableBufferPointer { out -> (Int32, Int, Int) in
                        stream.next_in = inputBuffer.baseAddress
                        stream.avail_in = uInt(inputBuffer.count)
                        stream.next_out = out.baseAddress
                        stream.avail_out = uInt(out.count)
                        let status = inflate(&stream, Z_NO_FLUSH)
                        return (status, inputBuffer.count - Int(stream.avail_in), out.count - Int(stream.avail_out))
                    }
                }
                // A byte that libarchive did not give: it failed after decoding it.
                guard produced == 0 else { return "truncated gzip input" }
                guard status == Z_OK || status == Z_STREAM_END || (status == Z_BUF_ERROR && taken > 0) else {
                    return "gzip decompression failed (" + (stream.msg.map { String(cString: $0) } ?? "code \(status)") + ")"
                }
                offset += Int64(taken)
                code = status
            }
        }
    }
}
