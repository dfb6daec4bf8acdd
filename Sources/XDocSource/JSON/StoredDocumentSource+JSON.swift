extension StoredDocumentSource {
    /// One JSON Lines object for the file, as `xds show --json` prints it, without the line
    /// break: `"file"`, then `"identifier"`, `"name"`, `"path"`, `"appInfoURL"` when present,
    /// `"store"` (the ``DocumentSourceStore`` case name), `"other"` (the other keys, mapped by
    /// ``JSONText/value(_:)``) and `"warnings"` (only when there are any), in that order.
    ///
    /// - Parameter file: The file name as the user gave it.
    public func jsonLine(file: String) -> String {
        var fields = ["\"file\":" + JSONText.string(file)]
        for (key, value) in zip(DocumentSource.keys, [source.identifier, source.name, source.path, source.appInfoURL]) {
            if let value { fields.append(JSONText.string(key) + ":" + JSONText.string(value)) }
        }
        fields.append("\"store\":" + JSONText.string(store.rawValue))
        fields.append("\"other\":" + JSONText.object(source.otherKeys))
        let warnings = source.warnings
        if !warnings.isEmpty {
            fields.append("\"warnings\":[" + warnings.map(JSONText.string).joined(separator: ",") + "]")
        }
        return "{" + fields.joined(separator: ",") + "}"
    }
}

extension StoredDocumentSource {
    /// ``jsonLine(file:)`` with a `"textbundle"` object last (``TextBundleInfo/jsonObject()``)
    /// when `textBundle` is given: the bundle's own `info.json` provenance.
    public func jsonLine(file: String, textBundle: TextBundleInfo?) -> String {
        TextBundleInfo.appending(textBundle, to: jsonLine(file: file))
    }
}

extension TextBundleInfo {
    /// A JSON Lines object for a TextBundle whose `info.json` is known but that has no
    /// `x-document-source` attribute: `"file"` and `"textbundle"` only (no `"store"`).
    public func jsonLine(file: String) -> String {
        "{\"file\":" + JSONText.string(file) + ",\"textbundle\":" + jsonObject() + "}"
    }

    /// ``jsonLine(file:)`` for a path met in a walk, `"file"` written from its exact bytes
    /// (``DocumentSourceTreePath/json``).
    public func jsonLine(path: DocumentSourceTreePath) -> String {
        "{\"file\":" + path.json + ",\"textbundle\":" + jsonObject() + "}"
    }

    /// `line` (a JSON object's text) with `"textbundle"` added as its last member.
    static func appending(_ info: TextBundleInfo?, to line: String) -> String {
        guard let info, line.hasSuffix("}") else { return line }
        return String(line.dropLast()) + ",\"textbundle\":" + info.jsonObject() + "}"
    }
}
