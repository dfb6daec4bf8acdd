/// Big-endian integers read from bytes (AppleDouble headers, plist trailers): the one reader
/// of the project outside the PNG decoder's hot loops. The caller checks the bounds first.
package enum BigEndian {
    /// The `width`-byte unsigned integer at `offset` (width 1…8).
    @inline(__always)
    package static func unsigned(_ bytes: some RandomAccessCollection<UInt8>, at offset: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        var i = bytes.index(bytes.startIndex, offsetBy: offset)
        for _ in 0..<width {
            value = value << 8 | UInt64(bytes[i])
            i = bytes.index(after: i)
        }
        return value
    }

    /// The 16-bit value at `offset`.
    @inline(__always)
    package static func uint16(_ bytes: some RandomAccessCollection<UInt8>, at offset: Int) -> UInt16 {
        UInt16(truncatingIfNeeded: unsigned(bytes, at: offset, width: 2))
    }

    /// The 32-bit value at `offset`.
    @inline(__always)
    package static func uint32(_ bytes: some RandomAccessCollection<UInt8>, at offset: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: unsigned(bytes, at: offset, width: 4))
    }
}
