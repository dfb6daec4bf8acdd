/// Checks an XML property list before libplist 2.2's own XML parser sees it.
///
/// That parser recurses once per nested element with no limit, and its entity handling is
/// minimal, so the text is scanned here first: it must be UTF-8 without NUL bytes, declare
/// no entities, refer to no character that cannot be in a string (`&#0;`, `&#xD800;`: libplist
/// 2.2 turns a surrogate into invalid UTF-8), and nest `<array>`/`<dict>` at most
/// ``BinaryPlistValidator/maximumDepth`` levels deep. The scan only follows tags; libplist
/// still checks the grammar (leniently: `<integer>abc</integer>` reads as 0 there).
enum XMLPlistValidator {
    static func validate(_ bytes: [UInt8]) throws(PropertyListError) {
        guard !bytes.contains(0) else {
            throw PropertyListError("XML plist contains a NUL byte")
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw PropertyListError("XML plist is not valid UTF-8")
        }
        var depth = 0
        var i = 0
        let n = bytes.count
        let lt = UInt8(ascii: "<"), gt = UInt8(ascii: ">")
        while i < n {
            if bytes[i] == UInt8(ascii: "&"), i + 1 < n, bytes[i + 1] == UInt8(ascii: "#") {
                try checkCharacterReference(bytes, at: i)
            }
            guard bytes[i] == lt else { i += 1; continue }
            if starts(bytes, at: i, with: "<!--") {
                guard let end = find(bytes, "-->", from: i + 4) else {
                    throw PropertyListError("XML plist has an unterminated comment")
                }
                i = end + 3
            } else if starts(bytes, at: i, with: "<![CDATA[") {
                guard let end = find(bytes, "]]>", from: i + 9) else {
                    throw PropertyListError("XML plist has an unterminated CDATA section")
                }
                i = end + 3
            } else if starts(bytes, at: i, with: "<!") {
                // A DOCTYPE; an internal subset could declare entities, which we refuse.
                guard let end = bytes[(i + 2)...].firstIndex(of: gt) else {
                    throw PropertyListError("XML plist has an unterminated declaration")
                }
                if bytes[i..<end].contains(UInt8(ascii: "[")) || find(bytes[i..<end], "ENTITY") != nil {
                    throw PropertyListError("XML plist declares entities or an internal DTD subset, which are not accepted")
                }
                i = end + 1
            } else if starts(bytes, at: i, with: "<?") {
                guard let end = find(bytes, "?>", from: i + 2) else {
                    throw PropertyListError("XML plist has an unterminated processing instruction")
                }
                i = end + 2
            } else {
                guard let end = bytes[(i + 1)...].firstIndex(of: gt) else {
                    throw PropertyListError("XML plist has an unterminated tag")
                }
                let closing = bytes[i + 1] == UInt8(ascii: "/")
                let nameStart = closing ? i + 2 : i + 1
                var nameEnd = nameStart
                while nameEnd < end, isNameByte(bytes[nameEnd]) { nameEnd += 1 }
                let name = bytes[nameStart..<nameEnd]
                let selfClosing = bytes[end - 1] == UInt8(ascii: "/")
                if name.elementsEqual("array".utf8) || name.elementsEqual("dict".utf8) {
                    if closing {
                        depth -= 1
                    } else if !selfClosing {
                        depth += 1
                        guard depth <= BinaryPlistValidator.maximumDepth else {
                            throw PropertyListError("property list is nested more than \(BinaryPlistValidator.maximumDepth) levels deep")
                        }
                    }
                }
                i = end + 1
            }
        }
    }

    /// `&#NNN;` or `&#xHHH;` must name a Unicode scalar other than NUL.
    private static func checkCharacterReference(_ bytes: [UInt8], at start: Int) throws(PropertyListError) {
        var i = start + 2
        var radix: UInt32 = 10
        if i < bytes.count, bytes[i] == UInt8(ascii: "x") || bytes[i] == UInt8(ascii: "X") {
            radix = 16
            i += 1
        }
        var value: UInt32 = 0
        var digits = 0
        while i < bytes.count, let digit = digitValue(bytes[i], radix: radix) {
            value = min(value * radix + digit, 0x110000)
            digits += 1
            i += 1
        }
        let text = String(decoding: bytes[start..<min(i + 1, bytes.count)], as: UTF8.self)
        guard digits > 0, i < bytes.count, bytes[i] == UInt8(ascii: ";"),
              value != 0, let _ = Unicode.Scalar(value) else {
            throw PropertyListError("XML plist has an invalid character reference \(PropertyListError.quoted(text))")
        }
    }

    private static func digitValue(_ byte: UInt8, radix: UInt32) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
    }

    private static func starts(_ bytes: [UInt8], at index: Int, with prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        return prefix.withUTF8Buffer { bytes[index..<index + count].elementsEqual($0) }
    }

    private static func find(_ bytes: ArraySlice<UInt8>, _ needle: StaticString) -> Int? {
        needle.withUTF8Buffer { pattern -> Int? in
            guard bytes.count >= pattern.count else { return nil }
            var i = bytes.startIndex
            while i <= bytes.endIndex - pattern.count {
                if bytes[i..<i + pattern.count].elementsEqual(pattern) { return i }
                i += 1
            }
            return nil
        }
    }

    private static func find(_ bytes: [UInt8], _ needle: StaticString, from start: Int) -> Int? {
        guard start <= bytes.count else { return nil }
        return find(bytes[start...], needle)
    }
}
