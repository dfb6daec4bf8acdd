/// The x-document-source value: the four typed fields over the whole dictionary.
///
/// The attribute is a property-list dictionary. Its four known keys (``keys``) are strings;
/// every other key, and a known key stored with another type, is kept as it is so that
/// rewriting the value never loses what another app put there.
public struct DocumentSource: Sendable, Equatable {
    /// The known keys, in display order: `identifier`, `name`, `path`, `appInfoURL`.
    public static let keys: [String] = ["identifier", "name", "path", "appInfoURL"]

    /// The value as read: a dictionary, or, for a value of the four keys as strings and nothing
    /// else read straight from a binary plist, the fields' UTF-8 alone (no dictionary and no
    /// String a field until one is asked for: issue 35).
    private enum Storage: Sendable {
        case dictionary([String: PropertyListValue])
        case fields(BinaryPlistKnownFields)
    }

    private var storage: Storage

    /// Every key as stored, the four included (wrong-typed ones kept as they are).
    public var dictionary: [String: PropertyListValue] {
        get {
            switch storage {
            case .dictionary(let entries): return entries
            case .fields(let fields):
                var entries: [String: PropertyListValue] = [:]
                for index in 0..<4 {
                    if let value = fields.string(index) { entries[Self.keys[index]] = .string(value) }
                }
                return entries
            }
        }
        set { storage = .dictionary(newValue) }
    }

    /// Creates an empty value (an empty dictionary).
    public init() {
        storage = .dictionary([:])
    }

    /// Creates a value with the given fields; nil ones are left out.
    public init(identifier: String? = nil, name: String? = nil, path: String? = nil, appInfoURL: String? = nil) {
        storage = .dictionary([:])
        self.identifier = identifier
        self.name = name
        self.path = path
        self.appInfoURL = appInfoURL
    }

    /// The bundle identifier of the providing app, e.g. `com.appliedphasor.working-copy`.
    ///
    /// nil when absent or not a string; setting nil removes the key; setting a value replaces it.
    public var identifier: String? {
        get { string(0) }
        set { set("identifier", newValue) }
    }

    /// The name of the providing app, e.g. `Working Copy`.
    ///
    /// nil when absent or not a string; setting nil removes the key; setting a value replaces it.
    public var name: String? {
        get { string(1) }
        set { set("name", newValue) }
    }

    /// The path of the document inside the providing app, e.g. `directory/filename.ext`.
    ///
    /// nil when absent or not a string; setting nil removes the key; setting a value replaces it.
    public var path: String? {
        get { string(2) }
        set { set("path", newValue) }
    }

    /// The absolute URL of the app's `appInfo.json`, as a string.
    ///
    /// nil when absent or not a string; setting nil removes the key; setting a value replaces it.
    public var appInfoURL: String? {
        get { string(3) }
        set { set("appInfoURL", newValue) }
    }

    /// Keys other than the four, as stored.
    public var otherKeys: [String: PropertyListValue] {
        if case .fields = storage { return [:] }
        return dictionary.filter { !Self.keys.contains($0.key) }
    }

    /// One line per known key present with the wrong type, e.g. "'name' is an integer, not a string; ignored".
    public var warnings: [String] {
        if case .fields = storage { return [] }
        return Self.keys.compactMap { key in
            guard let value = dictionary[key] else { return nil }
            if case .string = value { return nil }
            return "'\(key)' is \(value.typeNameInSentence), not a string; ignored"
        }
    }

    /// Decodes an attribute value (binary or XML plist); root must be a dictionary.
    ///
    /// - Throws: ``PropertyListError`` when the bytes are not a well-formed property list
    ///   or its root is not a dictionary.
    public init(propertyList bytes: [UInt8]) throws(PropertyListError) {
        // The common value straight from its bytes; anything else, valid or not, the general way.
        if let fields = BinaryPlistKnownFields.decode(bytes) {
            storage = .fields(fields)
            return
        }
        let root = try PropertyList.decode(bytes)
        guard case .dictionary(let entries) = root else {
            throw PropertyListError(.notADictionary, "the property list's root is \(root.typeNameInSentence), not a dictionary")
        }
        storage = .dictionary(entries)
    }

    /// Encodes as a binary plist.
    ///
    /// - Throws: ``PropertyListError`` when a value cannot be encoded (see ``PropertyList/encodeBinary(_:)``).
    public func binaryPropertyList() throws(PropertyListError) -> [UInt8] {
        try PropertyList.encodeBinary(.dictionary(dictionary))
    }

    /// Keys present in `other` replace ours; all others are kept (merge semantics of `xds set`).
    public mutating func merge(_ other: DocumentSource) {
        dictionary.merge(other.dictionary) { _, theirs in theirs }
    }

    /// Calls `body` with the UTF-8 of each known field present, in ``keys`` order (its index
    /// there and its bytes), when the value holds those strings and no other key: what a
    /// writer of the four fields needs, without a String each. False (nothing called) for any
    /// other value: read ``dictionary`` then.
    package func withKnownFieldsUTF8(_ body: (Int, UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        guard case .fields(let fields) = storage else { return false }
        fields.withUTF8(body)
        return true
    }

    /// Whether two values hold the same keys and values (however each was read).
    public static func == (lhs: DocumentSource, rhs: DocumentSource) -> Bool {
        if case .fields = lhs.storage, case .fields = rhs.storage {
            return (0..<4).allSatisfy { lhs.string($0) == rhs.string($0) }
        }
        return lhs.dictionary == rhs.dictionary
    }

    /// The known field at `index` of ``keys``, when it is a string.
    private func string(_ index: Int) -> String? {
        switch storage {
        case .fields(let fields): return fields.string(index)
        case .dictionary(let entries):
            if case .string(let value) = entries[Self.keys[index]] { return value }
            return nil
        }
    }

    private mutating func set(_ key: String, _ value: String?) {
        var entries = dictionary
        entries[key] = value.map { .string($0) }
        storage = .dictionary(entries)
    }
}
