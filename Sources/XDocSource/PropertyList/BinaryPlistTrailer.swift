/// The 32-byte trailer at the end of a `bplist00` (sizes of offsets and references, object
/// count, root object, where the offset table starts), read once with the checks every reader
/// here makes before trusting it: libplist 2.2.0 trusts these fields in ways fixed only in
/// later releases (see ``BinaryPlistValidator``). Shared by ``BinaryPlistValidator`` and
/// ``BinaryPlistKnownFields``, so both refuse the same trailers.
struct BinaryPlistTrailer {
    /// Bytes an offset-table entry takes (1, 2, 4 or 8; also 3 with `threeByteSizes`).
    let offsetSize: Int
    /// Bytes an object reference takes (the same sizes).
    let referenceSize: Int
    let objectCount: Int
    let rootIndex: Int
    /// Where the offset table starts: after the header, and it ends before the trailer.
    let tableOffset: Int

    /// Reads the trailer of `bytes`, whose 8-byte `bplist00` header the caller has checked.
    /// `threeByteSizes` also accepts offsets and references of 3 bytes (libplist writes them
    /// for plists over 64 KiB).
    init(_ bytes: UnsafeBufferPointer<UInt8>, threeByteSizes: Bool) throws(PropertyListError) {
        let count = bytes.count
        // Header, one object byte, one offset byte and the 32-byte trailer.
        guard count >= 8 + 1 + 1 + 32 else {
            throw PropertyListError(.trailer, "binary plist is truncated: \(count) bytes, too short for a header, an object and a trailer")
        }
        let trailer = count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let objects = Self.unsigned(bytes, at: trailer + 8, width: 8)
        let root = Self.unsigned(bytes, at: trailer + 16, width: 8)
        let table = Self.unsigned(bytes, at: trailer + 24, width: 8)
        func isSize(_ size: Int) -> Bool {
            size == 1 || size == 2 || size == 4 || size == 8 || (threeByteSizes && size == 3)
        }
        let sizesInWords = threeByteSizes ? "1, 2, 3, 4 or 8" : "1, 2, 4 or 8"
        guard isSize(offsetSize) else {
            throw PropertyListError(.trailer, "binary plist trailer: offset size \(offsetSize) is not \(sizesInWords)")
        }
        guard isSize(referenceSize) else {
            throw PropertyListError(.trailer, "binary plist trailer: reference size \(referenceSize) is not \(sizesInWords)")
        }
        guard objects >= 1 else {
            throw PropertyListError(.trailer, "binary plist trailer: the object count is zero")
        }
        // Every object needs at least one byte and one offset-table entry.
        guard objects <= UInt64(count - 40) else {
            throw PropertyListError(.trailer, "binary plist trailer: object count \(objects) is impossible in \(count) bytes")
        }
        guard root < objects else {
            throw PropertyListError(.trailer, "binary plist trailer: root object \(root) is not below the object count \(objects)")
        }
        let tableBytes = Int(objects) * offsetSize
        guard table >= 9, table <= UInt64(trailer), Int(table) + tableBytes <= trailer else {
            throw PropertyListError(.trailer, "binary plist trailer: offset table lies outside the data")
        }
        self.offsetSize = offsetSize
        self.referenceSize = referenceSize
        objectCount = Int(objects)
        rootIndex = Int(root)
        tableOffset = Int(table)
    }

    /// Where object `index` starts, as the offset table says (not checked: see the readers; an
    /// entry past `Int.max` reads negative, which their checks refuse, rather than trapping).
    @inline(__always)
    func offset(of index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        Int(truncatingIfNeeded: Self.unsigned(bytes, at: tableOffset + index * offsetSize, width: offsetSize))
    }

    /// The `width`-byte big-endian unsigned integer at `position` (the caller checks the
    /// bounds): the binary plist readers' own, beside XDSSystem's `BigEndian`, because a
    /// record's decoding reads a few dozen offsets and references and that generic reader is
    /// called unspecialised from this module (it doubled a record's instructions).
    @inline(__always)
    static func unsigned(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in position..<position + width { value = value << 8 | UInt64(bytes[i]) }
        return value
    }

    /// The same of an array.
    @inline(__always)
    static func unsigned(_ bytes: [UInt8], at position: Int, width: Int) -> UInt64 {
        bytes.withUnsafeBufferPointer { unsigned($0, at: position, width: width) }
    }
}
