/// Values built byte by byte from their documented layouts (each decoder's doc comment names its
/// source), sharing no code with the decoders.
enum MarkBytes {
    /// A binary plist whose root is an array of `items` (object 0), each item one object:
    /// 1-byte offsets and references, as CoreFoundation writes small lists.
    static func bplistArray(_ items: [[UInt8]]) -> [UInt8] {
        precondition(items.count < 255)
        var out = Array("bplist00".utf8)
        var offsets: [Int] = [out.count]
        out += items.count < 15 ? [0xA0 | UInt8(items.count)] : [0xAF, 0x10, UInt8(items.count)]
        out += (1...max(1, items.count)).prefix(items.count).map { UInt8($0) }
        for item in items {
            offsets.append(out.count)
            out += item
        }
        let offsetSize = out.count < 256 ? 1 : 2
        let tableStart = out.count
        for offset in offsets {
            out += offsetSize == 1 ? [UInt8(offset)] : [UInt8(offset >> 8), UInt8(offset & 255)]
        }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), 1]
        out += be64(offsets.count) + be64(0) + be64(tableStart)
        return out
    }

    /// An ASCII string object (`5X`, or `5F 10 NN` from 15 characters).
    static func string(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        precondition(bytes.count < 256)
        return (bytes.count < 15 ? [0x50 | UInt8(bytes.count)] : [0x5F, 0x10, UInt8(bytes.count)]) + bytes
    }

    /// A date object: marker 0x33, big-endian float64 seconds since 2001.
    static func date(_ bits: UInt64) -> [UInt8] { [0x33] + be64(Int(bitPattern: UInt(bits))) }

    static func be64(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// exiftool's t/images/MacOS.macos WhereFroms value (83 bytes).
    static let exiftoolWhereFroms = bplistArray([string("https://exiftool.org/test/sample.jpg")])
    /// exiftool's DownloadedDate value (53 bytes): 0x41c2aeb0d717b203 = 626 876 846.18512 s.
    static let exiftoolDownloadedDate = bplistArray([date(0x41C2_AEB0_D717_B203)])
    /// exiftool's lastuseddate#PS value (16 bytes).
    static let exiftoolLastUsedDate: [UInt8] = [0x2e, 0x2a, 0xad, 0x5f, 0, 0, 0, 0, 0xdc, 0xfd, 0xa4, 0x0a, 0, 0, 0, 0]
    /// exiftool's quarantine value (21 bytes).
    static let exiftoolQuarantine: [UInt8] = [
        0x30, 0x30, 0x38, 0x32, 0x3b, 0x35, 0x66, 0x61, 0x64, 0x32, 0x61, 0x32, 0x65, 0x3b, 0x53, 0x61, 0x66, 0x61,
        0x72, 0x69, 0x3b,
    ]
    /// The Zone.Identifier as Chromium writes it (CRLF; quarantine_win.cc).
    static let zoneIdentifier = Array(("[ZoneTransfer]\r\nZoneId=3\r\nReferrerUrl=https://mirrors.ocf.berkeley.edu/gnu/make/\r\n"
        + "HostUrl=https://mirrors.ocf.berkeley.edu/gnu/make/make-4.2.tar.bz2\r\n").utf8)
}
