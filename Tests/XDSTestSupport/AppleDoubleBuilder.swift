/// Builds an AppleDouble file the way macOS writes `._NAME` (INTEROP §3): header, a Finder-info
/// entry (id 9) at offset 50 holding 32 zero bytes, 2 of padding, the ATTR header at 84, the
/// attribute entries from 120 (4-byte aligned) and the values packed after them; then an empty
/// resource-fork entry (id 2) at the end. Written byte by byte, sharing no code with the reader.
public func appleDoubleBytes(attributes: [(String, [UInt8])]) -> [UInt8] {
    func u32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
    func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 255), UInt8(v & 255)] }
    // Entry table first, to learn where the values start.
    var entriesSize = 0
    for (name, _) in attributes {
        entriesSize = (entriesSize + 11 + name.utf8.count + 1 + 3) & ~3
    }
    let dataStart = 120 + entriesSize
    let dataLength = attributes.reduce(0) { $0 + $1.1.count }
    let totalSize = dataStart + dataLength

    var out: [UInt8] = []
    out += u32(0x0005_1607) + u32(0x0002_0000) + Array("Mac OS X        ".utf8) + u16(2)
    out += u32(9) + u32(50) + u32(totalSize - 50)  // Finder info + attributes
    out += u32(2) + u32(totalSize) + u32(0)  // empty resource fork, last
    out += [UInt8](repeating: 0, count: 32) + [0, 0]  // Finder info, padding
    out += u32(0x4154_5452) + u32(0) + u32(totalSize) + u32(dataStart) + u32(dataLength)
    out += [UInt8](repeating: 0, count: 12) + u16(0) + u16(attributes.count)
    var valueOffset = dataStart
    for (name, value) in attributes {
        while out.count % 4 != 0 { out.append(0) }
        out += u32(valueOffset) + u32(value.count) + u16(0) + [UInt8(name.utf8.count + 1)]
        out += Array(name.utf8) + [0]
        valueOffset += value.count
    }
    while out.count < dataStart { out.append(0) }
    for (_, value) in attributes { out += value }
    return out
}
