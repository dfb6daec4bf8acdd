internal import CZlib

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

    /// Fills exactly `count` bytes at `out` with the next inflated data.
    func read(into out: UnsafeMutablePointer<UInt8>, count: Int) throws(PNGError) {
        stream.pointee.next_out = out
        stream.pointee.avail_out = UInt32(count)
        while stream.pointee.avail_out > 0 {
            if ended { throw short() }
            if stream.pointee.avail_in == 0 {
                guard next < ranges.count else { throw short() }
                stream.pointee.next_in = UnsafeMutablePointer(mutating: file.baseAddress! + ranges[next].lowerBound)
                stream.pointee.avail_in = UInt32(ranges[next].count)
                next += 1
            }
            let code = inflate(stream, Z_NO_FLUSH)
            switch code {
            case Z_STREAM_END: ended = true
            case Z_OK, Z_BUF_ERROR: continue
            default:
                let why = stream.pointee.msg.map { String(cString: $0) } ?? "code \(code)"
                throw PNGError(.imageData, "image data is not a valid \(name) stream (\(why))")
            }
        }
    }

    /// Checks, once every row is read, that the stream ends here with nothing more to inflate.
    func finish() throws(PNGError) {
        var scratch: UInt8 = 0
        while !ended {
            if stream.pointee.avail_in == 0 {
                guard next < ranges.count else {
                    throw PNGError(.imageData, "image data is not a valid \(name) stream (it ends early)")
                }
                stream.pointee.next_in = UnsafeMutablePointer(mutating: file.baseAddress! + ranges[next].lowerBound)
                stream.pointee.avail_in = UInt32(ranges[next].count)
                next += 1
            }
            let code = withUnsafeMutablePointer(to: &scratch) { p -> Int32 in
                stream.pointee.next_out = p
                stream.pointee.avail_out = 1
                return inflate(stream, Z_NO_FLUSH)
            }
            if stream.pointee.avail_out == 0 {
                throw PNGError(.imageData, "image data inflates to more than the \(expected) bytes the header implies")
            }
            switch code {
            case Z_STREAM_END: ended = true
            case Z_OK, Z_BUF_ERROR: continue
            default:
                let why = stream.pointee.msg.map { String(cString: $0) } ?? "code \(code)"
                throw PNGError(.imageData, "image data is not a valid \(name) stream (\(why))")
            }
        }
    }

    private func short() -> PNGError {
        PNGError(.imageData, "image data inflates to \(stream.pointee.total_out) bytes, fewer than the \(expected) the header implies")
    }
}
