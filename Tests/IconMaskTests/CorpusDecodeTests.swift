import Testing
@testable import IconMask

/// Corpus icons of every variant against an independent decoder: CRC-32 of Pillow's
/// `Image.open(f).convert("RGBA").tobytes()`. (The 16-bit files are 8-bit samples × 257,
/// where Pillow's and our reduction agree exactly.) The CRC is libdeflate's, through the
/// decoder's internal helper, because a debug-built Swift CRC over 36 MB takes seconds.
@Suite struct CorpusDecodeTests {
    @Test(arguments: [
        ("pa-gimp.png", 0x28A6_1CBF as UInt32),            // RGBA8
        ("el-calculator-opaque.png", 0xC24C_1226),         // RGBA8, filters 1–4
        ("var-adam7-blender.png", 0xB0A3_991A),            // RGBA8 Adam7
        ("var-ga-im-software-install.png", 0x8ADC_7CE9),   // grey + alpha
        ("var-ga-pillow-inkscape.png", 0x6AB6_B347),       // grey + alpha
        ("var-pal-im-chat.png", 0xBE79_0F75),              // palette + tRNS
        ("var-pal-pillow-calendar.png", 0x64DD_4BAC),      // palette + tRNS
        ("var-rgba16-krita.png", 0xDE61_4D6C),             // RGBA16
        ("var-rgba16-text-editor.png", 0x36A5_4AD2),       // RGBA16
    ])
    func matchesPillow(_ name: String, _ crc: UInt32) throws {
        let image = try PNGDecoder.decode(try SharedInputs.bytes("corpus/icons/" + name))
        #expect(image.width == 1024 && image.height == 1024)
        #expect(image.pixels.withUnsafeBufferPointer { crc32($0.baseAddress!, count: $0.count) } == crc)
    }
}
