// libFuzzer entry for AppleIconFile (built by Fuzz/build.py: IconMask compiled with -D FUZZING,
// so PNG chunk CRCs are not checked).
//
// Any bytes: AppleIconFile(bytes:) either throws a one-line error in words or gives elements
// that lie inside the file, in order, without overlapping; every PNG image it hands out is one
// of those elements' data and is then decoded with PNGDecoder (which must throw or give a
// whole image), and every skipped line is one line.

@_spi(Benchmark) @testable import IconMask

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICNS(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let icns: AppleIconFile
    do {
        icns = try AppleIconFile(bytes: bytes)
    } catch {
        precondition(!error.description.isEmpty && !error.description.contains("\n"), "error message")
        return 0
    }
    precondition(!icns.elements.isEmpty && icns.elements.count <= AppleIconFile.maximumElementCount, "element count")
    var end = 8
    for element in icns.elements {
        precondition(element.data.lowerBound == end + 8 && element.data.upperBound <= bytes.count, "element bounds")
        precondition(element.type.count == 4 || element.type.count == 10, "type text")
        end = element.data.upperBound
    }
    for line in icns.skippedImages {
        precondition(line.hasSuffix(": skipped") && !line.contains("\n"), "skipped line")
    }
    for image in icns.pngImages {
        precondition(icns.elements.contains { $0.type == image.type && Array(bytes[$0.data]) == image.png }, "PNG is an element")
        // 2048 px keeps each run fast; the size limit itself is covered by unit tests.
        do {
            let decoded = try PNGDecoder.decode(image.png, maxDimension: 2048)
            precondition(decoded.pixels.count == decoded.width * decoded.height * 4, "pixel count")
        } catch {
            precondition(!error.description.isEmpty && !error.description.contains("\n"), "PNG error message")
        }
    }
    return 0
}
