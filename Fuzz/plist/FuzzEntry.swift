// libFuzzer entry for the attribute-value decoder: DocumentSource(propertyList:).
// Built by Fuzz/plist/build.sh together with the XDocSource property-list sources.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let source = try? DocumentSource(propertyList: bytes) {
        // Whatever decodes must re-encode and decode to the same value.
        guard let encoded = try? source.binaryPropertyList() else {
            fatalError("decoded value failed to encode")
        }
        guard let again = try? DocumentSource(propertyList: encoded) else {
            fatalError("re-encoded value failed to decode")
        }
        _ = source.warnings
        _ = source.otherKeys
        _ = again
    }
    return 0
}
