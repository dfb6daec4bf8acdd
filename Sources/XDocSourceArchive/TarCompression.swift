internal import CArchive

/// The compression around a tar, recognised by the file's first bytes whatever its name says,
/// as GNU tar and bsdtar do (browsers and scripts save a `.tar.gz` as `x.tar`).
///
/// xds decompresses with one decoder at most, the one chosen here, and libarchive's bidding is
/// bypassed: nothing is stacked on it (libarchive 3.6.2 decompresses a gzip inside a gzip again
/// and again, in a loop, when filters are bid for), and no external program is run.
///
/// One function decides, for every reader and writer of tars in xds (``detect(reading:)``,
/// ``detect(_:)`` for bytes at hand).
package enum TarCompression: String, Sendable, CaseIterable {
    /// A plain tar (or something that is no tar at all: the tar reader says so).
    case none
    case gzip, bzip2, xz, lzip, zstd, lz4
    /// Unix `compress` (`.Z`, LZW).
    case compress
    /// The legacy `.lzma` format (LZMA "alone"), which has no magic number.
    case lzma

    /// How many bytes at the start ``detect(reading:)`` reads first: one tar header.
    package static let headLength = 512

    /// The most zstd/lz4 skippable frames looked past before deciding (each costs one read);
    /// beyond them the stream is taken for zstd (libzstd skips any number of them itself).
    package static let maximumSkippableFrames = 64

    /// The compression of a file whose bytes `read(offset, count)` gives (fewer at the end of
    /// the file, none past it). Reads the first ``headLength`` bytes and, past zstd/lz4
    /// skippable frames (magic 0x184D2A50…5F, which both formats share), 8 bytes per frame.
    ///
    /// In this order: the magic numbers of gzip (`1F 8B`), bzip2 (`BZh`), xz (`FD 37 7A 58 5A
    /// 00`), lzip (`LZIP`), zstd (`28 B5 2F FD`), lz4 (frame `04 22 4D 18`, legacy `02 21 4C
    /// 18`), compress (`1F 9D`), each with the header checks of libarchive's bidder (a stream
    /// whose header its decoder would not accept is `.none`: the decoder would read it as an
    /// empty stream, and bsdtar finds no format for it); skippable frames, skipped by their sizes, then zstd or lz4 by
    /// the next frame's magic (zstd when only skippable frames follow, or something else: libzstd
    /// says what); a valid tar header (its checksum) is a plain tar; then lzma by its 13-byte
    /// header, as libarchive's lzma bidder checks it (properties byte below 225, a dictionary of
    /// 2^12…2^27 bytes, or a multiple of 1 MiB from 3 to 63 MiB when the properties are 0x5D or
    /// 0x5E and the size unknown); anything else is `.none` (an empty file is an empty tar).
    package static func detect<E: Error>(reading read: (_ offset: Int64, _ count: Int) throws(E) -> [UInt8]) throws(E) -> TarCompression {
        let head = try read(0, headLength)
        if let found = signature(head) {
            // The decoders test a stream's header again as they start, and take one they do
            // not accept for the end of the data: an empty archive, silently. Such a file is
            // no archive libarchive bids for (bsdtar: "unrecognized"), so `.none` here, and the
            // tar reader says so.
            return try isAccepted(found, head, read) ? found : .none
        }
        if isSkippable(head) {
            var offset: Int64 = 0
            for _ in 0..<maximumSkippableFrames {
                let frame = offset == 0 ? Array(head.prefix(8)) : try read(offset, 8)
                if frame.count >= 4, !isSkippable(frame) {
                    return frame.starts(with: lz4Frame) || frame.starts(with: lz4Legacy) ? .lz4 : .zstd
                }
                // The end (only skippable frames), or a frame header cut short: zstd's
                // decoder gives an empty stream or says what is wrong.
                guard frame.count == 8 else { return .zstd }
                offset += 8 + (Int64(frame[4]) | Int64(frame[5]) << 8 | Int64(frame[6]) << 16 | Int64(frame[7]) << 24)
            }
            return .zstd
        }
        if isTarHeader(head) { return .none }
        if isLZMAHeader(head) { return .lzma }
        return .none
    }

    /// ``detect(reading:)`` for the first bytes of a file at hand (skippable frames are looked
    /// past as far as `firstBytes` goes; a frame that ends beyond it is taken for zstd).
    package static func detect(_ firstBytes: [UInt8]) -> TarCompression {
        detect { (offset: Int64, count: Int) -> [UInt8] in
            guard offset >= 0, offset < Int64(firstBytes.count) else { return [] }
            return Array(firstBytes[Int(offset)..<min(firstBytes.count, Int(offset) + count)])
        }
    }

    /// The compression a file name says (`.tgz`, `.tar.Z`…), for words only: the bytes decide.
    package init?(fileName: some Collection<UInt8>) {
        let lower = fileName.suffix(9).map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        func ends(_ suffixes: String...) -> Bool {
            suffixes.contains { lower.count >= $0.utf8.count && lower.suffix($0.utf8.count).elementsEqual($0.utf8) }
        }
        if ends(".tgz", ".tar.gz") { self = .gzip }
        else if ends(".tbz", ".tbz2", ".tar.bz2") { self = .bzip2 }
        else if ends(".txz", ".tar.xz") { self = .xz }
        else if ends(".tzst", ".tar.zst") { self = .zstd }
        else if ends(".tar.lz") { self = .lzip }
        else if ends(".tlz", ".tar.lzma") { self = .lzma }
        else if ends(".taz", ".tar.z") { self = .compress }
        else if ends(".tar.lz4") { self = .lz4 }
        else { return nil }
    }

    // MARK: - The checks

    private static let lz4Frame: [UInt8] = [0x04, 0x22, 0x4D, 0x18]
    private static let lz4Legacy: [UInt8] = [0x02, 0x21, 0x4C, 0x18]

    private static func signature(_ head: [UInt8]) -> TarCompression? {
        if head.starts(with: [0x1F, 0x8B]) { return .gzip }
        if head.starts(with: [0x1F, 0x9D]) { return .compress }
        if head.starts(with: Array("BZh".utf8)) { return .bzip2 }
        if head.starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .xz }
        if head.starts(with: Array("LZIP".utf8)) { return .lzip }
        if head.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) { return .zstd }
        if head.starts(with: lz4Frame) || head.starts(with: lz4Legacy) { return .lz4 }
        return nil
    }

    /// Whether libarchive's decoder accepts the stream's header (its bidder's checks,
    /// archive_read_support_filter_*.c in 3.6.2), so that it decodes rather than stops.
    private static func isAccepted<E: Error>(_ compression: TarCompression, _ head: [UInt8],
                                             _ read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> Bool {
        switch compression {
        case .gzip:
            // Deflate, no reserved flag, and the optional fields whole within the file.
            guard head.count >= 10, head[2] == 8, head[3] & 0xE0 == 0 else { return false }
            let flags = head[3]
            var length: Int64 = 10
            if flags & 4 != 0 {  // FEXTRA: a 2-byte length, then that many bytes
                let size = try read(length, 2)
                guard size.count == 2 else { return false }
                length += 2 + (Int64(size[0]) | Int64(size[1]) << 8)
            }
            for flag: UInt8 in [8, 16] where flags & flag != 0 {  // FNAME, FCOMMENT: up to a NUL
                var scanned = 0
                var ended = false
                while !ended && scanned < maximumGzipTextLength {
                    let chunk = try read(length, 4096)
                    guard !chunk.isEmpty else { return false }
                    if let nul = chunk.firstIndex(of: 0) {
                        length += Int64(nul) + 1
                        ended = true
                    } else {
                        length += Int64(chunk.count)
                        scanned += chunk.count
                    }
                }
                guard ended else { return false }
            }
            if flags & 2 != 0 { length += 2 }  // FHCRC
            return try read(length - 1, 1).count == 1
        case .bzip2:
            // A block size digit, then a block's or the end-of-stream magic (14 bytes at least).
            guard head.count >= 14, head[3] >= 0x31, head[3] <= 0x39 else { return false }
            let next = Array(head[4..<10])
            return next == [0x31, 0x41, 0x59, 0x26, 0x53, 0x59] || next == [0x17, 0x72, 0x45, 0x38, 0x50, 0x90]
        case .lzip:
            // Version 0 or 1, a dictionary of 2^12…2^29 bytes.
            return head.count >= 6 && head[4] <= 1 && (12...29).contains(head[5] & 0x1F)
        case .lz4:
            // A frame: version 01, reserved bits clear, a block size of 64 KiB or more.
            guard head.starts(with: lz4Frame) else { return head.count >= 11 }
            return head.count >= 11 && head[4] & 0xC0 == 0x40 && head[4] & 2 == 0 && (head[5] & 0x70) >> 4 >= 4
                && head[5] & ~0x70 == 0
        case .compress:
            // The two reserved bits of the parameter byte clear.
            return head.count >= 3 && head[2] & 0x60 == 0
        case .none, .xz, .zstd, .lzma:
            // xz and zstd fail in words on any bad stream; lzma is recognised by its header.
            return true
        }
    }

    /// How far a gzip header's file name or comment is looked through for its end.
    private static let maximumGzipTextLength = 65_536

    /// A zstd/lz4 skippable frame's magic, 0x184D2A50…0x184D2A5F little-endian.
    private static func isSkippable(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && bytes[0] & 0xF0 == 0x50 && bytes[1] == 0x2A && bytes[2] == 0x4D && bytes[3] == 0x18
    }

    /// Whether the first 512 bytes are a tar header whose checksum (bytes 148…155, octal) is
    /// the sum of its bytes with that field counted as spaces.
    private static func isTarHeader(_ head: [UInt8]) -> Bool {
        guard head.count >= 512 else { return false }
        var recorded = 0, digits = 0
        for byte in head[148..<156] {
            if byte >= 0x30 && byte <= 0x37 {
                recorded = recorded * 8 + Int(byte - 0x30)
                digits += 1
            } else if byte == 0x20 || byte == 0 {
                if digits > 0 { break }
            } else {
                return false
            }
        }
        guard digits > 0 else { return false }
        var sum = 0
        for index in 0..<512 { sum += index >= 148 && index < 156 ? 0x20 : Int(head[index]) }
        return sum == recorded
    }

    /// libarchive's lzma bidder (archive_read_support_filter_xz.c, lzma_bidder_bid).
    private static func isLZMAHeader(_ head: [UInt8]) -> Bool {
        guard head.count >= 14, head[0] <= (4 * 5 + 4) * 9 + 8 else { return false }
        let dictionary = UInt32(head[1]) | UInt32(head[2]) << 8 | UInt32(head[3]) << 16 | UInt32(head[4]) << 24
        if dictionary.nonzeroBitCount == 1, dictionary >= 1 << 12, dictionary <= 1 << 27 { return true }
        // lzma of XZ Utils lowers the dictionary by 1 MiB steps when memory is short; libarchive
        // takes those only with the likeliest properties and an unknown size.
        let unknownSize = head[5..<13].allSatisfy { $0 == 0xFF }
        return (head[0] == 0x5D || head[0] == 0x5E) && unknownSize
            && dictionary >= 0x0030_0000 && dictionary <= 0x03F0_0000 && dictionary & 0xF_FFFF == 0
    }
}

extension TarCompression {
    /// libarchive's code for the decoder (`archive_read_append_filter`).
    var filterCode: Int32 {
        switch self {
        case .none: ARCHIVE_FILTER_NONE
        case .gzip: ARCHIVE_FILTER_GZIP
        case .bzip2: ARCHIVE_FILTER_BZIP2
        case .xz: ARCHIVE_FILTER_XZ
        case .lzip: ARCHIVE_FILTER_LZIP
        case .zstd: ARCHIVE_FILTER_ZSTD
        case .lz4: ARCHIVE_FILTER_LZ4
        case .compress: ARCHIVE_FILTER_COMPRESS
        case .lzma: ARCHIVE_FILTER_LZMA
        }
    }
}
