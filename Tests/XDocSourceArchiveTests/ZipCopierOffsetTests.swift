import Testing
import XDSTestSupport
@testable import XDocSourceArchive

/// Where a clean copy records a member's new offset in its central-directory entry: in the
/// zip64 block where the entry had it there, in the 32-bit field when it fits, else in a zip64
/// block added or grown (the offset after the sizes the block holds). Offsets past 4 GiB need
/// archives too large to build in a test, so the entry is built here.
@Suite("ZipCopier: offsets in central-directory entries")
struct ZipCopierOffsetTests {
    /// A central-directory entry (46 fixed bytes) with the given 32-bit sizes and offset and
    /// extra field.
    static func entry(compressed: UInt64, uncompressed: UInt64, offset: UInt64, extra: [UInt8]) -> ZipCopier.Entry {
        var fixed = le(0x0201_4B50, 4) + [UInt8](repeating: 0, count: 42)
        fixed.replaceSubrange(20..<24, with: le(compressed, 4))
        fixed.replaceSubrange(24..<28, with: le(uncompressed, 4))
        fixed.replaceSubrange(28..<30, with: le(1, 2))
        fixed.replaceSubrange(30..<32, with: le(UInt64(extra.count), 2))
        fixed.replaceSubrange(42..<46, with: le(offset, 4))
        return ZipCopier.Entry(fixed: fixed, name: [UInt8(ascii: "a")], extra: extra, comment: [])
    }

    @Test func smallOffsetGoesInTheFixedField() {
        let unixExtra = le(0x7875, 2) + le(3, 2) + [1, 0, 0]
        var entry = Self.entry(compressed: 5, uncompressed: 5, offset: 1000, extra: unixExtra)
        ZipCopier.setOffset(&entry, 123)
        #expect(LittleEndian32(entry.fixed, 42) == 123)
        #expect(entry.extra == unixExtra)
    }

    @Test func offsetInAZip64BlockStaysThere() {
        // zip -fz style: sizes and offset all in the block.
        let block = le(1, 2) + le(24, 2) + le(5, 8) + le(5, 8) + le(7, 8)
        var entry = Self.entry(compressed: 0xFFFF_FFFF, uncompressed: 0xFFFF_FFFF, offset: 0xFFFF_FFFF, extra: block)
        ZipCopier.setOffset(&entry, 99)
        #expect(LittleEndian32(entry.fixed, 42) == 0xFFFF_FFFF)
        #expect(entry.extra == le(1, 2) + le(24, 2) + le(5, 8) + le(5, 8) + le(99, 8))
    }

    @Test func largeOffsetIsAddedAfterTheSizesOfAZip64Block() {
        let padding: [UInt8] = [0, 0, 0]  // zipalign's padding after the blocks, kept
        let block = le(1, 2) + le(16, 2) + le(5 << 32, 8) + le(4 << 32, 8)
        var entry = Self.entry(compressed: 0xFFFF_FFFF, uncompressed: 0xFFFF_FFFF, offset: 10, extra: block + padding)
        ZipCopier.setOffset(&entry, 6 << 32)
        #expect(LittleEndian32(entry.fixed, 42) == 0xFFFF_FFFF)
        #expect(entry.extra == le(1, 2) + le(24, 2) + le(5 << 32, 8) + le(4 << 32, 8) + le(6 << 32, 8) + padding)
        #expect(UInt64(entry.fixed[30]) | UInt64(entry.fixed[31]) << 8 == UInt64(entry.extra.count))
        #expect(ZipCopier.zip64Fields(entry)?.offset == 4 + 16)
    }

    @Test func largeOffsetGetsAZip64BlockOfItsOwn() {
        let unixExtra = le(0x7875, 2) + le(3, 2) + [1, 0, 0]
        var entry = Self.entry(compressed: 5, uncompressed: 5, offset: 10, extra: unixExtra)
        ZipCopier.setOffset(&entry, 5 << 32)
        #expect(LittleEndian32(entry.fixed, 42) == 0xFFFF_FFFF)
        #expect(entry.extra == le(1, 2) + le(8, 2) + le(5 << 32, 8) + unixExtra)
        #expect(ZipCopier.zip64Fields(entry)?.offset == 4)
        #expect(ZipCopier.zip64Fields(entry)?.compressed == nil)
    }
}

private func le(_ value: UInt64, _ width: Int) -> [UInt8] { ZipCopier.le(value, width) }

private func LittleEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
}
