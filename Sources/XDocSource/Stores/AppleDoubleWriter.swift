internal import XDSSystem
/// Writing AppleDouble files: one attribute set, replaced or removed, everything else kept.
///
/// The rewrite keeps, byte for byte: the 16-byte filler of the header, every entry other than the
/// Finder-info entry (its id, its bytes; the resource fork, id 2, stays last as macOS writes it),
/// the 32 bytes of Finder info, the `ATTR` header's debug tag, reserved bytes and flags, and every
/// other attribute's name, flags and value, in their order. What changes is the layout: offsets and
/// lengths are recomputed, the attribute entries are packed 4-byte aligned from byte 120 (with two
/// entries) and their values packed after them in entry order (the layout of Samba's
/// source3/lib/adouble.c and xnu's bsd/vfs/vfs_xattr.c), and free space the kernel reserves inside
/// the Finder-info entry, or bytes no entry points at, are not carried over.
extension AppleDouble {
    /// What ``edited(_:setting:to:)`` decided.
    public enum Edit: Sendable, Equatable {
        /// The file already says that (a removal of an attribute it does not have).
        case unchanged
        /// The new file, whole.
        case replace([UInt8])
        /// After the removal the file holds nothing: no attributes, no Finder info (all
        /// zero), no resource fork or an empty one (``AppleDouble/isEmptyResourceFork(_:)``:
        /// the blank map Finder writes counts as empty), no other entry but empty ones.
        /// Deleting it loses nothing, which is what macOS does with such a `._` file.
        case delete
    }

    /// The most bytes a rewritten file may be, so a sidecar read whole stays small.
    public static let maximumFileSize = 64 << 20

    /// A new AppleDouble file as macOS writes one (libarchive's test_read_format_zip_mac_metadata.c
    /// holds one): the header with the filler
    /// `Mac OS X`, a Finder-info entry (id 9, 32 zero bytes of Finder info, the `ATTR` header
    /// and `attributes`) and an empty resource-fork entry (id 2) last.
    ///
    /// - Throws: ``AppleDoubleError/tooLarge(_:)`` when the attributes do not fit in the
    ///   64 KiB attribute area, ``AppleDoubleError/outOfRange(_:)`` when a name is empty,
    ///   holds a NUL or is longer than 127 bytes.
    public static func newFile(attributes: [Attribute]) throws(AppleDoubleError) -> [UInt8] {
        let filler = Array("Mac OS X        ".utf8)
        let records = try attributes.map { (attribute) throws(AppleDoubleError) in
            try AttributeRecord(name: attribute.name, value: attribute.value)
        }
        return try assemble(
            prefix: u32(magic) + u32(version) + filler, infoAt: 0, table: [finderInfoID, 2],
            info: InfoParts(records: records), others: [(1, [])])
    }

    /// Returns `file` with the attribute `name` set to `value`, or removed when `value` is nil,
    /// everything else kept (see the type's notes on what is kept byte-exact).
    ///
    /// A file without a Finder-info entry gets one (first in the entry table). When the file
    /// holds the name twice, the first is set and the others dropped, so every reader finds
    /// the new value.
    ///
    /// - Parameters:
    ///   - file: the whole AppleDouble file (not only its start).
    ///   - name: the attribute's name, as macOS writes it (`x-document-source`).
    ///   - value: the new value, or nil to remove the attribute.
    /// - Throws: ``AppleDoubleError`` when `file` does not parse (it is never rewritten then)
    ///   or names an entry id twice; ``AppleDoubleError/tooLarge(_:)`` when the result would
    ///   not fit (64 KiB of attributes, 15 entries) or `file` is larger than ``maximumFileSize``.
    public static func edited(
        _ file: [UInt8], setting name: String, to value: [UInt8]?
    ) throws(AppleDoubleError) -> Edit {
        let target = try AttributeRecord(name: name, value: value ?? [])
        return try edited(file, removal: value == nil) { (records) in
            let matches = records.indices.filter { records[$0].name == target.name }
            if let value {
                if let first = matches.first {
                    records[first].value = value
                    for index in matches.dropFirst().reversed() { records.remove(at: index) }
                } else {
                    records.append(target)
                }
                return true
            }
            for index in matches.reversed() { records.remove(at: index) }
            return !matches.isEmpty
        } check: { check, count in
            check.value(named: name) == value && check.attributes.count == count
        }
    }

    /// Returns `file` without the attributes called any of `names` (every entry of each, in
    /// one edit), everything else kept as ``edited(_:setting:to:)`` keeps it: what
    /// `xds strip` does to a sidecar. ``Edit/unchanged`` when it holds none of them,
    /// ``Edit/delete`` when nothing else is left in it (no other attribute, Finder info all
    /// zero, no resource fork or an empty one, as ``isEmptyResourceFork(_:)`` says, no other
    /// entry but empty ones).
    ///
    /// - Throws: ``AppleDoubleError`` as ``edited(_:setting:to:)`` does.
    public static func edited(_ file: [UInt8], removing names: Set<String>) throws(AppleDoubleError) -> Edit {
        let targets = Set(names.map { Array($0.utf8) + [0] })
        return try edited(file, removal: true) { (records) in
            let before = records.count
            records.removeAll { targets.contains($0.name) }
            return records.count != before
        } check: { check, count in
            check.attributes.count == count && !check.attributes.contains { names.contains($0.name) }
        }
    }

    /// The one edit: `change` edits the attribute records (and says whether it changed
    /// anything), `check` accepts the rewritten file as read back with the number of records
    /// meant; with `removal` a file left holding nothing is ``Edit/delete``.
    private static func edited(
        _ file: [UInt8], removal: Bool, change: (inout [AttributeRecord]) -> Bool,
        check accepts: (AppleDouble, Int) -> Bool
    ) throws(AppleDoubleError) -> Edit {
        guard file.count <= maximumFileSize else {
            throw .tooLarge("the file is \(file.count) bytes, more than the \(maximumFileSize >> 20) MiB this library rewrites")
        }
        let parsed = try AppleDouble(bytes: file)
        let reader = BigEndianReader(file)
        // The parser has checked the table: every read below is inside the file.
        let count = Int(reader.u16(24)!)
        var table: [(id: UInt32, offset: Int, length: Int)] = []
        for index in 0..<count {
            let at = 26 + 12 * index
            table.append((reader.u32(at)!, Int(reader.u32(at + 4)!), Int(reader.u32(at + 8)!)))
        }
        var seen: Set<UInt32> = []
        for entry in table where !seen.insert(entry.id).inserted {
            throw .outOfRange("entry \(entry.id) appears twice, so which one counts is unclear")
        }
        let infoIndex = table.firstIndex { $0.id == finderInfoID }

        var info = InfoParts(records: [])
        if let infoIndex {
            let entry = table[infoIndex]
            info.finderInfo = Array(file[entry.offset..<entry.offset + 32])
            if entry.length >= 34 { info.pad = Array(file[entry.offset + 32..<entry.offset + 34]) }
            if entry.length > 32 {
                let header = entry.offset + 34
                info.debugTag = Array(file[header + 4..<header + 8])
                info.reserved = Array(file[header + 20..<header + 32])
                info.flags = Array(file[header + 32..<header + 34])
                info.records = rawRecords(reader, header: header, count: parsed.attributes.count)
            }
        }

        guard change(&info.records) else { return .unchanged }
        if removal {
            let emptyInfo = info.finderInfo.allSatisfy { $0 == 0 }
            // Every other entry empty: of length 0, or a resource fork that holds nothing.
            let othersEmpty = table.allSatisfy { entry in
                entry.id == finderInfoID || entry.length == 0
                    || (entry.id == 2 && isEmptyResourceFork(file[entry.offset..<entry.offset + entry.length]))
            }
            if info.records.isEmpty && emptyInfo && othersEmpty { return .delete }
        }

        // Layout: the Finder-info entry first, then the other entries in file order, the
        // resource fork last (xnu and Samba expect it there and grow it in place).
        var ids = table.map(\.id)
        var infoAt = infoIndex ?? 0
        if infoIndex == nil {
            guard ids.count < maximumEntries else {
                throw .tooLarge("the file has \(maximumEntries) entries, no room for a Finder-info entry")
            }
            ids.insert(finderInfoID, at: 0)
            infoAt = 0
        }
        let shift = infoIndex == nil ? 1 : 0
        let others = table.indices
            .filter { $0 != infoIndex }
            .sorted { (a, b) in
                let (fa, fb) = (table[a].id == 2, table[b].id == 2)
                return fa != fb ? fb : table[a].offset < table[b].offset
            }
            .map { ($0 + shift, file[table[$0].offset..<table[$0].offset + table[$0].length]) }
        let result = try assemble(
            prefix: Array(file[0..<24]), infoAt: infoAt, table: ids, info: info, others: others)
        // The reader must find exactly what was meant; anything else is a bug here, and the
        // caller writes nothing.
        guard let check = try? AppleDouble(bytes: result), accepts(check, info.records.count)
        else { throw .badAttributeHeader("the rewritten file would not read back (a bug in this library)") }
        return .replace(result)
    }

    // MARK: - Internals

    static let magic: UInt32 = 0x0005_1607
    static let version: UInt32 = 0x0002_0000
    static let attrMagic: UInt32 = 0x4154_5452  // "ATTR"
    static let finderInfoID: UInt32 = 9
    static let maximumEntries = 15  // xnu's limit

    /// One attribute as stored: its flags and NUL-terminated name kept as raw bytes.
    struct AttributeRecord {
        var flags: [UInt8] = [0, 0]
        var name: [UInt8]
        var value: [UInt8]

        init(flags: [UInt8], name: [UInt8], value: [UInt8]) {
            self.flags = flags
            self.name = name
            self.value = value
        }

        init(name: String, value: [UInt8]) throws(AppleDoubleError) {
            let bytes = Array(name.utf8)
            // xnu allows names up to 128 bytes with the NUL; a NUL inside would cut the name.
            guard !bytes.isEmpty, bytes.count < 128, !bytes.contains(0) else {
                throw .outOfRange("the attribute name must be 1 to 127 bytes without NUL")
            }
            self.name = bytes + [0]
            self.value = value
        }
    }

    /// The Finder-info entry's parts that are kept, with defaults for a new entry.
    struct InfoParts {
        var finderInfo = [UInt8](repeating: 0, count: 32)
        var pad: [UInt8] = [0, 0]
        var debugTag: [UInt8] = [0, 0, 0, 0]
        var reserved = [UInt8](repeating: 0, count: 12)
        var flags: [UInt8] = [0, 0]
        var records: [AttributeRecord]

        init(records: [AttributeRecord]) { self.records = records }
    }

    /// The attribute entries of a file the parser has accepted, as raw records.
    private static func rawRecords(_ reader: BigEndianReader, header: Int, count: Int) -> [AttributeRecord] {
        var records: [AttributeRecord] = []
        var at = header + 36
        for _ in 0..<count {
            at = (at + 3) & ~3
            let offset = Int(reader.u32(at)!), length = Int(reader.u32(at + 4)!)
            let nameLength = Int(reader.u8(at + 10)!)
            let bytes = reader.bytes
            records.append(AttributeRecord(
                flags: Array(bytes[at + 8..<at + 10]),
                name: Array(bytes[at + 11..<at + 11 + nameLength]),
                value: Array(bytes[offset..<offset + length])))
            at += 11 + nameLength
        }
        return records
    }

    /// Lays out a file: `prefix` (magic, version, filler), the entry table (`table` ids, the
    /// Finder-info entry at index `infoAt`), the Finder-info entry, then `others` (table
    /// index, bytes) in the order given.
    private static func assemble(
        prefix: [UInt8], infoAt: Int, table: [UInt32], info: InfoParts,
        others: [(Int, ArraySlice<UInt8>)]
    ) throws(AppleDoubleError) -> [UInt8] {
        let infoOffset = 26 + 12 * table.count
        let header = infoOffset + 34
        var entries: [UInt8] = []
        var at = header + 36  // 4-byte aligned: 26 + 12n + 70 = 96 + 12n
        var dataStart = at
        for record in info.records { dataStart = (dataStart + 11 + record.name.count + 3) & ~3 }
        var valueAt = dataStart
        for record in info.records {
            entries += u32(valueAt) + u32(record.value.count) + record.flags + [UInt8(record.name.count)] + record.name
            at += 11 + record.name.count
            while at % 4 != 0 {
                entries.append(0)
                at += 1
            }
            valueAt += record.value.count
        }
        let totalSize = valueAt
        guard totalSize <= attributeAreaLimit else {
            throw .tooLarge("the attributes would need \(totalSize) bytes, more than the 64 KiB an AppleDouble file holds")
        }
        var lengths = [Int](repeating: 0, count: table.count)
        var offsets = [Int](repeating: 0, count: table.count)
        offsets[infoAt] = infoOffset
        lengths[infoAt] = totalSize - infoOffset
        var end = totalSize
        for (index, bytes) in others {
            offsets[index] = end
            lengths[index] = bytes.count
            end += bytes.count
        }

        var out: [UInt8] = []
        out.reserveCapacity(end)
        out += prefix + u16(table.count)
        for index in table.indices { out += u32(Int(table[index])) + u32(offsets[index]) + u32(lengths[index]) }
        out += info.finderInfo + info.pad
        out += u32(Int(attrMagic)) + info.debugTag + u32(totalSize) + u32(dataStart) + u32(totalSize - dataStart)
        out += info.reserved + info.flags + u16(info.records.count)
        out += entries
        for record in info.records { out += record.value }
        for (_, bytes) in others { out += bytes }
        return out
    }

    private static func u32(_ v: UInt32) -> [UInt8] { u32(Int(v)) }
    private static func u32(_ v: Int) -> [UInt8] { BigEndian.bytes(UInt64(truncatingIfNeeded: v), width: 4) }
    private static func u16(_ v: Int) -> [UInt8] { BigEndian.bytes(UInt64(truncatingIfNeeded: v), width: 2) }
}
