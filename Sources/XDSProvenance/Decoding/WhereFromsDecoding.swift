import XDocSource

/// `com.apple.metadata:kMDItemWhereFroms`: a binary property list, an array of strings (a
/// browser's file URL then the page; Mail's From, Subject and Message-ID). Over 1 MiB or
/// 1 000 strings is damaged data: the count is read from the binary plist's trailer and root
/// object header before anything is parsed, then XDocSource's validator and coder read it.
enum WhereFromsDecoding {
    static func decode(_ raw: [UInt8]) -> ProvenanceMark.Content {
        let limit = ProvenanceDecoder.maximumWhereFromsCount
        if let count = BinaryPlistPeek.rootArrayCount(raw), count > limit {
            return TextDecoding.undecodable(raw, "the WhereFroms list holds \(count) strings, more than the \(limit) accepted (damaged data)")
        }
        let root: PropertyListValue
        switch PlistDecoding.decode(raw, maximumSize: ProvenanceDecoder.maximumSize(of: .whereFroms)) {
        case .success(let value): root = value
        case .failure(let error): return TextDecoding.undecodable(raw, "malformed WhereFroms list: \(error)")
        }
        guard case .array(let items) = root else {
            return TextDecoding.undecodable(raw, "the WhereFroms value is \(root.typeNameInSentence), not an array of strings")
        }
        guard items.count <= limit else {
            return TextDecoding.undecodable(raw, "the WhereFroms list holds \(items.count) strings, more than the \(limit) accepted (damaged data)")
        }
        var strings: [String] = []
        strings.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else {
                return TextDecoding.undecodable(raw, "item \(index + 1) of the WhereFroms list is \(item.typeNameInSentence), not a string")
            }
            strings.append(text)
        }
        return .whereFroms(strings)
    }
}

/// `com.apple.metadata:kMDItemDownloadedDate`: a property list array of dates; the first is
/// the time (a lone date is taken too). No date first in the list is undecodable.
enum DownloadedDateDecoding {
    static func decode(_ raw: [UInt8]) -> ProvenanceMark.Content {
        let root: PropertyListValue
        switch PlistDecoding.decode(raw, maximumSize: ProvenanceDecoder.maximumSize(of: .downloadedDate)) {
        case .success(let value): root = value
        case .failure(let error): return TextDecoding.undecodable(raw, "malformed downloaded-date list: \(error)")
        }
        var first = root
        if case .array(let items) = root {
            guard let item = items.first else {
                return TextDecoding.undecodable(raw, "the downloaded-date list holds no date")
            }
            first = item
        }
        guard case .date(let secondsSince2001) = first else {
            return TextDecoding.undecodable(raw, "the downloaded-date value holds \(first.typeNameInSentence), not a date")
        }
        guard let time = PlistDecoding.time(secondsSince2001) else {
            return TextDecoding.undecodable(raw, "the downloaded date \(secondsSince2001) is not a time that can be shown")
        }
        return .downloadedDate(time)
    }
}

/// Property lists through XDocSource's coder, with Netatalk's trailing NUL tolerated.
enum PlistDecoding {
    /// The root value: as it is, or without one trailing NUL when that fails.
    static func decode(_ bytes: [UInt8], maximumSize: Int) -> Result<PropertyListValue, PropertyListError> {
        // An attribute-sized value takes the validator's one walk; only a larger one (an
        // archive's WhereFroms) goes through libplist with proportionally larger bounds.
        let size = bytes.count <= PropertyList.maximumSize ? PropertyList.maximumSize : maximumSize
        do {
            return .success(try PropertyList.decode(bytes, maximumSize: size))
        } catch {
            if bytes.last == 0, let value = try? PropertyList.decode(Array(bytes.dropLast()), maximumSize: size) {
                return .success(value)
            }
            return .failure(error)
        }
    }

    /// A property-list date (seconds since 2001, a double) as a time, to the microsecond (as
    /// XDocSource shows plist dates); nil for non-finite or far-out values.
    static func time(_ secondsSince2001: Double) -> ProvenanceTime? {
        guard let micros = PropertyListDate.microseconds(secondsSince2001) else { return nil }
        let whole = micros >= 0 ? micros / 1_000_000 : -((-micros + 999_999) / 1_000_000)
        let fraction = micros - whole * 1_000_000
        return ProvenanceTime(seconds: whole + PropertyListDate.epochOffset, nanoseconds: Int32(fraction * 1000))
    }
}

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
