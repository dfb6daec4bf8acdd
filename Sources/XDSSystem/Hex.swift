/// Hexadecimal digits, written once: bytes as two digits each (lower case for digests, byte
/// dumps and messages; upper case for percent-encoding, as RFC 3986 recommends) and digits read
/// back.
package enum Hex {
    private static let lower = Array("0123456789abcdef".utf8)
    private static let upper = Array("0123456789ABCDEF".utf8)

    /// Appends the two digits of `byte` to `out`.
    @inline(__always)
    package static func append(_ byte: UInt8, uppercase: Bool = false, to out: inout [UInt8]) {
        let digits = uppercase ? upper : lower
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 15)])
    }

    /// `bytes` as lower-case digits, two a byte ("0a1b").
    package static func string(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes { append(byte, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// `%XX` for `byte` (upper-case digits), appended to `out`.
    @inline(__always)
    package static func appendPercentEncoded(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "%"))
        append(byte, uppercase: true, to: &out)
    }

    /// The value of one hexadecimal digit (either case), or nil.
    package static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `%XX` escapes undone (libarchive's pax keyword encoding, the inverse of
    /// ``appendPercentEncoded(_:to:)``); nil for a malformed escape.
    package static func percentDecoded(_ bytes: some Collection<UInt8>) -> [UInt8]? {
        let bytes = Array(bytes)
        guard bytes.contains(UInt8(ascii: "%")) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = value(bytes[index + 1]), let low = value(bytes[index + 2])
                else { return nil }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }
}
