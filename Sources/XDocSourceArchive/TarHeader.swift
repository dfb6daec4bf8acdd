internal import XDSSystem
import XDocSource

/// One 512-byte tar header: the fields the copy reads, and the two it may rewrite (the size and
/// the checksum).
enum TarHeader {
    /// Whether the checksum field matches the header (the sum of its bytes with the field as
    /// spaces, unsigned as POSIX says or signed as old writers computed it).
    static func checksumHolds(_ header: [UInt8]) -> Bool {
        guard header.count == 512, let stored = octal(header[148..<156]) else { return false }
        var unsigned = 0, signed = 0
        for (index, byte) in header.enumerated() {
            let value = (148..<156).contains(index) ? 32 : byte
            unsigned += Int(value)
            signed += Int(Int8(bitPattern: value))
        }
        return stored == Int64(unsigned) || stored == Int64(signed)
    }

    /// An octal field (leading spaces, digits, then NUL or space); nil when it holds no digit
    /// or something else.
    static func octal(_ field: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        var digits = 0
        var index = field.startIndex
        while index < field.endIndex, field[index] == 32 { index += 1 }
        while index < field.endIndex, (48...55).contains(field[index]) {
            guard value <= Int64.max >> 3 else { return nil }
            value = value << 3 | Int64(field[index] - 48)
            digits += 1
            index += 1
        }
        guard digits > 0 else { return nil }
        while index < field.endIndex {
            guard field[index] == 0 || field[index] == 32 else { return nil }
            index += 1
        }
        return value
    }

    /// The size field: octal, or GNU's base-256 (high bit of the first byte set); nil when it
    /// is neither or negative.
    static func size(_ header: [UInt8]) -> Int64? {
        let field = header[124..<136]
        if field.first! & 0x80 != 0 {
            guard field.first! & 0x40 == 0 else { return nil }  // negative
            var value: Int64 = Int64(field.first! & 0x3F)
            for byte in field.dropFirst() {
                guard value <= Int64.max >> 8 else { return nil }
                value = value << 8 | Int64(byte)
            }
            return value
        }
        if field.allSatisfy({ $0 == 0 || $0 == 32 }) { return 0 }
        return octal(field)
    }

    /// `header` with the size `size` (11 octal digits and a NUL) and its checksum recomputed.
    static func withSize(_ header: [UInt8], _ size: Int) -> [UInt8] {
        var out = header
        out.replaceSubrange(124..<136, with: octalField(size, width: 12))
        out.replaceSubrange(148..<156, with: [UInt8](repeating: 32, count: 8))
        let sum = out.reduce(0) { $0 + Int($1) }
        out.replaceSubrange(148..<156, with: octalField(sum, width: 7) + [32])
        return out
    }

    /// `value` in octal, zero-padded to `width - 1` digits and a NUL.
    private static func octalField(_ value: Int, width: Int) -> [UInt8] {
        var digits = Array(String(value, radix: 8).utf8)
        while digits.count < width - 1 { digits.insert(48, at: 0) }
        return digits + [0]
    }

    /// The name field (up to its NUL).
    static func name(_ header: [UInt8]) -> [UInt8] {
        Array(header[0..<100].prefix { $0 != 0 })
    }
}

/// One pax record as stored (`LENGTH KEYWORD=VALUE\n`).
struct PaxRecord {
    let raw: [UInt8]
    let keyword: [UInt8]
    var value: ArraySlice<UInt8> { raw[(raw.firstIndex(of: UInt8(ascii: "="))! + 1)..<(raw.count - 1)] }

    /// The records of a pax header's data; nil when it is malformed. NULs after the last
    /// record (padding some writers leave) are ignored.
    static func parse(_ data: [UInt8]) -> [PaxRecord]? {
        var records: [PaxRecord] = []
        var at = 0
        while at < data.count {
            if data[at...].allSatisfy({ $0 == 0 }) { break }
            var length = 0
            var index = at
            while index < data.count, (48...57).contains(data[index]), length < 1 << 30 {
                length = length * 10 + Int(data[index] - 48)
                index += 1
            }
            guard index < data.count, data[index] == 32, index > at, length > index - at + 1,
                  at + length <= data.count, data[at + length - 1] == 10 else { return nil }
            let raw = Array(data[at..<at + length])
            let body = raw[(index - at + 1)..<(length - 1)]
            guard let equals = body.firstIndex(of: UInt8(ascii: "=")), equals > body.startIndex else { return nil }
            records.append(PaxRecord(raw: raw, keyword: Array(body[..<equals])))
            at += length
        }
        return records
    }

    /// A record of `keyword` and `value`, its length prefix computed (it counts its own digits).
    static func make(_ keyword: [UInt8], _ value: some Collection<UInt8>) -> PaxRecord {
        let rest = keyword.count + value.count + 3  // space, '=', newline
        var length = rest + 1
        while String(length).utf8.count + rest != length { length += 1 }
        return PaxRecord(raw: Array(String(length).utf8) + [32] + keyword + [UInt8(ascii: "=")] + value + [10], keyword: keyword)
    }
}

extension PaxRecord {
    /// The `SCHILY.xattr.NAME` record this `LIBARCHIVE.xattr.NAME` record is rewritten as:
    /// NAME URL-decoded and the value base64-decoded, as libarchive's reader decodes them
    /// (archive_read_support_format_tar.c, `pax_attribute`; written by
    /// archive_write_set_format_pax.c). Nil when it is not such a record, does not decode, or
    /// its name holds `=`, `%`, a NUL or a line break (GNU tar would read such a keyword back
    /// otherwise than libarchive does).
    var schilyRewrite: PaxRecord? {
        guard keyword.starts(with: PaxXattr.libarchive), let xattr = PaxXattr(self), !xattr.notBase64,
              !xattr.name.contains(where: { [0, 10, UInt8(ascii: "="), UInt8(ascii: "%")].contains($0) })
        else { return nil }
        return PaxRecord.make(PaxXattr.schily + xattr.name, xattr.value)
    }

    /// The attribute name of a `SCHILY.xattr.NAME` record (`%XX` escapes undone when they
    /// decode), nil for any other: what a `LIBARCHIVE.xattr.` record's twin is told by.
    var schilyName: [UInt8]? {
        guard keyword.count > PaxXattr.schily.count, keyword.starts(with: PaxXattr.schily) else { return nil }
        let name = keyword.dropFirst(PaxXattr.schily.count)
        return Hex.percentDecoded(name) ?? Array(name)
    }
}
