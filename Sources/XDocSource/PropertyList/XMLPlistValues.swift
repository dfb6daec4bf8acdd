/// Strict readers for the text of XML `<integer>`, `<date>` and `<data>`, so XML values are
/// held to what binary plists can hold (see ``XMLPlistValidator``).
enum XMLPlistValues {
    /// An integer in -2^63 … 2^64-1: optional white space around an optional sign and either
    /// decimal digits without a leading zero (libplist reads those as octal) or `0x` and hex
    /// digits. Nil for anything else.
    static func integer(_ raw: ArraySlice<UInt8>) -> PropertyListValue? {
        var text = raw.drop { isSpace($0) }
        while let last = text.last, isSpace(last) { text = text.dropLast() }
        var negative = false
        if let sign = text.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            text = text.dropFirst()
        }
        var radix: UInt64 = 10
        if text.count > 2, text.first == UInt8(ascii: "0"), text.dropFirst().first.map({ $0 | 0x20 }) == UInt8(ascii: "x") {
            radix = 16
            text = text.dropFirst(2)
        } else if text.count > 1, text.first == UInt8(ascii: "0") {
            return nil
        }
        guard !text.isEmpty else { return nil }
        var magnitude: UInt64 = 0
        for byte in text {
            guard let digit = digit(byte, radix: radix) else { return nil }
            let (times, overflow1) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, overflow2) = times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return .integer(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude))
        }
        return .integer(unsigned: magnitude)
    }

    /// Seconds since 2001-01-01 of a date written exactly `YYYY-MM-DDTHH:MM:SSZ` (UTC, years
    /// 0001–9999, a real day of a real month); nil for anything else.
    static func date(_ raw: ArraySlice<UInt8>) -> Int64? {
        let text = Array(raw)
        guard text.count == 20 else { return nil }
        for (index, byte) in text.enumerated() {
            let expected: UInt8? = switch index {
            case 4, 7: UInt8(ascii: "-")
            case 10: UInt8(ascii: "T")
            case 13, 16: UInt8(ascii: ":")
            case 19: UInt8(ascii: "Z")
            default: nil
            }
            if let expected {
                guard byte == expected else { return nil }
            } else {
                guard digit(byte, radix: 10) != nil else { return nil }
            }
        }
        func number(_ range: Range<Int>) -> Int {
            text[range].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        let year = number(0..<4)
        guard year >= 1 else { return nil }
        return PropertyListDate.secondsSince2001(year: year, month: number(5..<7), day: number(8..<10),
                                                 hour: number(11..<13), minute: number(14..<16), second: number(17..<19))
    }

    /// The bytes of `<data>` text, or nil when it is not valid base64 (see ``Base64/decode(_:)``).
    static func base64(_ raw: ArraySlice<UInt8>) -> [UInt8]? {
        Base64.decode(raw)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func digit(_ byte: UInt8, radix: UInt64) -> UInt64? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt64(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: UInt64(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: UInt64(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
