/// Big-endian integers read from bytes and written as bytes (AppleDouble files, binary plist
/// objects, cache entries): the one reader and writer of the modules that build on XDSSystem.
/// (IconMask, which depends on no other module of the package, keeps its own in the PNG and
/// ICNS code, inside their hot loops.) The caller checks the bounds first.
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

    /// Appends the low `width` bytes of `value` (width 1…8), most significant first.
    @inline(__always)
    package static func append(_ value: UInt64, width: Int, to out: inout [UInt8]) {
        for i in stride(from: width - 1, through: 0, by: -1) { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    /// The low `width` bytes of `value` (width 1…8), most significant first.
    package static func bytes(_ value: UInt64, width: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(width)
        append(value, width: width, to: &out)
        return out
    }
}

/// Little-endian integers read from bytes (zip headers), as ``BigEndian`` reads big-endian ones.
/// The caller checks the bounds first.
package enum LittleEndian {
    /// The `width`-byte unsigned integer at `offset` (width 1…8).
    @inline(__always)
    package static func unsigned(_ bytes: some Collection<UInt8>, at offset: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        var i = bytes.index(bytes.startIndex, offsetBy: offset)
        for shift in 0..<width {
            value |= UInt64(bytes[i]) << (8 * UInt64(shift))
            i = bytes.index(after: i)
        }
        return value
    }

    /// The 16-bit value at `offset`.
    package static func uint16(_ bytes: some Collection<UInt8>, at offset: Int) -> UInt16 {
        UInt16(truncatingIfNeeded: unsigned(bytes, at: offset, width: 2))
    }

    /// The 32-bit value at `offset`.
    package static func uint32(_ bytes: some Collection<UInt8>, at offset: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: unsigned(bytes, at: offset, width: 4))
    }

    /// The 64-bit value at `offset`.
    package static func uint64(_ bytes: some Collection<UInt8>, at offset: Int) -> UInt64 {
        unsigned(bytes, at: offset, width: 8)
    }
}
