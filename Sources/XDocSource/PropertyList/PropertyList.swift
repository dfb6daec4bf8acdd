internal import CPlist
internal import XDSSystem

/// Property-list coding over libplist, hardened for values written by someone else.
///
/// This is the only file that calls libplist. Binary input is checked completely by
/// `BinaryPlistValidator`, which also builds the value of an attribute-sized plist in the same
/// walk (libplist then does not parse it again); XML input is checked by `XMLPlistValidator`
/// before libplist parses it (and turns it into binary, read as above); libplist writes.
///
/// Any libplist from 2.2 to 2.7 does (CPlist loads libplist-2.0.so.4 or .so.3 and hides how
/// their functions differ); the values are the same with each (the property-list
/// suites pass with 2.2, 2.3.0 and 2.7.0: scripts/test-libplist-version.sh).
///
/// Precision, with libplist 2.2 (Debian 12):
/// * Binary dates round-trip bit for bit. libplist 2.2's date API is lossy: the getter
///   `plist_get_date_val` and the constructor `plist_new_date` take `int32_t` seconds plus
///   microseconds (years 1933–2069 only, no finer than 1 µs). Internally it keeps the stored
///   double, so neither is used here: dates are read from the validator's walk of the bytes
///   and built by parsing a one-object binary plist, which keeps the double as it is.
///   XML dates carry whole seconds only (libplist 2.2 reads and writes no fraction there).
/// * Integers of every size round-trip: negative ones as 8-byte integers, values above
///   `Int64.max` as 16-byte integers, as CoreFoundation writes them.
/// * Strings must not contain NUL characters (libplist keeps C strings).
/// * UIDs are 32-bit, as CoreFoundation writes them (libplist 2.2 cannot read 8-byte UIDs
///   and writes only the low 32 bits).
public enum PropertyList {
    /// Largest value accepted for decoding (65536 bytes, the Linux per-value limit).
    public static let maximumSize: Int = 65536

    /// Deepest nesting of arrays and dictionaries accepted, when decoding and encoding.
    public static let maximumDepth: Int = BinaryPlistValidator.maximumDepth

    /// Decodes binary (bplist00) or XML plist bytes. Validates binary structure itself before libplist.
    ///
    /// - Parameters:
    ///   - bytes: The encoded property list, at most `maximumSize` bytes.
    ///   - maximumSize: The largest input accepted: ``maximumSize`` (the attribute limit) unless
    ///     a caller reads bigger documents (an app's Info.plist, see `XDSPublish`'s `AppBundle`). The bounds on
    ///     what shared binary references may expand to grow in proportion.
    /// - Returns: The root value, of any type.
    /// - Throws: ``PropertyListError`` naming the first problem found.
    public static func decode(_ bytes: [UInt8], maximumSize: Int = PropertyList.maximumSize) throws(PropertyListError) -> PropertyListValue {
        guard !bytes.isEmpty else {
            throw PropertyListError(.notAPropertyList, "the value is empty, not a property list")
        }
        guard bytes.count <= maximumSize else {
            throw PropertyListError(.tooLarge, "the value is \(bytes.count) bytes, more than the \(maximumSize) accepted for a property list")
        }
        if bytes.starts(with: "bplist".utf8) {
            return try decodeBinary(bytes, scale: scale(maximumSize))
        }
        guard looksLikeXML(bytes) else {
            throw PropertyListError(.notAPropertyList, "not a property list: neither binary (bplist00) nor XML")
        }
        try XMLPlistValidator.validate(bytes)
        try requireLibplist()
        let root = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { cplist_from_xml($0.baseAddress, UInt32(buffer.count)) }
        }
        guard let root else {
            throw PropertyListError(.xmlSyntax, "XML plist is malformed")
        }
        defer { plist_free(root) }
        // libplist 2.2 cannot say whether an XML integer was negative or above Int64.max
        // (both come back as the same 64 bits), but its binary writer can: so the tree goes
        // through binary and is read like any other binary value.
        let binary = try binaryBytes(of: root)
        guard binary.count <= maximumSize * 4 else {
            throw PropertyListError(.tooLarge, "XML plist is too large once converted")
        }
        return try decodeBinary(binary, scale: scale(maximumSize))
    }

    /// How many times the attribute limit `maximumSize` is (at least 1): the validator's
    /// expansion bounds are multiplied by it.
    private static func scale(_ maximumSize: Int) -> Int {
        max(1, (maximumSize + PropertyList.maximumSize - 1) / PropertyList.maximumSize)
    }

    /// Decodes a binary plist: an attribute-sized one (`scale` 1) in the validator's one walk
    /// (``BinaryPlistValidator/decode(_:scale:)``), a larger document (an app's Info.plist)
    /// through libplist as before (``decodeBinaryWithLibplist(_:scale:)``). Both give the same
    /// value for every input (a test compares them on random and damaged property lists).
    private static func decodeBinary(_ bytes: [UInt8], scale: Int) throws(PropertyListError) -> PropertyListValue {
        guard scale == 1 else { return try decodeBinaryWithLibplist(bytes, scale: scale) }
        return try BinaryPlistValidator.decode(bytes, scale: scale)
    }

    /// Validates, then parses with libplist, then converts.
    static func decodeBinaryWithLibplist(_ bytes: [UInt8], scale: Int = 1) throws(PropertyListError) -> PropertyListValue {
        let scalars = try BinaryPlistValidator.validate(bytes, scale: scale)
        try requireLibplist()
        let root = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { cplist_from_bin($0.baseAddress, UInt32(buffer.count)) }
        }
        guard let root else {
            throw PropertyListError(.libplist, "binary plist could not be parsed by libplist")
        }
        defer { plist_free(root) }
        var converter = Converter(scalars: scalars)
        let value = try converter.value(of: root, depth: 0)
        guard converter.next == scalars.count else {
            throw PropertyListError(.libplist, "binary plist: libplist read a different structure than the validator")
        }
        return value
    }

    /// Whether libplist, which encodes and parses XML, could be loaded (CPlist loads it on
    /// first use; decoding binary attribute values does not need it).
    static var isCoderAvailable: Bool { cplist_available() != 0 }

    /// Loads libplist (on first use, CPlist) or says why it cannot be, in one line naming it:
    /// "libplist is not installed (tried …)", "libplist 2.2 or older (FILE) lacks FUNCTION".
    private static func requireLibplist() throws(PropertyListError) {
        guard !isCoderAvailable else { return }
        throw PropertyListError(.libplist, String(cString: cplist_load_error()))
    }

    /// The libplist xds would load, for `xds --version` and bug reports: "libplist 2.7.0
    /// (/usr/lib/…/libplist-2.0.so.4.11.0)", or why none can be (loads it).
    public static var libraryDescription: String { String(cString: cplist_description()) }

    /// Serialises a libplist tree to binary bytes.
    private static func binaryBytes(of root: plist_t) throws(PropertyListError) -> [UInt8] {
        var buffer: UnsafeMutablePointer<CChar>? = nil
        var length: UInt32 = 0
        cplist_to_bin(root, &buffer, &length)
        guard let buffer else {
            throw PropertyListError(.libplist, "libplist could not encode the property list")
        }
        defer { cplist_free_encoded(buffer) }
        return buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(length)))
        }
    }

    /// Encodes as binary plist (bplist00) via libplist.
    ///
    /// Dictionary keys are written in sorted order. Equal values usually give equal bytes,
    /// but not always: libplist 2.2 merges equal data objects only when their node addresses
    /// hash alike, so the layout (never the value) can vary between runs.
    /// - Throws: ``PropertyListError`` for values libplist cannot store (strings containing
    ///   NUL, nesting deeper than ``maximumDepth``) or when libplist produces nothing.
    public static func encodeBinary(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        try requireLibplist()
        let root = try node(for: value, depth: 0)
        defer { plist_free(root) }
        return try binaryBytes(of: root)
    }

    /// XML plists start with `<` after an optional byte-order mark and white space.
    private static func looksLikeXML(_ bytes: [UInt8]) -> Bool {
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        let first = rest.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "<")
    }

    // MARK: Encoding

    /// Builds a libplist node; the caller owns it. On error nothing is leaked.
    private static func node(for value: PropertyListValue, depth: Int) throws(PropertyListError) -> plist_t {
        switch value {
        case .string(let string):
            return try withCString(string, what: "a string") { plist_new_string($0) }
        case .integer(let integer):
            return cplist_new_int(integer)
        case .unsignedInteger(let unsigned):
            guard unsigned > UInt64(Int64.max) else { return cplist_new_int(Int64(unsigned)) }
            // An 8-byte node would be read as negative; a node parsed from a 16-byte integer is
            // written back as 16 bytes (libplist 2.2 has no other way to make one).
            var object: [UInt8] = [0x14] + Array(repeating: 0, count: 8)
            object += bigEndian(unsigned)
            return try parsedNode(object)
        case .real(let real):
            return plist_new_real(real)
        case .boolean(let boolean):
            return plist_new_bool(boolean ? 1 : 0)
        case .date(let seconds):
            guard seconds.isFinite, abs(seconds) < 0x1p62 else {
                throw PropertyListError(.date, "cannot encode the date \(seconds): not a representable time")
            }
            // plist_new_date takes int32 seconds (years 1933-2069 only); a node parsed
            // from a binary date keeps a 64-bit time.
            return try parsedNode([0x33] + bigEndian(seconds.bitPattern))
        case .data(let bytes):
            return bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { cplist_new_data($0.baseAddress, UInt64(buffer.count)) }
            }
        case .uid(let uid):
            // libplist 2.2 writes only the low 32 bits; CoreFoundation's UIDs are 32-bit too.
            guard uid <= UInt64(UInt32.max) else {
                throw PropertyListError(.unencodable, "cannot encode the UID \(uid): UIDs are limited to 32 bits")
            }
            return plist_new_uid(uid)
        case .array(let elements):
            guard depth < maximumDepth else { throw tooDeep }
            let array = plist_new_array()!
            for element in elements {
                do throws(PropertyListError) {
                    let child = try node(for: element, depth: depth + 1)
                    plist_array_append_item(array, child)
                } catch {
                    plist_free(array)
                    throw error
                }
            }
            return array
        case .dictionary(let entries):
            guard depth < maximumDepth else { throw tooDeep }
            let dictionary = plist_new_dict()!
            for key in entries.keys.sorted() {
                do throws(PropertyListError) {
                    let child = try node(for: entries[key]!, depth: depth + 1)
                    do throws(PropertyListError) {
                        try withCString(key, what: "a dictionary key") { plist_dict_set_item(dictionary, $0, child) }
                    } catch {
                        plist_free(child)
                        throw error
                    }
                } catch {
                    plist_free(dictionary)
                    throw error
                }
            }
            return dictionary
        }
    }

    private static var tooDeep: PropertyListError {
        PropertyListError(.tooDeep, "cannot encode a property list nested more than \(maximumDepth) levels deep")
    }

    private static func withCString<R>(_ string: String, what: String, _ body: (UnsafePointer<CChar>) -> R) throws(PropertyListError) -> R {
        guard !string.utf8.contains(0) else {
            throw PropertyListError(.unencodable, "cannot encode \(what) containing a NUL character")
        }
        return string.withCString(body)
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] { BigEndian.bytes(value, width: 8) }

    /// Parses a one-object binary plist holding `object`, to get nodes `plist_new_*` cannot make.
    private static func parsedNode(_ object: [UInt8]) throws(PropertyListError) -> plist_t {
        var bytes = Array("bplist00".utf8) + object
        bytes.append(8)  // the offset table: one entry, the object at offset 8
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += bigEndian(1) + bigEndian(0) + bigEndian(UInt64(8 + object.count))
        let node = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { cplist_from_bin($0.baseAddress, UInt32(buffer.count)) }
        }
        guard let node else {
            throw PropertyListError(.libplist, "libplist could not build a value node")
        }
        return node
    }

    // MARK: Decoding

    /// Turns a libplist tree into values, taking exact integers and dates from the
    /// validator's list (in the same depth-first order).
    private struct Converter {
        let scalars: [BinaryPlistValidator.ExactScalar]
        var next = 0

        mutating func value(of node: plist_t, depth: Int) throws(PropertyListError) -> PropertyListValue {
            switch cplist_node_type(node) {
            case CPLIST_BOOLEAN:
                var value: UInt8 = 0
                plist_get_bool_val(node, &value)
                return .boolean(value != 0)
            case CPLIST_INTEGER:
                var value: UInt64 = 0
                plist_get_uint_val(node, &value)
                guard next < scalars.count, case .integer(let exact) = scalars[next], exact.lowBits == value else {
                    throw mismatch
                }
                next += 1
                return exact
            case CPLIST_REAL:
                var value: Double = 0
                plist_get_real_val(node, &value)
                return .real(value)
            case CPLIST_DATE:
                guard next < scalars.count, case .date(let exact) = scalars[next] else { throw mismatch }
                next += 1
                return .date(exact)
            case CPLIST_STRING, CPLIST_KEY:
                return .string(try exactString(string(of: node)))
            case CPLIST_DATA:
                var pointer: UnsafeMutablePointer<CChar>? = nil
                var length: UInt64 = 0
                cplist_get_data_val(node, &pointer, &length)
                guard let pointer else { return .data([]) }
                defer { cplist_free_memory(pointer) }
                return .data(pointer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
                    Array(UnsafeBufferPointer(start: $0, count: Int(length)))
                })
            case CPLIST_UID:
                var value: UInt64 = 0
                plist_get_uid_val(node, &value)
                return .uid(value)
            case CPLIST_ARRAY:
                guard depth < PropertyList.maximumDepth else { throw PropertyList.tooDeepToRead }
                // An iterator, not plist_array_get_item: that walks the list from the start
                // each time in libplist 2.2, so 30 000 elements took seconds.
                var elements: [PropertyListValue] = []
                elements.reserveCapacity(Int(plist_array_get_size(node)))
                var iterator: plist_array_iter? = nil
                plist_array_new_iter(node, &iterator)
                guard let iterator else { throw mismatch }
                defer { cplist_free_memory(iterator) }
                while true {
                    var child: plist_t? = nil
                    plist_array_next_item(node, iterator, &child)
                    guard let child else { break }
                    elements.append(try value(of: child, depth: depth + 1))
                }
                return .array(elements)
            case CPLIST_DICT:
                guard depth < PropertyList.maximumDepth else { throw PropertyList.tooDeepToRead }
                var iterator: plist_dict_iter? = nil
                plist_dict_new_iter(node, &iterator)
                guard let iterator else { throw mismatch }
                defer { cplist_free_memory(iterator) }
                var entries: [String: PropertyListValue] = [:]
                while true {
                    var key: UnsafeMutablePointer<CChar>? = nil
                    var child: plist_t? = nil
                    plist_dict_next_item(node, iterator, &key, &child)
                    guard let child else {
                        if let key { cplist_free_memory(key) }
                        break
                    }
                    guard let key else { throw mismatch }
                    let name = String(cString: key)
                    cplist_free_memory(key)
                    try exactString(name)
                    guard entries[name] == nil else {
                        throw PropertyListError(.duplicateKey, "property list dictionary has the key \(PropertyListError.quoted(name)) twice")
                    }
                    entries[name] = try value(of: child, depth: depth + 1)
                }
                return .dictionary(entries)
            default:
                throw PropertyListError(.libplist, "property list holds a value of a type this library does not know")
            }
        }

        /// The validator's string at this point of the walk, which libplist's must equal
        /// byte for byte (compared as UTF-8: `==` on String ignores normalisation).
        @discardableResult
        private mutating func exactString(_ fromLibplist: String) throws(PropertyListError) -> String {
            guard next < scalars.count, case .string(let exact) = scalars[next] else { throw mismatch }
            next += 1
            guard exact.utf8.elementsEqual(fromLibplist.utf8) else {
                throw PropertyListError(.libplist, "binary plist: libplist read a string differently than the validator")
            }
            return exact
        }

        private var mismatch: PropertyListError {
            PropertyListError(.libplist, "binary plist: libplist read a different structure than the validator")
        }

        private func string(of node: plist_t) -> String {
            var pointer: UnsafeMutablePointer<CChar>? = nil
            if cplist_node_type(node) == CPLIST_KEY {
                plist_get_key_val(node, &pointer)
            } else {
                plist_get_string_val(node, &pointer)
            }
            guard let pointer else { return "" }
            defer { cplist_free_memory(pointer) }
            return String(cString: pointer)
        }
    }

    private static var tooDeepToRead: PropertyListError {
        PropertyListError(.tooDeep, "property list is nested more than \(maximumDepth) levels deep")
    }
}

extension PropertyListValue {
    /// The low 64 bits of an integer, as libplist reports it.
    fileprivate var lowBits: UInt64? {
        switch self {
        case .integer(let value): UInt64(bitPattern: value)
        case .unsignedInteger(let value): value
        default: nil
        }
    }
}
