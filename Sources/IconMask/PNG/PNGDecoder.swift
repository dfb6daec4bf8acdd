/// Decodes PNG files, including Apple's CgBI variant, into straight-alpha RGBA8 pixels.
///
/// Chunk parsing, unfiltering, de-interlacing and pixel conversion are Swift; DEFLATE is
/// libdeflate (see `Inflater`). Every size is checked against `IHDR` and the caller's limit
/// before anything is allocated for the image, so hostile headers cost nothing.
///
/// Decisions where PNG leaves room: ancillary chunks are skipped without a CRC check, except
/// `tRNS`, which is ignored (as libpng does) when its CRC, length or position is wrong; a
/// palette index past the end of `PLTE` is refused (the PNG spec calls it an error);
/// `PLTE` in an RGB(A) image is ignored; IDAT chunks must be consecutive; data after the end
/// of the deflate stream inside IDAT is ignored; anything after `IEND` is ignored.
public enum PNGDecoder {
    /// The largest width or height ``decode(_:maxDimension:)`` accepts unless told otherwise:
    /// 8192 px, the one input limit of `xds mask`, `xds icon` and app bundle icons.
    public static let defaultMaxDimension = 8192

    /// Decodes a whole PNG file held in memory into straight-alpha RGBA8 pixels.
    /// - Parameters:
    ///   - bytes: The complete file.
    ///   - maxDimension: The largest width or height accepted; larger images are refused
    ///     as soon as `IHDR` is read, before any allocation for pixels.
    /// - Returns: The image; 16-bit samples are rounded to 8 bits, CgBI pixels are swapped
    ///   to RGBA and un-premultiplied.
    /// - Throws: ``PNGError`` with a one-line description of the first problem found.
    public static func decode(_ bytes: [UInt8], maxDimension: Int = defaultMaxDimension) throws(PNGError) -> RGBAImage {
        try decode(bytes, maxDimension: maxDimension, inflater: .libdeflate)
    }

    /// Reads only the signature, the optional `CgBI` chunk and `IHDR`.
    /// - Parameter bytes: The file, or at least its first 45 bytes (57 for CgBI).
    /// - Returns: The validated header.
    /// - Throws: ``PNGError`` for a bad signature, a missing, corrupt or invalid `IHDR`.
    public static func header(_ bytes: [UInt8]) throws(PNGError) -> PNGHeader {
        try bytes.withUnsafeBufferPointer { (file) throws(PNGError) in try PNGLayout.header(file).0 }
    }

    /// ``decode(_:maxDimension:)`` with a choice of DEFLATE library, for measurements.
    @_spi(Benchmark)
    public static func decode(_ bytes: [UInt8], maxDimension: Int = defaultMaxDimension, inflater: Inflater) throws(PNGError) -> RGBAImage {
        try bytes.withUnsafeBufferPointer { (file) throws(PNGError) in
            let layout = try PNGLayout(file, maxDimension: maxDimension)
            return try decode(layout, file, inflater, streamingThreshold: streamingThreshold)
        }
    }

    /// ``decode(_:maxDimension:)`` streaming any general-path image whose filtered data is over
    /// `streamingThreshold` bytes (tests force the streaming path with 0).
    static func decode(_ bytes: [UInt8], maxDimension: Int = defaultMaxDimension, streamingThreshold: Int) throws(PNGError) -> RGBAImage {
        try bytes.withUnsafeBufferPointer { (file) throws(PNGError) in
            let layout = try PNGLayout(file, maxDimension: maxDimension)
            return try decode(layout, file, .libdeflate, streamingThreshold: streamingThreshold)
        }
    }

    private static func decode(_ layout: PNGLayout, _ file: UnsafeBufferPointer<UInt8>,
                               _ inflater: Inflater, streamingThreshold: Int) throws(PNGError) -> RGBAImage {
        let header = layout.header
        let width = header.width, height = header.height
        // w, h ≤ 2^31−1 from IHDR; refuse what cannot be addressed (16 bytes a pixel covers
        // the largest filtered row plus the output) rather than overflow.
        guard Double(width) * Double(height) * 16 < 0x1p60 else {
            throw PNGError(.tooLarge, "image is \(width)×\(height) px, too large to decode")
        }
        let passes = Pass.passes(header)
        let filteredSize = passes.reduce(0) { $0 + $1.filteredSize(header) }
        let outputSize = width * height * 4
        // DEFLATE expands at most 1032:1, so too little data is refused before the (possibly
        // huge) buffer is allocated.
        let compressedSize = layout.imageData.reduce(0) { $0 + $1.count }
        guard compressedSize * 1040 + 1024 >= filteredSize else {
            throw PNGError(.imageData, "image data is only \(compressedSize) bytes, too little to inflate to the \(filteredSize) bytes the header implies")
        }
        let raw = header.isCgBI

        var failure: PNGError?
        var pixels: [UInt8]
        if !header.interlaced && header.bitDepth == 8 && (header.colourType == .rgba || header.colourType == .rgb) {
            // Fast paths: one buffer, inflated into, unfiltered and laid out as RGBA in place.
            let rgba = header.colourType == .rgba
            let capacity = max(filteredSize, outputSize)
            pixels = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                let base = buffer.baseAddress!
                prepareLargeBuffer(base, count: capacity)
                do throws(PNGError) {
                    if rgba {
                        try inflater.inflate(file, ranges: layout.imageData, raw: raw, into: base, count: filteredSize)
                        try unfilterRGBA8InPlace(base, width: width, height: height)
                    } else {
                        // RGB data sits at the end of the final-size buffer so that writing
                        // pixel i (bytes 4i…4i+3) never reaches unread input (see unfilterRGB8ToRGBA).
                        let offset = outputSize - filteredSize
                        try inflater.inflate(file, ranges: layout.imageData, raw: raw, into: base + offset, count: filteredSize)
                        try unfilterRGB8ToRGBA(base, offset: offset, width: width, height: height)
                    }
                    initialized = outputSize
                } catch {
                    failure = error
                    initialized = 0
                }
            }
            if let failure { throw failure }
            if !rgba, let t = layout.transparency {
                applyRGBKey(&pixels, file.baseAddress! + t.lowerBound)
            }
        } else {
            pixels = try decodeGeneral(layout, file, inflater, passes: passes, filteredSize: filteredSize,
                                   streamingThreshold: streamingThreshold)
        }
        if raw { straightenCgBI(&pixels, hasAlpha: header.colourType == .rgba) }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// Any format: inflate into a scratch buffer, unfilter each pass in place, then convert
    /// (and scatter, for Adam7) into the output.
    private static func decodeGeneral(_ layout: PNGLayout, _ file: UnsafeBufferPointer<UInt8>, _ inflater: Inflater,
                                      passes: [Pass], filteredSize: Int, streamingThreshold: Int) throws(PNGError) -> [UInt8] {
        if filteredSize > streamingThreshold {
            return try decodeStreaming(layout, file, passes: passes, filteredSize: filteredSize)
        }
        let header = layout.header
        let width = header.width
        let data = UnsafeMutablePointer<UInt8>.allocate(capacity: filteredSize)
        defer { data.deallocate() }
        prepareLargeBuffer(data, count: filteredSize)
        try inflater.inflate(file, ranges: layout.imageData, raw: header.isCgBI, into: data, count: filteredSize)
        let converter = RowConverter(header: header, file: file, palette: layout.palette, transparency: layout.transparency)
        var failure: PNGError?
        let pixels = [UInt8](unsafeUninitializedCapacity: width * header.height * 4) { buffer, initialized in
            let out = buffer.baseAddress!
            prepareLargeBuffer(out, count: buffer.count)
            var at = 0
            do throws(PNGError) {
                for (index, pass) in passes.enumerated() where pass.width > 0 && pass.height > 0 {
                    let rowBytes = header.rowBytes(pass.width)
                    var prior: UnsafePointer<UInt8>? = nil
                    for y in 0..<pass.height {
                        let row = data + at + 1
                        try decodeRow(row, filter: data[at], prior: prior, y: y, pass: pass, passIndex: index,
                                      header: header, rowBytes: rowBytes, converter: converter, out: out)
                        prior = UnsafePointer(row)
                        at += 1 + rowBytes
                    }
                }
                initialized = buffer.count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return pixels
    }

    /// Unfilters one row in place and converts it into its place in the output (an Adam7 pass
    /// scatters with its step): the per-row step both decode paths share.
    @inline(__always)
    private static func decodeRow(_ row: UnsafeMutablePointer<UInt8>, filter: UInt8, prior: UnsafePointer<UInt8>?,
                                  y: Int, pass: Pass, passIndex: Int, header: PNGHeader, rowBytes: Int,
                                  converter: RowConverter, out: UnsafeMutablePointer<UInt8>) throws(PNGError) {
        guard filter <= 4 else {
            throw PNGError(.filter, header.interlaced
                ? "bad filter type \(filter) in row \(y) of Adam7 pass \(passIndex + 1)"
                : "bad filter type \(filter) in row \(y)")
        }
        let stride = header.filterStride
        if stride == 4 {
            unfilterRow4(filter, source: row, destination: row, prior: prior, count: rowBytes)
        } else {
            unfilterRow(filter, source: row, destination: row, prior: prior, count: rowBytes, stride: stride)
        }
        let outRow = out + ((pass.y0 + y * pass.dy) * header.width + pass.x0) * 4
        try converter.convert(row: row, count: pass.width, out: outRow, step: pass.dx)
    }

    /// Filtered data larger than this is inflated a row at a time (``decodeStreaming``)
    /// instead of into one buffer: 16 MiB keeps the whole-buffer path (and libdeflate's speed)
    /// for every image up to 2048 px at 8 bytes a pixel, and bounds the decoder's extra memory.
    static let streamingThreshold = 16 << 20

    /// ``decodeGeneral`` with zlib inflating one row at a time into two row buffers, unfiltered
    /// and converted straight into the output: no buffer for the whole filtered data.
    private static func decodeStreaming(_ layout: PNGLayout, _ file: UnsafeBufferPointer<UInt8>,
                                        passes: [Pass], filteredSize: Int) throws(PNGError) -> [UInt8] {
        let header = layout.header
        let width = header.width
        let stream = try StreamingInflate(file, ranges: layout.imageData, raw: header.isCgBI, count: filteredSize)
        let converter = RowConverter(header: header, file: file, palette: layout.palette, transparency: layout.transparency)
        let widest = passes.map { header.rowBytes($0.width) }.max() ?? 0
        let rows = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * (widest + 1))
        defer { rows.deallocate() }
        var failure: PNGError?
        let pixels = [UInt8](unsafeUninitializedCapacity: width * header.height * 4) { buffer, initialized in
            let out = buffer.baseAddress!
            prepareLargeBuffer(out, count: buffer.count)
            do throws(PNGError) {
                for (index, pass) in passes.enumerated() where pass.width > 0 && pass.height > 0 {
                    let rowBytes = header.rowBytes(pass.width)
                    var current = rows, other = rows + widest + 1
                    var prior: UnsafePointer<UInt8>? = nil
                    for y in 0..<pass.height {
                        try stream.read(into: current, count: 1 + rowBytes)
                        let row = current + 1
                        try decodeRow(row, filter: current[0], prior: prior, y: y, pass: pass, passIndex: index,
                                      header: header, rowBytes: rowBytes, converter: converter, out: out)
                        prior = UnsafePointer(row)
                        swap(&current, &other)
                    }
                }
                try stream.finish()
                initialized = buffer.count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return pixels
    }
}
