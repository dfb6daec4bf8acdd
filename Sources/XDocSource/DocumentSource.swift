/// The x-document-source value: the four typed fields over the whole dictionary.
///
/// The attribute is a property-list dictionary. Its four known keys (``keys``) are strings;
/// every other key, and a known key stored with another type, is kept as it is so that
/// rewriting the value never loses what another app put there.
public struct DocumentSource: Sendable, Equatable {
    /// The known keys, in display order: `identifier`, `name`, `path`, `appInfoURL`.
    public static let keys: [String] = ["identifier", "name", "path", "appInfoURL"]

    /// Every key as stored, the four included (wrong-typed ones kept as they are).
    public var dictionary: [String: PropertyListValue]

    /// Creates an empty value (an empty dictionary).
    public init() {
        dictionary = [:]
    }

    /// Creates a value with the given fields; nil ones are left out.
    public init(identifier: String? = nil, name: String? = nil, path: String? = nil, appInfoURL: String? = nil) {
        dictionary = [:]
        self.identifier = identifier
        self.name = name
        self.path = path
        self.appInfoURL = appInfoURL
    }

    /// The bundle identifier of the providing app, e.g. `com.appliedphasor.working-copy`.
    ///
    /// nil when absent or not a string; setting nil removes the key; setting a value replaces it.
    public var identifier: String? {
        get { string("identifier") }
        set { set("identifier", newValue) }
    }

    /// The name of the providing app, e.g. `Working Copy`.
    ///
    /// nil when absent or not a string; setting nil removes the key; setting a value replaces it.
    public var name: String? {
        get { string("name") }
        set { set("name", newValue) }
    }

    /// The path of the document inside the providing app, e.g. `directory/filename.ext`.
    ///
    /// nil when absent or not a string; setting nil removes the key; setting a value replaces it.
    public var path: String? {
        get { string("path") }
        set { set("path", newValue) }
    }

    /// The absolute URL of the app's `appInfo.json`, as a string.
    ///
    /// nil when absent or not a string; setting nil removes the key; setting a value replaces it.
    public var appInfoURL: String? {
        get { string("appInfoURL") }
        set { set("appInfoURL", newValue) }
    }

    /// Keys other than the four, as stored.
    public var otherKeys: [String: PropertyListValue] {
        dictionary.filter { !Self.keys.contains($0.key) }
    }

    /// One line per known key present with the wrong type, e.g. "'name' is an integer, not a string; ignored".
    public var warnings: [String] {
        Self.keys.compactMap { key in
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
        let root = try PropertyList.decode(bytes)
        guard case .dictionary(let entries) = root else {
            throw PropertyListError(.notADictionary, "the property list's root is \(root.typeNameInSentence), not a dictionary")
        }
        dictionary = entries
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

    private func string(_ key: String) -> String? {
        if case .string(let value) = dictionary[key] { return value }
        return nil
    }

    private mutating func set(_ key: String, _ value: String?) {
        dictionary[key] = value.map { .string($0) }
    }
}
