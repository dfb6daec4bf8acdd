import Testing
import XDSSystem

/// `String(validatingUTF8Bytes:)`, the package's UTF-8 check (macOS 13's stand-in for
/// `String(validating:as:)`).
@Suite("UTF-8 text")
struct UTF8TextTests {
    @Test func wellFormedBytesAreTheirText() {
        #expect(String(validatingUTF8Bytes: Array("café ☕️ 𝄞".utf8)) == "café ☕️ 𝄞")
        #expect(String(validatingUTF8Bytes: [UInt8]()) == "")
        #expect(String(validatingUTF8Bytes: [0x61, 0x00, 0x62]) == "a\u{0}b")
        // U+FFFD written as such is text, not a sign of repair.
        #expect(String(validatingUTF8Bytes: [0xEF, 0xBF, 0xBD]) == "\u{FFFD}")
        #expect(String(validatingUTF8Bytes: Array("xyz".utf8)[1...]) == "yz")
    }

    @Test func illFormedBytesAreNil() {
        for bytes: [UInt8] in [[0x80], [0x61, 0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x98], [0xF4, 0x90, 0x80, 0x80]] {
            #expect(String(validatingUTF8Bytes: bytes) == nil, "\(bytes)")
        }
    }
}
