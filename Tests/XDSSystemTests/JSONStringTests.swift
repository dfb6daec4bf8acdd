import Testing
import XDSSystem

/// The escape check reads eight bytes at a time (issue 35): each byte that needs an escape, at
/// every offset and in every length around a word, is still found, and nothing else is.
@Suite("JSON string literals: the escape check")
struct JSONStringTests {
    /// The byte-by-byte rule ``JSONString/needsEscape(_:)`` implements.
    static func reference(_ bytes: [UInt8]) -> Bool {
        for (index, byte) in bytes.enumerated() {
            if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F { return true }
            if byte == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80,
               bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 { return true }
        }
        return false
    }

    @Test("every special byte at every offset of strings 0 to 24 bytes long, and U+2028/U+2029 across words")
    func everyOffset() {
        let specials: [[UInt8]] = [[0x00], [0x0A], [0x1F], [0x22], [0x5C], [0x7F], [0xE2, 0x80, 0xA8], [0xE2, 0x80, 0xA9],
                                   [0xE2, 0x80, 0xAA], [0xE2], [0xC3, 0x9C], [0x20], [0x7E], [0x80], [0xFF]]
        var mismatches: [[UInt8]] = []
        for length in 0...24 {
            for special in specials {
                for offset in 0...length {
                    var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
                    bytes.insert(contentsOf: special, at: offset)
                    let found = bytes.withUnsafeBufferPointer { JSONString.needsEscape($0) }
                    if found != Self.reference(bytes) { mismatches.append(bytes) }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
    }

    @Test("random bytes: the same answer as byte by byte, and literal(_:) as before for text")
    func randomBytes() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...40, using: &random)
            // Mostly printable ASCII, sometimes anything: hits in every position of a word.
            let bytes = (0..<count).map { _ in
                Int.random(in: 0..<10, using: &random) == 0 ? UInt8.random(in: 0...255, using: &random)
                    : UInt8.random(in: 0x20...0x7E, using: &random)
            }
            let found = bytes.withUnsafeBufferPointer { JSONString.needsEscape($0) }
            #expect(found == Self.reference(bytes), "\(bytes)")
            let text = String(decoding: bytes, as: UTF8.self)
            var appended: [UInt8] = []
            JSONString.append(text, to: &appended)
            #expect(appended == Array(JSONString.literal(text).utf8))
        }
    }
}
