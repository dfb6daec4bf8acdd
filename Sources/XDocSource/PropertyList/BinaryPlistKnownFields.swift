/// The common x-document-source value read straight from its bytes: a binary plist whose root
/// is a dictionary of at most the four known keys, each a string, and nothing else.
///
/// ``decode(_:)`` makes the same checks as ``BinaryPlistValidator`` for such a value (trailer,
/// the whole offset table, every object it reaches) and returns nil for anything else, valid or
/// not: another key, a value of another type, a count written as an integer object, a key
/// stored as UTF-16, a damaged value. The caller then decodes the general way, which reads or
/// refuses it as before, so a value reads the same whichever way it went (a test compares the
/// two over the fuzz corpus and random property lists). No dictionary and no String per field
/// is built: the fields' UTF-8 go into one String, read by ``DocumentSource``'s fields and the
/// JSON writer (issue 35: the general decoding of such a value was 17 k instructions).
struct BinaryPlistKnownFields: Sendable {
    /// The fields' UTF-8, one after another, in ``DocumentSource/keys`` order.
    let text: String
    /// Where each field lies in ``text``, in ``DocumentSource/keys`` order; nil when absent.
    let spans: KnownFieldSpans

    /// The four fields' places in ``text``.
    struct KnownFieldSpans: Sendable, Equatable {
        var identifier: Range<Int>?
        var name: Range<Int>?
        var path: Range<Int>?
        var appInfoURL: Range<Int>?

        subscript(index: Int) -> Range<Int>? {
            get {
                switch index {
                case 0: identifier
                case 1: name
                case 2: path
                default: appInfoURL
                }
            }
            set {
                switch index {
                case 0: identifier = newValue
                case 1: name = newValue
                case 2: path = newValue
                default: appInfoURL = newValue
                }
            }
        }
    }

    /// The value of `bytes`, or nil when it is not such a value or anything about it is unusual.
    static func decode(_ bytes: [UInt8]) -> BinaryPlistKnownFields? {
        bytes.withUnsafeBufferPointer { decode($0) }
    }

    /// Where a string value lies in the input: its payload, and whether it is UTF-16.
    private struct Found {
        var start = 0
        var length = 0
        var utf16 = false
        var utf8Count = 0
    }

    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> BinaryPlistKnownFields? {
        let count = bytes.count
        // PropertyList.decode's own bounds, then the validator's header and trailer checks.
        guard count >= 8 + 1 + 1 + 32, count <= PropertyList.maximumSize,
              bytes[0] == 0x62, bytes[1] == 0x70, bytes[2] == 0x6C, bytes[3] == 0x69,
              bytes[4] == 0x73, bytes[5] == 0x74, bytes[6] == 0x30, bytes[7] == 0x30
        else { return nil }
        guard let trailer = try? BinaryPlistTrailer(bytes, threeByteSizes: false) else { return nil }
        let objectCount = trailer.objectCount, referenceSize = trailer.referenceSize
        let tableOffset = trailer.tableOffset, root = trailer.rootIndex
        // Every entry of the offset table, reached or not, as the validator checks it.
        for index in 0..<objectCount {
            let offset = trailer.offset(of: index, in: bytes)
            guard offset >= 8, offset < tableOffset else { return nil }
        }
        func offset(_ index: Int) -> Int { trailer.offset(of: index, in: bytes) }
        /// Whether `length` bytes from `position` end at or before the offset table.
        func fits(_ position: Int, _ length: Int) -> Bool {
            length >= 0 && position <= tableOffset && length <= tableOffset - position
        }
        /// An object's length (its low nibble, or 0xF and an integer object) and where its payload starts.
        func length(at offset: Int) -> (Int, Int)? {
            let low = bytes[offset] & 0xF
            if low != 0xF { return (Int(low), offset + 1) }
            guard fits(offset + 1, 1) else { return nil }
            let marker = bytes[offset + 1]
            guard marker >> 4 == 0x1, marker & 0xF <= 3 else { return nil }
            let size = 1 << Int(marker & 0xF)
            guard fits(offset + 2, size) else { return nil }
            let value = BinaryPlistTrailer.unsigned(bytes, at: offset + 2, width: size)
            guard value <= UInt64(count) else { return nil }
            return (Int(value), offset + 2 + size)
        }

        // The root: a dictionary of at most four entries, its count in the marker.
        let rootOffset = offset(root)
        let rootMarker = bytes[rootOffset]
        guard rootMarker >> 4 == 0xD, rootMarker & 0xF <= 4 else { return nil }
        let entries = Int(rootMarker & 0xF), start = rootOffset + 1
        guard fits(start, entries * 2 * referenceSize) else { return nil }
        var identifier = Found(), name = Found(), path = Found(), appInfoURL = Found()
        var seen = 0  // one bit per known key
        for entry in 0..<entries {
            let keyIndex = BinaryPlistTrailer.unsigned(bytes, at: start + entry * referenceSize, width: referenceSize)
            let valueIndex = BinaryPlistTrailer.unsigned(bytes, at: start + (entries + entry) * referenceSize, width: referenceSize)
            guard keyIndex < UInt64(objectCount), valueIndex < UInt64(objectCount) else { return nil }
            // The key: one of the four, as a short ASCII string object.
            let keyOffset = offset(Int(keyIndex))
            let keyMarker = bytes[keyOffset]
            guard keyMarker >> 4 == 0x5, fits(keyOffset + 1, Int(keyMarker & 0xF)),
                  let field = knownKey(bytes, keyOffset + 1, Int(keyMarker & 0xF)),
                  seen & 1 << field == 0
            else { return nil }
            seen |= 1 << field
            // The value: an ASCII or UTF-16 string, checked as the validator checks it.
            let valueOffset = offset(Int(valueIndex))
            let kind = bytes[valueOffset] >> 4
            guard kind == 0x5 || kind == 0x6, let (units, payload) = length(at: valueOffset) else { return nil }
            var string = Found(start: payload, length: units, utf16: kind == 0x6)
            if kind == 0x5 {
                guard fits(payload, units), isPlainASCII(bytes, payload, units) else { return nil }
                string.utf8Count = units
            } else {
                guard units > 0, fits(payload, units * 2), let utf8Count = utf16Count(bytes, payload, units) else { return nil }
                string.utf8Count = utf8Count
            }
            switch field {
            case 0: identifier = string
            case 1: name = string
            case 2: path = string
            default: appInfoURL = string
            }
        }
        // Shared references cannot take such a value past the validator's expansion bounds: at
        // most 8 strings of at most 64 KiB (96 KiB as UTF-8) against 1 MiB.
        func value(_ field: Int) -> Found {
            switch field {
            case 0: identifier
            case 1: name
            case 2: path
            default: appInfoURL
            }
        }
        var spans = KnownFieldSpans()
        var total = 0
        for field in 0..<4 where seen & 1 << field != 0 {
            spans[field] = total..<total + value(field).utf8Count
            total += value(field).utf8Count
        }
        let text = String(unsafeUninitializedCapacity: total) { out in
            var at = 0
            for field in 0..<4 where seen & 1 << field != 0 {
                let found = value(field)
                if found.utf16 {
                    at = transcode(bytes, found.start, found.length, into: out, at: at)
                } else if found.length > 0 {
                    (out.baseAddress! + at).update(from: bytes.baseAddress! + found.start, count: found.length)
                    at += found.length
                }
            }
            return at
        }
        return BinaryPlistKnownFields(text: text, spans: spans)
    }

    /// Whether the `length` bytes at `position` are ASCII without a NUL, as an ASCII string
    /// object must be: eight at a time, then one by one.
    private static func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>, _ position: Int, _ length: Int) -> Bool {
        guard length > 0, let base = bytes.baseAddress else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var at = position
        let end = position + length
        while at + 8 <= end {
            let word = UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self)
            // A high bit set, or a zero byte.
            guard word & highs == 0, (word &- ones) & ~word & highs == 0 else { return false }
            at += 8
        }
        while at < end {
            guard base[at] != 0, base[at] < 0x80 else { return false }
            at += 1
        }
        return true
    }


    /// The known key spelled by `length` ASCII bytes at `position` (its index in
    /// ``DocumentSource/keys``), else nil.
    private static func knownKey(_ bytes: UnsafeBufferPointer<UInt8>, _ position: Int, _ length: Int) -> Int? {
        func spells(_ key: StaticString) -> Bool {
            guard key.utf8CodeUnitCount == length else { return false }
            let utf8 = key.utf8Start
            for i in 0..<length where bytes[position + i] != utf8[i] { return false }
            return true
        }
        switch length {
        case 4: return spells("name") ? 1 : spells("path") ? 2 : nil
        case 10: return spells("identifier") ? 0 : spells("appInfoURL") ? 3 : nil
        default: return nil
        }
    }

    /// The UTF-8 length of the `units` big-endian UTF-16 code units at `position`, or nil when
    /// they hold a lone surrogate or a NUL (which the validator refuses).
    private static func utf16Count(_ bytes: UnsafeBufferPointer<UInt8>, _ position: Int, _ units: Int) -> Int? {
        var utf8 = 0
        var i = 0
        while i < units {
            let unit = UInt16(bytes[position + 2 * i]) << 8 | UInt16(bytes[position + 2 * i + 1])
            switch unit {
            case 0: return nil
            case 0x1...0x7F: utf8 += 1
            case 0x80...0x7FF: utf8 += 2
            case 0xD800...0xDBFF:
                guard i + 1 < units else { return nil }
                let next = UInt16(bytes[position + 2 * i + 2]) << 8 | UInt16(bytes[position + 2 * i + 3])
                guard next >= 0xDC00 && next <= 0xDFFF else { return nil }
                utf8 += 4
                i += 1
            case 0xDC00...0xDFFF: return nil
            default: utf8 += 3
            }
            i += 1
        }
        return utf8
    }

    /// Writes the UTF-8 of the (checked) UTF-16 units at `position` into `out` from `at`;
    /// returns where it ended.
    private static func transcode(
        _ bytes: UnsafeBufferPointer<UInt8>, _ position: Int, _ units: Int,
        into out: UnsafeMutableBufferPointer<UInt8>, at start: Int
    ) -> Int {
        var at = start
        var i = 0
        while i < units {
            var scalar = UInt32(bytes[position + 2 * i]) << 8 | UInt32(bytes[position + 2 * i + 1])
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                let low = UInt32(bytes[position + 2 * i + 2]) << 8 | UInt32(bytes[position + 2 * i + 3])
                scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
                i += 1
            }
            i += 1
            switch scalar {
            case 0..<0x80:
                out[at] = UInt8(scalar)
                at += 1
            case 0x80..<0x800:
                out[at] = UInt8(0xC0 | scalar >> 6)
                out[at + 1] = UInt8(0x80 | scalar & 0x3F)
                at += 2
            case 0x800..<0x10000:
                out[at] = UInt8(0xE0 | scalar >> 12)
                out[at + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
                out[at + 2] = UInt8(0x80 | scalar & 0x3F)
                at += 3
            default:
                out[at] = UInt8(0xF0 | scalar >> 18)
                out[at + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
                out[at + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
                out[at + 3] = UInt8(0x80 | scalar & 0x3F)
                at += 4
            }
        }
        return at
    }
}

extension BinaryPlistKnownFields {
    /// The field at `index` of ``DocumentSource/keys``, or nil when absent.
    func string(_ index: Int) -> String? {
        guard let span = spans[index] else { return nil }
        var text = text
        return text.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[span]), as: UTF8.self) }
    }

    /// Calls `body` with each field present, in ``DocumentSource/keys`` order: its index there
    /// and its UTF-8.
    func withUTF8(_ body: (Int, UnsafeBufferPointer<UInt8>) -> Void) {
        var text = text
        text.withUTF8 { utf8 in
            for index in 0..<4 {
                if let span = spans[index] { body(index, UnsafeBufferPointer(rebasing: utf8[span])) }
            }
        }
    }
}
