import XDSSystem
import XDocSource

/// A JSON object written member by member, in the order the members are added: the one way
/// `xds` writes a JSON Lines record. Strings are escaped by the library's `JSONString`
/// (quotes, `\`, every control character, U+2028/U+2029), paths from their exact bytes
/// (`DocumentSourceTreePath.json`), property-list values mapped by `JSONText.value`. Kept as
/// UTF-8 bytes, written straight into a walk's batch of records (``init(continuing:)``): no
/// String is built for a member that needs no escape (issue 35).
struct JSONObject {
    private var bytes: [UInt8]
    private var isEmpty = true

    init() {
        bytes = [0x7B]
    }

    /// An object written straight after the bytes of `out` (a walk's batch, or the object it
    /// is nested in), which holds nothing until ``end(into:)`` or ``endLine(into:)`` hands
    /// them back: no buffer of its own to grow and copy over (issue 35).
    init(continuing out: inout [UInt8]) {
        bytes = []
        swap(&bytes, &out)
        bytes.append(0x7B)
    }

    /// Closes an object begun with ``init(continuing:)`` and gives its bytes back to `out`.
    mutating func end(into out: inout [UInt8]) {
        bytes.append(0x7D)
        swap(&bytes, &out)
    }

    /// ``end(into:)`` and a line break: one JSON Lines record.
    mutating func endLine(into out: inout [UInt8]) {
        bytes.append(0x7D)
        bytes.append(0x0A)
        swap(&bytes, &out)
    }

    /// Starts a member: the comma before it and its key.
    private mutating func key(_ key: String) {
        if !isEmpty { bytes.append(0x2C) }
        // Keys are short ASCII names, mostly literals: asked byte by byte in place, not through
        // the escaper's word scan (a tenth of a record's JSON, issue 35).
        var key = key
        let plain = key.withUTF8 { utf8 in
            guard Self.isPlainKey(utf8) else { return false }
            bytes.append(0x22)
            bytes.append(contentsOf: utf8)
            bytes.append(0x22)
            return true
        }
        if !plain { JSONString.append(key, to: &bytes) }
        bytes.append(0x3A)
        isEmpty = false
    }

    /// Whether `utf8` is printable ASCII other than `"` and `\`, eight bytes at a time (a
    /// short tail padded with spaces): such a key is written as it is.
    private static func isPlainKey(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        var index = 0
        while index < utf8.count {
            var word = ones &* 0x20
            withUnsafeMutableBytes(of: &word) { out in
                out.copyMemory(from: UnsafeRawBufferPointer(start: base + index, count: min(8, utf8.count - index)))
            }
            word = UInt64(littleEndian: word)
            // A byte of 0x80 or more, below 0x20, or `"`, `\` or DEL.
            if word & highs != 0 || (word &- ones &* 0x20) & ~word & highs != 0 || hasZero(word ^ (ones &* 0x22))
                || hasZero(word ^ (ones &* 0x5C)) || hasZero(word ^ (ones &* 0x7F)) {
                return false
            }
            index += 8
        }
        return true
    }

    /// Adds `key` with a value already written as JSON text.
    mutating func add(_ key: String, json value: String) {
        self.key(key)
        bytes.append(contentsOf: value.utf8)
    }

    /// Adds a string.
    mutating func add(_ key: String, _ value: String) {
        self.key(key)
        JSONString.append(value, to: &bytes)
    }

    /// Adds a path, from its exact bytes.
    mutating func add(_ key: String, _ path: DocumentSourceTreePath) {
        self.key(key)
        Self.append(path, to: &bytes)
    }

    /// Adds a property-list value.
    mutating func add(_ key: String, _ value: PropertyListValue) {
        add(key, json: JSONText.value(value))
    }

    /// Adds an array of strings.
    mutating func add(_ key: String, strings: [String]) {
        self.key(key)
        bytes.append(0x5B)
        for (index, string) in strings.enumerated() {
            if index > 0 { bytes.append(0x2C) }
            JSONString.append(string, to: &bytes)
        }
        bytes.append(0x5D)
    }

    /// Adds an object.
    mutating func add(_ key: String, _ object: JSONObject) {
        self.key(key)
        object.append(to: &bytes)
    }

    /// Adds an object written in place by `body`.
    mutating func addObject(_ key: String, _ body: (inout JSONObject) -> Void) {
        self.key(key)
        var object = JSONObject(continuing: &bytes)
        body(&object)
        object.end(into: &bytes)
    }

    /// Adds an array of objects, one an element of `elements`, each written in place by `body`.
    mutating func addObjects<Elements: Sequence>(
        _ key: String, _ elements: Elements, _ body: (Elements.Element, inout JSONObject) -> Void
    ) {
        self.key(key)
        bytes.append(0x5B)
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(0x2C) }
            var object = JSONObject(continuing: &bytes)
            body(element, &object)
            object.end(into: &bytes)
        }
        bytes.append(0x5D)
    }

    /// Adds a value's fields as `show --json` writes them (`identifier`, `name`, `path`,
    /// `appInfoURL` when they are strings), then `store` when given, `other` and `warnings`
    /// (only when there are any). The common value, the four keys as strings, builds no
    /// other-keys dictionary nor warnings array; read straight from its bytes, no String either.
    mutating func addFields(of source: DocumentSource, store: String? = nil) {
        addFields(of: source, store: store, mapsURL: false) { $0 }
    }

    /// ``addFields(of:store:)`` with `url` mapping the `appInfoURL` (without `store`).
    mutating func addFields(of source: DocumentSource, url: (String) -> String) {
        addFields(of: source, store: nil, mapsURL: true, url: url)
    }

    private mutating func addFields(of source: DocumentSource, store: String?, mapsURL: Bool, url: (String) -> String) {
        // A value of the four strings alone, as read straight from its bytes: each field from
        // its UTF-8 (the URL as text when it is to be mapped).
        let known = source.withKnownFieldsUTF8 { index, utf8 in
            if index == 3, mapsURL {
                add("appInfoURL", url(String(decoding: utf8, as: UTF8.self)))
            } else {
                key(DocumentSource.keys[index])
                Self.appendString(utf8, to: &bytes)
            }
        }
        if known {
            if let store { add("store", store) }
            add("other", json: "{}")
            return
        }
        let entries = source.dictionary
        // One pass over the entries (small keys compare by their bits) rather than a hashed
        // lookup of each of the four keys.
        var identifier: String?, name: String?, path: String?, appInfoURL: String?
        var strings = 0
        for (key, value) in entries {
            guard case .string(let string) = value else { continue }
            switch key {
            case "identifier": identifier = string
            case "name": name = string
            case "path": path = string
            case "appInfoURL": appInfoURL = string
            default: continue
            }
            strings += 1
        }
        if let identifier { add("identifier", identifier) }
        if let name { add("name", name) }
        if let path { add("path", path) }
        if let appInfoURL { add("appInfoURL", url(appInfoURL)) }
        if let store { add("store", store) }
        guard strings != entries.count else {
            add("other", json: "{}")
            return
        }
        add("other", json: JSONText.object(source.otherKeys))
        let warnings = source.warnings
        if !warnings.isEmpty { add("warnings", strings: warnings) }
    }

    /// The object's text.
    var json: String { String(decoding: bytes, as: UTF8.self) + "}" }

    /// Appends the object's bytes to `out`.
    func append(to out: inout [UInt8]) {
        out.append(contentsOf: bytes)
        out.append(0x7D)
    }

    /// A JSON string literal of the UTF-8 `utf8` (well-formed), as `JSONString.append(_:to:)`
    /// writes the same text: the bytes as they are when nothing needs an escape.
    static func appendString(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        if JSONString.needsEscape(utf8) {
            out.append(contentsOf: JSONString.literal(String(decoding: utf8, as: UTF8.self)).utf8)
        } else {
            out.append(0x22)
            out.append(contentsOf: utf8)
            out.append(0x22)
        }
    }

    /// A path's JSON string literal (``DocumentSourceTreePath/json``): its bytes as they are
    /// when they are ASCII with nothing to escape (the common name), else from the library.
    static func append(_ path: DocumentSourceTreePath, to out: inout [UInt8]) {
        let plain = path.bytes.withUnsafeBufferPointer { bytes in
            for byte in bytes where byte >= 0x7F || byte < 0x20 || byte == 0x22 || byte == 0x5C { return false }
            return true
        }
        if plain {
            out.append(0x22)
            out.append(contentsOf: path.bytes)
            out.append(0x22)
        } else {
            out.append(contentsOf: path.json.utf8)
        }
    }
}
