// libFuzzer entry for the AppleDouble (`._NAME`) parser.
// Built by Fuzz/appledouble/build.sh together with Sources/XDocSource/Stores/AppleDouble.swift.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The whole file, and the same bytes as the start of a larger file.
    for fileSize in [size, size + 4096] {
        guard let parsed = try? AppleDouble(bytes: bytes, fileSize: fileSize) else { continue }
        let total = parsed.attributes.reduce(0) { $0 + $1.value.count }
        // Values never overlap, so together they fit in the input.
        precondition(total <= size, "attribute values larger than the input")
        precondition(parsed.attributes.count <= 1024)
        _ = parsed.value(named: "x-document-source")
    }
    return 0
}
