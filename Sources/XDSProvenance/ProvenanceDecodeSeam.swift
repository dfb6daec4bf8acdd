import XDocSource

// SEAM (amarks, issue 26): the decoders of every kind are marks' part (ProvenanceFile's
// decoders). Until they land, ProvenanceArchive calls these two entry points, which decode only
// what needs no decoder of its own (x-document-source as `show` does, the provenance bytes,
// xdg text) and give every other kind as undecodable. When the decoders land, these two bodies
// call them (or this file goes and ProvenanceArchive calls theirs): nothing else changes.
enum ProvenanceDecoding {
    /// The decoded value of a mark of `kind` (not ``ProvenanceKind/xdg``) whose value is `bytes`,
    /// as stored (no store's NUL left on it); a value that does not decode is
    /// ``ProvenanceMark/Content/undecodable(_:)``, with the reason in words.
    static func decode(kind: ProvenanceKind, bytes: [UInt8]) -> ProvenanceMark.Content {
        switch kind {
        case .xDocumentSource:
            guard bytes.count <= DocumentSourceFile.maximumValueSize else {
                return .undecodable(UndecodableValue(bytes: bytes, reason: "larger than 64 KiB"))
            }
            do {
                return .documentSource(try SambaStream.decode(bytes) { (bytes) throws(PropertyListError) in
                    try DocumentSource(propertyList: bytes)
                })
            } catch {
                return .undecodable(UndecodableValue(bytes: bytes, reason: "\(error)"))
            }
        case .macOSProvenance:
            return .macOSProvenance(bytes)
        default:
            return .undecodable(UndecodableValue(bytes: bytes, reason: "not decoded yet"))
        }
    }

    /// The ``ProvenanceKind/xdg`` mark of one store from its attributes' values (the first of
    /// a field wins): text, as UTF-8; a value that is not UTF-8 makes the mark undecodable.
    static func decodeXDG(_ values: [(field: XDGOrigin.Field, bytes: [UInt8])]) -> ProvenanceMark.Content {
        var origin = XDGOrigin()
        for (field, bytes) in values where origin[field] == nil {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return .undecodable(UndecodableValue(bytes: bytes, reason: "the \(field.rawValue) is not UTF-8 text"))
            }
            origin[field] = text
        }
        return .xdg(origin)
    }
}
