import XDocSource

/// A JSON object written member by member, in the order the members are added: the one way
/// `xds` writes a JSON Lines record. Strings are escaped by the library's `JSONText.string`
/// (quotes, `\`, every control character, U+2028/U+2029), paths from their exact bytes
/// (`DocumentSourceTreePath.json`), property-list values mapped by `JSONText.value`.
struct JSONObject {
    private var text = "{"
    private var isEmpty = true

    init() {}

    /// Adds `key` with a value already written as JSON text.
    mutating func add(_ key: String, json value: String) {
        // Appended piece by piece: `a + b + c` built two temporary strings per member, a fifth
        // of `where -r --json`'s own time (perf, issue 26).
        if !isEmpty { text.append(",") }
        text.append(JSONText.string(key))
        text.append(":")
        text.append(value)
        isEmpty = false
    }

    /// Adds a string.
    mutating func add(_ key: String, _ value: String) {
        add(key, json: JSONText.string(value))
    }

    /// Adds a path, from its exact bytes.
    mutating func add(_ key: String, _ path: DocumentSourceTreePath) {
        add(key, json: path.json)
    }

    /// Adds a property-list value.
    mutating func add(_ key: String, _ value: PropertyListValue) {
        add(key, json: JSONText.value(value))
    }

    /// Adds an array of strings.
    mutating func add(_ key: String, strings: [String]) {
        add(key, json: "[" + strings.map(JSONText.string).joined(separator: ",") + "]")
    }

    /// Adds an object.
    mutating func add(_ key: String, _ object: JSONObject) {
        add(key, json: object.json)
    }

    /// The object's text.
    var json: String { text + "}" }
}
