internal import XDSSystem

/// `com.apple.lastuseddate#PS`: 16 bytes, little-endian 64-bit seconds since 1970 then
/// little-endian 64-bit nanoseconds (a `timespec`: inferred from exiftool's t/images/MacOS.macos,
/// whose seconds match its quarantine time exactly; exiftool reads only the first 4 bytes). A
/// 17-byte value ending in NUL (Netatalk) is read without it; any other length is undecodable.
enum LastUsedDateDecoding {
    static func decode(_ raw: [UInt8]) -> ProvenanceMark.Content {
        let bytes = raw.count == 17 && raw.last == 0 ? raw.dropLast() : raw[...]
        guard bytes.count == 16 else {
            return TextDecoding.undecodable(raw, "a last-used date is 16 bytes, this one is \(ByteCount.words(raw.count))")
        }
        func little(_ at: Int) -> UInt64 {
            (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[bytes.startIndex + at + $1]) << (8 * UInt64($1)) }
        }
        let seconds = Int64(bitPattern: little(0))
        let nanoseconds = Int64(bitPattern: little(8))
        guard nanoseconds >= 0, nanoseconds < 1_000_000_000,
            let time = ProvenanceTime(seconds: seconds, nanoseconds: Int32(nanoseconds))
        else {
            return TextDecoding.undecodable(raw, "the last-used date's nanoseconds (\(nanoseconds)) are not between 0 and 999 999 999")
        }
        return .lastUsedDate(time)
    }
}
