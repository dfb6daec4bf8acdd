internal import XDSSystem

internal import XDSSystem

/// The extended attributes packed into an AppleDouble file (`._NAME`), as macOS writes them on
/// filesystems without extended attributes and inside `__MACOSX/` folders of Finder zips.
///
/// The layout (all integers big-endian): a 26-byte header with magic `0x00051607`, version
/// `0x00020000` and an entry count; 12-byte entry descriptors (id, offset, length); entry 9
/// (Finder info) holds 32 bytes of Finder info, 2 bytes of padding, then an `ATTR` header and
/// the packed attributes. The file is data written by someone else, so every count, offset and
/// length is checked before it is used (the checks of xnu's `vfs_xattr.c` and Samba's
/// `adouble.c`); a bad file is refused with an ``AppleDoubleError``, never read out of bounds.
public struct AppleDouble: Sendable {
    /// One packed extended attribute.
    public struct Attribute: Sendable, Equatable {
        /// The attribute's name, as macOS spells it (no `user.` prefix).
        public var name: String
        /// The attribute's value, exactly as stored.
        public var value: [UInt8]

        /// Creates an attribute (for ``AppleDouble/newFile(attributes:)``).
        public init(name: String, value: [UInt8]) {
            self.name = name
            self.value = value
        }
    }

    /// The packed extended attributes, in file order (empty when there are none).
    public let attributes: [Attribute]

    /// The 32 bytes of Finder info (`com.apple.FinderInfo`), or nil without a Finder-info entry.
    public let finderInfo: [UInt8]?

    /// The part of an AppleDouble file that can hold attributes: xnu keeps the header, the
    /// entries and the attribute area within the first 64 KiB.
    public static let attributeAreaLimit = 65_536

    // magic, version, attrMagic, finderInfoID and maximumEntries (15, xnu's limit) are
    // shared with the writer, in AppleDoubleWriter.swift.
    private static let maximumAttributes = 1024  // Samba's limit

    /// Parses an AppleDouble file.
    ///
    /// - Parameters:
    ///   - bytes: the start of the file: all of it, or at least its first
    ///     ``attributeAreaLimit`` bytes (attributes never lie beyond them).
    ///   - fileSize: the size of the whole file, when `bytes` holds only its start; entries are
    ///     checked against it.
    /// - Throws: ``AppleDoubleError`` naming the first inconsistency found.
    public init(bytes: [UInt8], fileSize: Int? = nil) throws(AppleDoubleError) {
        let size = fileSize ?? bytes.count
        guard size >= bytes.count else { throw .truncated("the file size is smaller than its data") }
        let reader = BigEndianReader(bytes)
        guard bytes.count >= 26 else { throw .truncated("the header needs 26 bytes, the file has \(bytes.count)") }
        guard reader.u32(0) == Self.magic else { throw .notAppleDouble }
        guard reader.u32(4) == Self.version else {
            throw .unsupportedVersion(reader.u32(4) ?? 0)
        }
        let count = Int(reader.u16(24) ?? 0)
        guard (1...Self.maximumEntries).contains(count) else {
            throw .outOfRange("the entry count \(count) is not between 1 and \(Self.maximumEntries)")
        }
        let tableEnd = 26 + 12 * count
        guard tableEnd <= bytes.count else { throw .truncated("the entry table runs past the end of the file") }

        // Entry descriptors: inside the file, after the table, not overlapping each other.
        var entries: [(id: UInt32, offset: Int, length: Int)] = []
        for index in 0..<count {
            let at = 26 + 12 * index
            let id = reader.u32(at)!, offset = Int(reader.u32(at + 4)!), length = Int(reader.u32(at + 8)!)
            // Ints are 64-bit here, so offset + length of two UInt32 values cannot overflow.
            guard offset >= tableEnd else {
                throw .outOfRange("entry \(id) starts at \(offset), inside the header")
            }
            guard offset + length <= size else {
                throw .outOfRange("entry \(id) (offset \(offset), length \(length)) runs past the end of the file (\(size) bytes)")
            }
            entries.append((id, offset, length))
        }
        let sorted = entries.filter { $0.length > 0 }.sorted { $0.offset < $1.offset }
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.offset + a.length > b.offset {
            throw .overlapping("entries \(a.id) and \(b.id) overlap")
        }

        guard let info = entries.first(where: { $0.id == Self.finderInfoID }) else {
            finderInfo = nil
            attributes = []
            return
        }
        guard info.length >= 32 else {
            throw .outOfRange("the Finder-info entry is \(info.length) bytes, less than 32")
        }
        guard info.offset + 32 <= bytes.count else { throw .truncated("the Finder info lies beyond the data read") }
        finderInfo = Array(bytes[info.offset..<info.offset + 32])
        // Samba's rule: attributes exist only when the entry is longer than the Finder info.
        guard info.length > 32 else {
            attributes = []
            return
        }
        attributes = try Self.parseAttributes(reader, entry: (info.offset, info.length), available: bytes.count)
    }

    /// Returns the value of the attribute called `name`, or nil when the file has none.
    public func value(named name: String) -> [UInt8]? {
        attributes.first { $0.name == name }?.value
    }

    /// Whether a resource fork (the bytes of entry 2) holds nothing: none at all, or the empty
    /// resource map macOS writes into every `._` file Finder makes ("This resource fork
    /// intentionally left blank": a 256-byte header saying no data, then a 30-byte map with no
    /// type, 286 bytes; xnu's `init_empty_resource_fork`, Samba's `empty_resourcefork`). Read
    /// by its header, not by the tag: no resource data and a map too short for a type list (30
    /// bytes or less) hold no resource, whatever else is in the fork's first 512 bytes.
    /// The one definition for stripping a sidecar (``edited(_:removing:)``) and for cleaning an
    /// archive's `._` entry (`xds strip ARCHIVE -o CLEAN`).
    public static func isEmptyResourceFork(_ fork: ArraySlice<UInt8>) -> Bool {
        if fork.isEmpty { return true }
        guard (16...512).contains(fork.count) else { return false }
        let header = Array(fork.prefix(16))  // data offset, map offset, data length, map length
        return BigEndian.uint32(header, at: 8) == 0 && BigEndian.uint32(header, at: 12) <= 30
    }

    private static func parseAttributes(
        _ reader: BigEndianReader, entry: (offset: Int, length: Int), available: Int
    ) throws(AppleDoubleError) -> [Attribute] {
        let header = entry.offset + 34  // 32 bytes of Finder info, 2 of padding
        let entryEnd = entry.offset + entry.length
        guard header + 36 <= entryEnd, header + 36 <= available else {
            throw .truncated("the Finder-info entry is too short for an attribute header")
        }
        guard reader.u32(header) == attrMagic else { throw .badAttributeHeader("no ATTR magic") }
        let totalSize = Int(reader.u32(header + 8)!)
        let dataStart = Int(reader.u32(header + 12)!)
        let dataLength = Int(reader.u32(header + 16)!)
        let attributeCount = Int(reader.u16(header + 34)!)
        let firstEntry = header + 36
        guard totalSize <= entryEnd, totalSize <= attributeAreaLimit, totalSize <= available else {
            throw .outOfRange("the attribute area size \(totalSize) runs past its entry or beyond 64 KiB")
        }
        guard dataStart >= firstEntry, dataStart + dataLength <= totalSize else {
            throw .outOfRange("the attribute data (start \(dataStart), length \(dataLength)) lies outside the attribute area")
        }
        guard attributeCount <= maximumAttributes else {
            throw .outOfRange("\(attributeCount) attributes, more than \(maximumAttributes)")
        }

        var result: [Attribute] = []
        var spans: [(start: Int, end: Int)] = []
        var at = firstEntry
        for index in 0..<attributeCount {
            at = (at + 3) & ~3  // each entry starts 4-byte aligned
            guard at + 11 <= dataStart else {
                throw .outOfRange("attribute entry \(index) runs into the attribute data")
            }
            let offset = Int(reader.u32(at)!)
            let length = Int(reader.u32(at + 4)!)
            let nameLength = Int(reader.u8(at + 10)!)
            let nameStart = at + 11
            guard nameLength > 0, nameStart + nameLength <= dataStart else {
                throw .outOfRange("the name of attribute entry \(index) has a bad length (\(nameLength))")
            }
            guard reader.u8(nameStart + nameLength - 1) == 0 else {
                throw .badAttributeHeader("the name of attribute entry \(index) is not NUL-terminated")
            }
            // An empty value at offset 0 is how Apple's bsdtar and copyfile write an empty
            // attribute (libarchive's test_compat_mac-2): valid, and it points at nothing.
            let emptyAtZero = offset == 0 && length == 0
            guard emptyAtZero || (offset >= dataStart && offset + length <= totalSize) else {
                throw .outOfRange("the value of attribute entry \(index) (offset \(offset), length \(length)) lies outside the attribute data")
            }
            let nameBytes = reader.bytes[nameStart..<nameStart + nameLength - 1]
            guard let name = String(validatingUTF8Bytes: nameBytes) else {
                throw .badAttributeHeader("the name of attribute entry \(index) is not UTF-8")
            }
            if length > 0 { spans.append((offset, offset + length)) }
            result.append(Attribute(name: name, value: Array(reader.bytes[offset..<offset + length])))
            at = nameStart + nameLength
        }
        spans.sort { $0.start < $1.start }
        for (a, b) in zip(spans, spans.dropFirst()) where a.end > b.start {
            throw .overlapping("two attribute values overlap (at \(b.start))")
        }
        return result
    }
}

/// Why an AppleDouble file was refused.
public enum AppleDoubleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file does not start with the AppleDouble magic number.
    case notAppleDouble
    /// The header names a version other than 2.
    case unsupportedVersion(UInt32)
    /// The file ends before a structure it declares.
    case truncated(String)
    /// A count, offset or length lies outside what the file allows.
    case outOfRange(String)
    /// Two entries or two attribute values share bytes.
    case overlapping(String)
    /// The `ATTR` header or an attribute entry is malformed.
    case badAttributeHeader(String)
    /// An edit would not fit: more than 64 KiB of attributes, more than 15 entries, or a file
    /// larger than ``AppleDouble/maximumFileSize`` (the file itself is not at fault).
    case tooLarge(String)

    /// One line in words, suitable after "malformed AppleDouble file: ".
    public var description: String {
        switch self {
        case .notAppleDouble: "not an AppleDouble file (bad magic number)"
        case .unsupportedVersion(let v): "unsupported AppleDouble version 0x\(String(v, radix: 16))"
        case .truncated(let what): "truncated: \(what)"
        case .outOfRange(let what), .overlapping(let what), .badAttributeHeader(let what), .tooLarge(let what): what
        }
    }
}

/// Bounds-checked big-endian reads over XDSSystem's `BigEndian`; a read past the end
/// returns nil (the AppleDouble file is hostile input: every offset is checked first).
struct BigEndianReader {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func u8(_ at: Int) -> UInt8? { at >= 0 && at < bytes.count ? bytes[at] : nil }

    func u16(_ at: Int) -> UInt16? {
        guard at >= 0, at + 2 <= bytes.count else { return nil }
        return BigEndian.uint16(bytes, at: at)
    }

    func u32(_ at: Int) -> UInt32? {
        guard at >= 0, at + 4 <= bytes.count else { return nil }
        return BigEndian.uint32(bytes, at: at)
    }
}
