internal import CDeflate
internal import CZlib

// The one file of IconMask that reaches zlib and libdeflate (Package.swift: each C library
// from one Swift file per module): whole-buffer inflate, streaming inflate, and the compressor.

// MARK: - Inflate

/// Which DEFLATE implementation decompresses the image data. Both are system libraries;
/// libdeflate is the default because it is faster (whole-buffer, exact output size known
/// from IHDR); zlib streams the IDAT chunks without joining them.
@_spi(Benchmark)
public enum Inflater: Sendable, CaseIterable {
    /// libdeflate 1.x, `libdeflate_zlib_decompress` / `libdeflate_deflate_decompress`.
    case libdeflate
    /// zlib, `inflateInit2_` / `inflate`.
    case zlib
}

/// Loads libdeflate and zlib (on first use: CDeflate, CZlib) or says why they cannot be; every
/// PNG decoded or encoded needs both (CRCs and whole-buffer inflate, streaming inflate).
func requireCompressionLibraries() throws(PNGError) {
    if cdeflate_available() == 0 {
        throw PNGError(.libraryUnavailable, String(cString: cdeflate_load_error()))
    }
    if czlib_available() == 0 {
        throw PNGError(.libraryUnavailable, String(cString: czlib_load_error()))
    }
}

/// CRC-32 (the PNG/zlib polynomial) of `count` bytes, via libdeflate's vectorised routine.
@inline(__always)
func crc32(_ p: UnsafePointer<UInt8>, count: Int) -> UInt32 {
    UInt32(truncatingIfNeeded: libdeflate_crc32(0, p, count))
}

extension Inflater {
    /// Inflates the concatenation of `ranges` of `file` into exactly `count` bytes at `out`.
    /// `raw` selects a bare DEFLATE stream (CgBI) instead of the zlib wrapper with Adler-32.
    /// Throws if the data is corrupt or inflates to more or fewer than `count` bytes.
    func inflate(_ file: UnsafeBufferPointer<UInt8>, ranges: [Range<Int>], raw: Bool,
                 into out: UnsafeMutablePointer<UInt8>, count: Int) throws(PNGError) {
        guard !ranges.isEmpty else {
            throw PNGError(.imageData, "image data is empty: the IDAT chunks hold no bytes")
        }
        switch self {
        case .libdeflate: try Self.libdeflate(file, ranges, raw, out, count)
        case .zlib: try Self.zlib(file, ranges, raw, out, count)
        }
    }

    private static func streamName(_ raw: Bool) -> String { raw ? "raw deflate (CgBI)" : "zlib" }

    private static func libdeflate(_ file: UnsafeBufferPointer<UInt8>, _ ranges: [Range<Int>], _ raw: Bool,
                                   _ out: UnsafeMutablePointer<UInt8>, _ count: Int) throws(PNGError) {
        guard let decompressor = libdeflate_alloc_decompressor() else {
            throw PNGError(.imageData, "cannot allocate a libdeflate decompressor")
        }
        defer { libdeflate_free_decompressor(decompressor) }
        let base = file.baseAddress!
        // libdeflate needs one contiguous input: use the file in place when there is one
        // IDAT, else join the chunks (bounded by the file size).
        var joined: UnsafeMutableBufferPointer<UInt8>?
        defer { joined?.deallocate() }
        var input = UnsafeRawPointer(base + ranges[0].lowerBound)
        var inputCount = ranges[0].count
        if ranges.count > 1 {
            let total = ranges.reduce(0) { $0 + $1.count }
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: total)
            joined = buffer
            var at = 0
            for r in ranges {
                (buffer.baseAddress! + at).update(from: base + r.lowerBound, count: r.count)
                at += r.count
            }
            input = UnsafeRawPointer(buffer.baseAddress!)
            inputCount = total
        }
        var produced = 0
        let result = raw
            ? libdeflate_deflate_decompress(decompressor, input, inputCount, out, count, &produced)
            : libdeflate_zlib_decompress(decompressor, input, inputCount, out, count, &produced)
        switch result {
        case LIBDEFLATE_SUCCESS:
            guard produced == count else {
                throw PNGError(.imageData, "image data inflates to \(produced) bytes, fewer than the \(count) the header implies")
            }
        case LIBDEFLATE_INSUFFICIENT_SPACE:
            throw PNGError(.imageData, "image data inflates to more than the \(count) bytes the header implies")
        default:
            throw PNGError(.imageData, "image data is not a valid \(streamName(raw)) stream (corrupt or truncated, or checksum mismatch)")
        }
    }

    private static func zlib(_ file: UnsafeBufferPointer<UInt8>, _ ranges: [Range<Int>], _ raw: Bool,
                             _ out: UnsafeMutablePointer<UInt8>, _ count: Int) throws(PNGError) {
        var stream = z_stream()
        // The inflateInit2 macro does not import; call the real entry point.
        let initCode = inflateInit2_(&stream, raw ? -15 : 15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard initCode == Z_OK else {
            throw PNGError(.imageData, "zlib inflateInit2 failed (code \(initCode))")
        }
        defer { inflateEnd(&stream) }
        let base = UnsafeMutablePointer(mutating: file.baseAddress!)
        var remainingOut = count
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        defer { scratch.deallocate() }
        stream.next_out = out
        var ended = false
        for r in ranges where !ended {
            stream.next_in = base + r.lowerBound
            stream.avail_in = UInt32(r.count)
            while stream.avail_in > 0 && !ended {
                // Hand zlib at most what IHDR implies (avail_out is 32-bit), then a 1-byte
                // scratch buffer: any byte written there means the data is too long.
                if stream.avail_out == 0 {
                    if remainingOut > 0 {
                        let step = min(remainingOut, Int(UInt32.max))
                        stream.avail_out = UInt32(step)
                        remainingOut -= step
                    } else {
                        stream.next_out = scratch
                        stream.avail_out = 1
                    }
                }
                let code = CZlib.inflate(&stream, Z_NO_FLUSH)
                if stream.total_out > UInt(count) {
                    throw PNGError(.imageData, "image data inflates to more than the \(count) bytes the header implies")
                }
                switch code {
                case Z_STREAM_END: ended = true
                case Z_OK, Z_BUF_ERROR: continue
                default:
                    let why = stream.msg.map { String(cString: $0) } ?? "code \(code)"
                    throw PNGError(.imageData, "image data is not a valid \(streamName(raw)) stream (\(why))")
                }
            }
        }
        if !ended && stream.total_out == UInt(count) {
            // All pixels arrived; check that nothing but the end of the stream follows.
            stream.next_out = scratch
            stream.avail_out = 1
            let code = CZlib.inflate(&stream, Z_FINISH)
            if stream.total_out > UInt(count) {
                throw PNGError(.imageData, "image data inflates to more than the \(count) bytes the header implies")
            }
            ended = code == Z_STREAM_END
        }
        guard stream.total_out == UInt(count) else {
            throw PNGError(.imageData, "image data inflates to \(stream.total_out) bytes, fewer than the \(count) the header implies")
        }
        guard ended else {
            throw PNGError(.imageData, "image data is not a valid \(streamName(raw)) stream (it ends early)")
        }
    }
}

// MARK: - Streaming inflate

/// zlib inflating the IDAT chunks a few rows at a time, so the general decoder needs no
/// buffer for the whole filtered image (8 bytes a pixel for 16-bit RGBA, twice the RGBA8
/// output). Used when that buffer would be large; whole-buffer libdeflate is faster otherwise.
final class StreamingInflate {
    // On the heap: zlib keeps a pointer back to the z_stream and refuses one that has moved.
    private let stream: UnsafeMutablePointer<z_stream>
    private let file: UnsafeBufferPointer<UInt8>
    private let ranges: [Range<Int>]
    private var next = 0
    private let raw: Bool
    private let expected: Int
    private var ended = false
    private var initialised = false

    /// Starts inflating the concatenation of `ranges` of `file`, which must inflate to exactly
    /// `count` bytes. `raw`: a bare DEFLATE stream (CgBI).
    init(_ file: UnsafeBufferPointer<UInt8>, ranges: [Range<Int>], raw: Bool, count: Int) throws(PNGError) {
        guard !ranges.isEmpty else {
            throw PNGError(.imageData, "image data is empty: the IDAT chunks hold no bytes")
        }
        self.file = file
        self.ranges = ranges
        self.raw = raw
        self.expected = count
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // The inflateInit2 macro does not import; call the real entry point.
        let code = inflateInit2_(stream, raw ? -15 : 15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        initialised = code == Z_OK
        guard initialised else {
            throw PNGError(.imageData, "zlib inflateInit2 failed (code \(code))")
        }
    }

    deinit {
        if initialised { inflateEnd(stream) }
        stream.deallocate()
    }

    private var name: String { raw ? "raw deflate (CgBI)" : "zlib" }

    /// Gives the stream the next IDAT chunk's bytes; false when there is none left.
    private func feed() -> Bool {
        guard next < ranges.count else { return false }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: file.baseAddress! + ranges[next].lowerBound)
        stream.pointee.avail_in = UInt32(ranges[next].count)
        next += 1
        return true
    }

    /// What one `inflate` call's `code` means: the stream's end, more to do, or damage.
    private func step(_ code: Int32) throws(PNGError) {
        switch code {
        case Z_STREAM_END: ended = true
        case Z_OK, Z_BUF_ERROR: break
        default:
            let why = stream.pointee.msg.map { String(cString: $0) } ?? "code \(code)"
            throw PNGError(.imageData, "image data is not a valid \(name) stream (\(why))")
        }
    }

    /// Fills exactly `count` bytes at `out` with the next inflated data.
    func read(into out: UnsafeMutablePointer<UInt8>, count: Int) throws(PNGError) {
        stream.pointee.next_out = out
        stream.pointee.avail_out = UInt32(count)
        while stream.pointee.avail_out > 0 {
            if ended { throw short() }
            if stream.pointee.avail_in == 0 {
                guard feed() else { throw short() }
            }
            let code = inflate(stream, Z_NO_FLUSH)
            try step(code)
        }
    }

    /// Checks, once every row is read, that the stream ends here with nothing more to inflate.
    func finish() throws(PNGError) {
        var scratch: UInt8 = 0
        while !ended {
            if stream.pointee.avail_in == 0 {
                guard feed() else {
                    throw PNGError(.imageData, "image data is not a valid \(name) stream (it ends early)")
                }
            }
            let code = withUnsafeMutablePointer(to: &scratch) { p -> Int32 in
                stream.pointee.next_out = p
                stream.pointee.avail_out = 1
                return inflate(stream, Z_NO_FLUSH)
            }
            if stream.pointee.avail_out == 0 {
                throw PNGError(.imageData, "image data inflates to more than the \(expected) bytes the header implies")
            }
            try step(code)
        }
    }

    private func short() -> PNGError {
        PNGError(.imageData, "image data inflates to \(stream.pointee.total_out) bytes, fewer than the \(expected) the header implies")
    }
}

// MARK: - Compressor

/// zlib-format compression for the PNG encoder, through libdeflate (whole buffer in one call)
/// or, for comparison, zlib's `deflate`.
enum ZlibCompressor {
    /// The library that compresses.
    enum Backend { case libdeflate, zlib }

    /// Compresses `data` into a zlib stream (RFC 1950).
    static func compress(_ data: [UInt8], level: Int = 6, backend: Backend = .libdeflate) throws(PNGError) -> [UInt8] {
        try requireCompressionLibraries()
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
