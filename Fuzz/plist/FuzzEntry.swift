// libFuzzer entry for the attribute-value decoder: DocumentSource(propertyList:).
// Built by Fuzz/build.py (XDocSource with CPlist, which loads libplist).

@testable import XDocSource

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let decoded: DocumentSource?
    do {
        decoded = try DocumentSource(propertyList: bytes)
    } catch {
        // The validator must refuse everything libplist 2.2 would refuse (or misread):
        // these messages mean it let something through.
        if error.message.contains("could not be parsed by libplist") || error.message.contains("differently than the validator")
            || error.message.contains("different structure") {
            fatalError("validator accepted what libplist refused: \(error)")
        }
        decoded = nil
    }
    // The four-field path (what DocumentSource tries first) must read only what the general
    // decoding reads, and the same way.
    if let fields = BinaryPlistKnownFields.decode(bytes) {
        guard case .dictionary(let entries)? = try? PropertyList.decode(bytes) else {
            fatalError("the four-field path read what the general decoding refuses")
        }
        var general = DocumentSource()
        general.dictionary = entries
        for index in 0..<4 where fields.string(index) != general.dictionary[DocumentSource.keys[index]].flatMap({
            if case .string(let text) = $0 { text } else { nil }
        }) {
            fatalError("the four-field path read \(DocumentSource.keys[index]) differently")
        }
        guard entries.count == (0..<4).filter({ fields.string($0) != nil }).count, decoded == general else {
            fatalError("the four-field path read a different value")
        }
    }
    if let source = decoded {
        // Whatever decodes must re-encode and decode to the same value.
        guard let encoded = try? source.binaryPropertyList() else {
            fatalError("decoded value failed to encode")
        }
        guard let again = try? DocumentSource(propertyList: encoded) else {
            fatalError("re-encoded value failed to decode")
        }
        guard sameValue(.dictionary(source.dictionary), .dictionary(again.dictionary)) else {
            fatalError("value changed in a decode-encode round trip: \(source.dictionary) became \(again.dictionary); encoded \(encoded)")
        }
        _ = source.warnings
        _ = source.otherKeys
    }
    return 0
}

/// Equality that treats NaN reals with the same bits as equal.
func sameValue(_ a: PropertyListValue, _ b: PropertyListValue) -> Bool {
    switch (a, b) {
    case (.real(let x), .real(let y)): return x.bitPattern == y.bitPattern || x == y
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { sameValue($0, $1) }
    case (.dictionary(let x), .dictionary(let y)):
        return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameValue(value, $0) } ?? false }
    default: return a == b
    }
}
