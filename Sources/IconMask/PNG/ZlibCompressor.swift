internal import CDeflate
internal import CZlib

/// zlib-format compression for the PNG encoder, through libdeflate (whole buffer in one call)
/// or, for comparison, zlib's `deflate`.
enum ZlibCompressor {
    /// The library that compresses.
    enum Backend { case libdeflate, zlib }

    /// Compresses `data` into a zlib stream (RFC 1950).
    static func compress(_ data: [UInt8], level: Int = 6, backend: Backend = .libdeflate) throws(PNGError) -> [UInt8] {
        switch backend {
        case .libdeflate: return try compressLibdeflate(data, level: level)
        case .zlib: return try compressZlib(data, level: level)
        }
    }

    private static func compressLibdeflate(_ data: [UInt8], level: Int) throws(PNGError) -> [UInt8] {
        guard let compressor = libdeflate_alloc_compressor(Int32(level)) else {
            throw PNGError(message: "cannot compress image data: libdeflate could not allocate a compressor")
        }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_zlib_compress_bound(compressor, data.count)
        var out = [UInt8](repeating: 0, count: bound)
        let written = data.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                libdeflate_zlib_compress(compressor, src.baseAddress, src.count, dst.baseAddress, dst.count)
            }
        }
        guard written > 0 else {
            throw PNGError(message: "cannot compress image data: libdeflate found the output buffer too small")
        }
        out.removeSubrange(written...)
        return out
    }

    private static func compressZlib(_ data: [UInt8], level: Int) throws(PNGError) -> [UInt8] {
        var stream = z_stream()
        var rc = deflateInit2_(&stream, Int32(level), Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY,
                               ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw PNGError(message: "cannot compress image data: zlib deflateInit2 returned \(rc)") }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(data.count))))
        var input = data
        let outCount = out.count
        rc = input.withUnsafeMutableBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                stream.next_in = src.baseAddress
                stream.avail_in = UInt32(src.count)
                stream.next_out = dst.baseAddress
                stream.avail_out = UInt32(outCount)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard rc == Z_STREAM_END else {
            throw PNGError(message: "cannot compress image data: zlib deflate returned \(rc)")
        }
        out.removeSubrange(Int(stream.total_out)...)
        return out
    }
}
