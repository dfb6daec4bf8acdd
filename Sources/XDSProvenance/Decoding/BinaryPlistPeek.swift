/// What a binary plist's trailer and root object header say, read without parsing the rest:
/// every offset checked against the bytes.
enum BinaryPlistPeek {
    /// The element count of the root object when it is an array; nil when the bytes are not
    /// a binary plist with an array root (the coder then says what is wrong).
    static func rootArrayCount(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 40, bytes.starts(with: "bplist".utf8) else { return nil }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        guard (1...8).contains(offsetSize) else { return nil }
        guard let objects = integer(bytes, at: trailer + 8, width: 8),
            let top = integer(bytes, at: trailer + 16, width: 8),
            let table = integer(bytes, at: trailer + 24, width: 8),
            top < objects, top <= Int.max / 8, table <= trailer,
            let root = integer(bytes, at: table + top * offsetSize, width: offsetSize),
            root >= 8, root < trailer
        else { return nil }
        let marker = bytes[root]
        guard marker >> 4 == 0xA else { return nil }
        guard marker & 0xF == 0xF else { return Int(marker & 0xF) }
        guard root + 1 < trailer, bytes[root + 1] >> 4 == 0x1 else { return nil }
        let width = 1 << Int(bytes[root + 1] & 0xF)
        guard width <= 8 else { return nil }
        return integer(bytes, at: root + 2, width: width)
    }

    /// A big-endian unsigned integer of `width` bytes at `at`, nil past the end or above Int.max.
    private static func integer(_ bytes: [UInt8], at: Int, width: Int) -> Int? {
        guard at >= 0, width <= 8, at <= bytes.count - width else { return nil }
        var value: UInt64 = 0
        for index in 0..<width { value = value << 8 | UInt64(bytes[at + index]) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}
