internal import XDSSystem
/// Checks a binary plist (`bplist00`) completely before libplist sees it.
///
/// libplist 2.2.0 (Debian 12) trusts the trailer and offset table in ways fixed only in later
/// releases (object offsets into the header, unbounded table offsets, no depth limit, UTF-16
/// conversion over-reads), and it expands shared references by copying. So every reachable
/// object is walked here first: marker types, lengths in bounds, references below the object
/// count, nesting depth, cycles and the size of the expanded tree are all bounded.
///
/// The same walk builds the value (``decode(_:scale:)``): a value is read in one pass, with
/// no second parse by libplist. For libplist's parse (``validate(_:scale:)``, kept for
/// comparison), the walk records instead, in depth-first order, the exact value of every
/// integer, date and string: libplist 2.2 cannot report the first two exactly (its date getter
/// gives `int32_t` seconds plus microseconds, its integer getter only the low 64 bits of a
/// 16-byte integer), and its UTF-16 conversion had bugs fixed later, so its strings are
/// checked against ours.
struct BinaryPlistValidator {
    /// Containers (arrays and dictionaries) nested deeper than this are refused.
    static let maximumDepth = 64
    /// Object visits allowed, counting each reference to a shared object again (the size of
    /// the tree libplist would build); bounds memory against exponential sharing.
    static let maximumVisits = 1 << 17
    /// Bytes of objects allowed in the expanded tree (each shared object counted once per
    /// reference): a 60 KB string referenced 2^17 times must not become 8 GB in libplist.
    static let maximumExpandedBytes = 1 << 20

    /// The exact integers, dates and strings (dictionary keys included), in the order a
    /// depth-first walk meets them.
    enum ExactScalar: Equatable {
        case integer(PropertyListValue)
        case date(Double)
        case string(String)
    }

    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let rootIndex: Int
    private let tableOffset: Int
    private var onPath: [Bool]
    private var visits = 0
    private var expandedBytes = 0
    /// Strings already checked, by object index, so shared strings are decoded once: an array
    /// as long as the object table, as ``onPath`` (a Dictionary keyed by index cost a fifth of
    /// the decoding of a 4-key value in hashing and growing: issue 35).
    private var checkedStrings: [String?]
    private(set) var scalars: [ExactScalar] = []
    /// The expansion bounds in force: the static ones times the caller's scale.
    private var visitLimit = maximumVisits
    private var expandedByteLimit = maximumExpandedBytes
    /// Whether ``scalars`` is kept (for libplist's parse); otherwise only the value is built.
    private var recordsScalars = true

    /// Validates `bytes` and returns the exact integers, dates and strings in depth-first order.
    /// `scale` multiplies the expansion bounds, for inputs larger than an attribute value.
    static func validate(_ bytes: [UInt8], scale: Int = 1) throws(PropertyListError) -> [ExactScalar] {
        var validator = try BinaryPlistValidator(bytes, threeByteSizes: scale > 1)
        validator.visitLimit = maximumVisits * max(1, scale)
        validator.expandedByteLimit = maximumExpandedBytes * max(1, scale)
        try validator.checkOffsetTable()
        _ = try validator.visit(validator.rootIndex, depth: 0)
        return validator.scalars
    }

    /// Validates `bytes` as ``validate(_:scale:)`` does and returns the value, built in the
    /// same walk: the value libplist would read, with exact integers, dates and strings.
    static func decode(_ bytes: [UInt8], scale: Int = 1) throws(PropertyListError) -> PropertyListValue {
        var validator = try BinaryPlistValidator(bytes, threeByteSizes: scale > 1)
        validator.visitLimit = maximumVisits * max(1, scale)
        validator.expandedByteLimit = maximumExpandedBytes * max(1, scale)
        validator.recordsScalars = false
        try validator.checkOffsetTable()
        return try validator.visit(validator.rootIndex, depth: 0)
    }

    /// `threeByteSizes` also accepts offsets and references of 3 bytes, which libplist writes
    /// for plists over 64 KiB (and reads back; CoreFoundation reads 1 to 8): only for inputs
    /// larger than an attribute value, whose rules stay as they were.
    private init(_ bytes: [UInt8], threeByteSizes: Bool = false) throws(PropertyListError) {
        self.bytes = bytes
        let count = bytes.count
        // Compared in place: two arrays made for it were a tenth of a small value's decoding.
        guard count >= 8, bytes[0] == 0x62, bytes[1] == 0x70, bytes[2] == 0x6C, bytes[3] == 0x69,
              bytes[4] == 0x73, bytes[5] == 0x74 else {
            throw PropertyListError(.notAPropertyList, "not a binary plist: the data does not start with 'bplist'")
        }
        guard bytes[6] == UInt8(ascii: "0"), bytes[7] == UInt8(ascii: "0") else {
            let version = String(decoding: bytes[6..<8], as: UTF8.self)
            throw PropertyListError(.notAPropertyList, "binary plist version \(PropertyListError.quoted(version)) is not supported (only bplist00)")
        }
        let trailer = try bytes.withUnsafeBufferPointer { buffer throws(PropertyListError) in
            try BinaryPlistTrailer(buffer, threeByteSizes: threeByteSizes)
        }
        offsetSize = trailer.offsetSize
        referenceSize = trailer.referenceSize
        objectCount = trailer.objectCount
        rootIndex = trailer.rootIndex
        tableOffset = trailer.tableOffset
        onPath = Array(repeating: false, count: objectCount)
        checkedStrings = Array(repeating: nil, count: objectCount)
    }

    /// Every entry of the offset table must point into the object area: after the 8-byte
    /// header and before the offset table itself.
    private func checkOffsetTable() throws(PropertyListError) {
        for index in 0..<objectCount {
            let offset = BinaryPlistTrailer.unsigned(bytes, at: tableOffset + index * offsetSize, width: offsetSize)
            guard offset >= 8 else {
                throw PropertyListError(.offsetTable, "binary plist: object \(index) starts inside the header (offset \(offset))")
            }
            guard offset < UInt64(tableOffset) else {
                throw PropertyListError(.offsetTable, "binary plist: object \(index) starts at offset \(offset), beyond the objects (offset table at \(tableOffset))")
            }
        }
    }

    private func offset(of index: Int) -> Int {
        Int(BinaryPlistTrailer.unsigned(bytes, at: tableOffset + index * offsetSize, width: offsetSize))
    }

    /// Bytes from `position` (inclusive) must end at or before the offset table.
    private func require(_ position: Int, _ length: Int, _ what: @autoclosure () -> String) throws(PropertyListError) {
        guard length >= 0, position <= tableOffset, length <= tableOffset - position else {
            throw PropertyListError(.object, "binary plist: \(what()) runs past the end of the objects")
        }
    }

    /// Reads the element count of a marker whose low nibble is the count, or 0xF followed by
    /// an integer object holding it. Returns the count and where the payload starts.
    private func count(at offset: Int, lowNibble: UInt8, index: Int) throws(PropertyListError) -> (Int, Int) {
        if lowNibble != 0xF { return (Int(lowNibble), offset + 1) }
        try require(offset + 1, 1, "the length of object \(index)")
        let marker = bytes[offset + 1]
        guard marker >> 4 == 0x1, marker & 0xF <= 3 else {
            throw PropertyListError(.object, "binary plist: object \(index) has a malformed length (marker 0x\(hex(marker)))")
        }
        let size = 1 << Int(marker & 0xF)
        try require(offset + 2, size, "the length of object \(index)")
        let value = BinaryPlistTrailer.unsigned(bytes, at: offset + 2, width: size)
        // No length can exceed the bytes that exist; this also rules out overflow below.
        guard value <= UInt64(bytes.count) else {
            throw PropertyListError(.object, "binary plist: object \(index) claims \(value) elements, more than the data holds")
        }
        return (Int(value), offset + 2 + size)
    }

    private func checkedReference(at position: Int, from index: Int) throws(PropertyListError) -> Int {
        let ref = BinaryPlistTrailer.unsigned(bytes, at: position, width: referenceSize)
        guard ref < UInt64(objectCount) else {
            throw PropertyListError(.reference, "binary plist: object \(index) refers to object \(ref), but there are only \(objectCount)")
        }
        return Int(ref)
    }

    /// Counts one more object of `size` bytes in the tree libplist would build.
    private mutating func spend(_ size: Int) throws(PropertyListError) {
        visits += 1
        expandedBytes += size
        guard visits <= visitLimit else {
            throw PropertyListError(.expansion, "binary plist expands to more than \(visitLimit) values through shared references")
        }
        guard expandedBytes <= expandedByteLimit else {
            throw PropertyListError(.expansion, "binary plist expands to more than \(expandedByteLimit) bytes through shared references")
        }
    }

    private mutating func visit(_ index: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        try spend(1)
        let offset = offset(of: index)
        let marker = bytes[offset]
        let low = marker & 0xF
        switch marker >> 4 {
        case 0x0:
            switch low {
            case 0x8: return .boolean(false)
            case 0x9: return .boolean(true)
            case 0x0: throw PropertyListError(.object, "binary plist: object \(index) is a null, which property lists do not allow")
            default: throw PropertyListError(.object, "binary plist: object \(index) has an unknown type (marker 0x\(hex(marker)))")
            }
        case 0x1:
            guard low <= 4 else {
                throw PropertyListError(.object, "binary plist: integer object \(index) has an invalid size (marker 0x\(hex(marker)))")
            }
            let size = 1 << Int(low)
            try require(offset + 1, size, "integer object \(index)")
            let start = offset + 1
            let value: PropertyListValue
            switch size {
            case 16:
                let high = BinaryPlistTrailer.unsigned(bytes, at: start, width: 8)
                let lowBits = BinaryPlistTrailer.unsigned(bytes, at: start + 8, width: 8)
                // Sixteen bytes are a signed 128-bit integer: it must fit in UInt64 or Int64.
                if high == 0 {
                    value = .integer(unsigned: lowBits)
                } else if high == UInt64.max, lowBits >> 63 == 1 {
                    value = .integer(Int64(bitPattern: lowBits))
                } else {
                    throw PropertyListError(.integer, "binary plist: integer object \(index) does not fit in 64 bits")
                }
            case 8:
                // Eight-byte integers are signed; shorter ones unsigned (as CoreFoundation reads them).
                value = .integer(Int64(bitPattern: BinaryPlistTrailer.unsigned(bytes, at: start, width: 8)))
            default:
                value = .integer(Int64(BinaryPlistTrailer.unsigned(bytes, at: start, width: size)))
            }
            if recordsScalars { scalars.append(.integer(value)) }
            return value
        case 0x2:
            guard low == 2 || low == 3 else {
                throw PropertyListError(.object, "binary plist: real object \(index) has an invalid size (marker 0x\(hex(marker)))")
            }
            try require(offset + 1, 1 << Int(low), "real object \(index)")
            // A 4-byte real is a float, widened exactly (as libplist reads it).
            return low == 2
                ? .real(Double(Float(bitPattern: UInt32(BinaryPlistTrailer.unsigned(bytes, at: offset + 1, width: 4)))))
                : .real(Double(bitPattern: BinaryPlistTrailer.unsigned(bytes, at: offset + 1, width: 8)))
        case 0x3:
            guard low == 3 else {
                throw PropertyListError(.object, "binary plist: date object \(index) has an invalid size (marker 0x\(hex(marker)))")
            }
            try require(offset + 1, 8, "date object \(index)")
            let seconds = Double(bitPattern: BinaryPlistTrailer.unsigned(bytes, at: offset + 1, width: 8))
            // libplist converts the date to a C long; out-of-range doubles are undefined behaviour there.
            guard seconds.isFinite, abs(seconds) < 0x1p62 else {
                throw PropertyListError(.date, "binary plist: date object \(index) is not a representable time (\(seconds))")
            }
            if recordsScalars { scalars.append(.date(seconds)) }
            return .date(seconds)
        case 0x4:
            let (length, start) = try count(at: offset, lowNibble: low, index: index)
            try require(start, length, "data object \(index)")
            try spend(length)
            return .data(Array(bytes[start..<start + length]))
        case 0x5, 0x6:
            return .string(try string(index))
        case 0x8:
            // CoreFoundation writes UIDs of 1, 2 or 4 bytes; libplist 2.2 fails on 8-byte ones.
            let size = Int(low) + 1
            guard [1, 2, 4].contains(size) else {
                throw PropertyListError(.object, "binary plist: UID object \(index) has a size of \(size) bytes; only 1, 2 or 4 (32-bit UIDs) are supported")
            }
            try require(offset + 1, size, "UID object \(index)")
            return .uid(BinaryPlistTrailer.unsigned(bytes, at: offset + 1, width: size))
        case 0xA, 0xD:
            let isDictionary = marker >> 4 == 0xD
            let kind = isDictionary ? "dictionary" : "array"
            guard depth < Self.maximumDepth else {
                throw PropertyListError(.tooDeep, "property list is nested more than \(Self.maximumDepth) levels deep")
            }
            guard !onPath[index] else {
                throw PropertyListError(.cycle, "binary plist has a cycle: \(kind) object \(index) contains itself")
            }
            let (elements, start) = try count(at: offset, lowNibble: low, index: index)
            let references = isDictionary ? elements * 2 : elements
            try require(start, references * referenceSize, "\(kind) object \(index)")
            try spend(references * 8)
            onPath[index] = true
            defer { onPath[index] = false }
            if isDictionary {
                var entries: [String: PropertyListValue] = [:]
                entries.reserveCapacity(elements)
                for i in 0..<elements {
                    let keyIndex = try checkedReference(at: start + i * referenceSize, from: index)
                    let key = try string(keyIndex, asKeyOf: index)
                    // Keys compare as Swift strings (canonical equivalence), as they always did.
                    guard entries[key] == nil else {
                        throw PropertyListError(.duplicateKey, "binary plist: dictionary object \(index) has the key \(PropertyListError.quoted(key)) twice")
                    }
                    let valueIndex = try checkedReference(at: start + (elements + i) * referenceSize, from: index)
                    entries[key] = try visit(valueIndex, depth: depth + 1)
                }
                return .dictionary(entries)
            } else {
                var children: [PropertyListValue] = []
                children.reserveCapacity(elements)
                for i in 0..<elements {
                    let child = try checkedReference(at: start + i * referenceSize, from: index)
                    children.append(try visit(child, depth: depth + 1))
                }
                return .array(children)
            }
        default:
            throw PropertyListError(.object, "binary plist: object \(index) has an unsupported type (marker 0x\(hex(marker)))")
        }
    }

    /// Decodes and checks a string object: ASCII strings must be 7-bit, UTF-16 strings must
    /// have no lone surrogates, and neither may contain NUL (libplist keeps C strings).
    private mutating func string(_ index: Int, asKeyOf dictionary: Int? = nil) throws(PropertyListError) -> String {
        // Described only when something is wrong: building it for every string cost more than
        // decoding the string.
        func what() -> String { dictionary.map { "key object \(index) of dictionary object \($0)" } ?? "string object \(index)" }
        if dictionary != nil {
            try spend(1)
        }
        let string: String
        if let known = checkedStrings[index] {
            string = known
        } else {
            string = try decodeString(index, what: what(), isKey: dictionary != nil)
            checkedStrings[index] = string
        }
        try spend(string.utf8.count)
        if recordsScalars { scalars.append(.string(string)) }
        return string
    }

    private func decodeString(_ index: Int, what: @autoclosure () -> String, isKey: Bool) throws(PropertyListError) -> String {
        let offset = offset(of: index)
        let marker = bytes[offset]
        switch marker >> 4 {
        case 0x5:
            let (length, start) = try count(at: offset, lowNibble: marker & 0xF, index: index)
            try require(start, length, what())
            let slice = bytes[start..<start + length]
            if let bad = slice.first(where: { $0 >= 0x80 || $0 == 0 }) {
                throw PropertyListError(.text, "binary plist: \(what()) has a \(bad == 0 ? "NUL" : "non-ASCII") byte in an ASCII string")
            }
            return String(decoding: slice, as: UTF8.self)
        case 0x6:
            let (length, start) = try count(at: offset, lowNibble: marker & 0xF, index: index)
            // libplist 2.2 fails on an empty UTF-16 string (CoreFoundation writes "" as ASCII).
            guard length > 0 else {
                throw PropertyListError(.text, "binary plist: \(what()) is an empty UTF-16 string, which libplist 2.2 cannot read")
            }
            try require(start, length * 2, what())
            var units: [UInt16] = []
            units.reserveCapacity(length)
            for i in 0..<length {
                units.append(UInt16(bytes[start + 2 * i]) << 8 | UInt16(bytes[start + 2 * i + 1]))
            }
            var result = ""
            var decoder = UTF16()
            var iterator = units.makeIterator()
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar):
                    guard scalar != "\0" else {
                        throw PropertyListError(.text, "binary plist: \(what()) contains a NUL character")
                    }
                    result.unicodeScalars.append(scalar)
                case .emptyInput: break loop
                case .error:
                    throw PropertyListError(.text, "binary plist: \(what()) is invalid UTF-16 (a lone surrogate)")
                }
            }
            return result
        default:
            guard !isKey else {
                throw PropertyListError(.object, "binary plist: \(what()) is not a string (marker 0x\(hex(marker)))")
            }
            throw PropertyListError(.object, "binary plist: \(what()) is not a string")
        }
    }
}

func hex(_ byte: UInt8) -> String { Hex.string(CollectionOfOne(byte)) }
