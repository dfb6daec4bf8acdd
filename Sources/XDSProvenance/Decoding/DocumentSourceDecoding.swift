import XDocSource

/// `x-document-source`: the value `xds show` reads (XDocSource's `DocumentSource(propertyList:)`,
/// with its checks), as it is or, when that fails and it ends in a NUL, without that byte.
enum DocumentSourceDecoding {
    static func decode(_ bytes: [UInt8]) -> ProvenanceMark.Content {
        do {
            return .documentSource(try DocumentSource(propertyList: bytes))
        } catch {
            if bytes.last == 0, let source = try? DocumentSource(propertyList: Array(bytes.dropLast())) {
                return .documentSource(source)
            }
            return TextDecoding.undecodable(bytes, "malformed x-document-source value: \(error)")
        }
    }
}
