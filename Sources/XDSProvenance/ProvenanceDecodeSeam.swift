// The seam ProvenanceArchive decodes through (amarks, issue 26): the decoders of every kind
// (ProvenanceDecoder, the same ones ProvenanceFile uses), so a mark decodes the same whichever
// store it came from.
enum ProvenanceDecoding {
    /// The decoded value of a mark of `kind` (not ``ProvenanceKind/xdg``) whose value is `bytes`,
    /// as stored (no store's NUL left on it); a value that does not decode is
    /// ``ProvenanceMark/Content/undecodable(_:)``, with the reason in words.
    static func decode(kind: ProvenanceKind, bytes: [UInt8]) -> ProvenanceMark.Content {
        ProvenanceDecoder.content(of: kind, bytes)
    }

    /// The ``ProvenanceKind/xdg`` mark of one store from its attributes' values (the first of
    /// a field wins).
    static func decodeXDG(_ values: [(field: XDGOrigin.Field, bytes: [UInt8])]) -> ProvenanceMark.Content {
        ProvenanceDecoder.xdg(values.map { ($0.field, $0.bytes) })
    }
}
