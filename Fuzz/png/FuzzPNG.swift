// libFuzzer entry for PNGDecoder (built by build.sh together with the IconMask PNG sources).
// Differential: libdeflate and zlib must agree on success and on every pixel, and a
// decoded image must be exactly width × height × 4 bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // 2048 px keeps each run fast; the size limit itself is covered by unit tests.
    let fast = Result { () throws(PNGError) in try PNGDecoder.decode(bytes, maxDimension: 2048, inflater: .libdeflate) }
    let slow = Result { () throws(PNGError) in try PNGDecoder.decode(bytes, maxDimension: 2048, inflater: .zlib) }
    switch (fast, slow) {
    case (.success(let a), .success(let b)):
        precondition(a.pixels.count == a.width * a.height * 4, "pixel count")
        precondition(a == b, "libdeflate and zlib decodes differ")
    case (.failure(let e), .failure):
        precondition(!e.description.isEmpty && !e.description.contains("\n"), "error message")
    case (.success, .failure(let e)):
        preconditionFailure("only zlib refused: \(e)")
    case (.failure(let e), .success):
        preconditionFailure("only libdeflate refused: \(e)")
    }
    return 0
}
