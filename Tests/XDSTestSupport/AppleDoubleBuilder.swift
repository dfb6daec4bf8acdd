/// Builds an AppleDouble file the way macOS writes `._NAME` (xnu's bsd/vfs/vfs_xattr.c): header, a
/// Finder-info entry (id 9) at offset 50 holding 32 zero bytes, 2 of padding, the ATTR header at
/// 84, the attribute entries from 120 (4-byte aligned) and the values packed after them; then an
/// empty resource-fork entry (id 2) at the end, holding `resourceFork` (nothing by default; Finder
/// writes ``finderBlankResourceFork``). Written byte by byte, sharing no code with the reader.
public func appleDoubleBytes(attributes: [(String, [UInt8])], resourceFork: [UInt8] = []) -> [UInt8] {
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
    out += u32(2) + u32(totalSize) + u32(resourceFork.count)  // the resource fork, last
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
    return out + resourceFork
}

/// The 286-byte resource fork macOS writes into every `._` file Finder makes when the file has
/// none (xnu's `init_empty_resource_fork`, the bytes of Samba's `empty_resourcefork[]`): a
/// 256-byte header (data and map at 256, no data, a 30-byte map) whose system area holds
/// "This resource fork intentionally left blank", then the map: a copy of those 16 bytes,
/// 8 zero bytes, the type-list offset 28, the name-list offset 30, and no type (0xFFFF).
public let finderBlankResourceFork: [UInt8] = {
    let header: [UInt8] = [0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0x1E]
    var fork = header + Array("This resource fork intentionally left blank   ".utf8)
    fork += [UInt8](repeating: 0, count: 256 - fork.count)
    fork += header + [UInt8](repeating: 0, count: 8) + [0, 0x1C, 0, 0x1E, 0xFF, 0xFF]
    return fork
}()

/// A resource fork holding one resource (`TEXT` id 128, 5 bytes of data): not empty.
public let oneResourceFork: [UInt8] = {
    func u32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
    let data = u32(5) + Array("hello".utf8)  // each resource: its length, then its bytes
    let mapLength = 28 + 2 + 8 + 12  // map header, type count, one type, one reference
    let header = u32(256) + u32(256 + data.count) + u32(data.count) + u32(mapLength)
    var fork = header + [UInt8](repeating: 0, count: 240) + data
    fork += header + [UInt8](repeating: 0, count: 8) + [0, 28, 0, UInt8(mapLength)]
    fork += [0, 0] + Array("TEXT".utf8) + [0, 0, 0, 10]  // one type (count - 1 = 0), one resource, list at 10
    fork += [0, 128, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0]  // id 128, no name, attributes 0, data offset 0
    return fork
}()
