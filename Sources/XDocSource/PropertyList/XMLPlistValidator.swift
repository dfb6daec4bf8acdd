internal import XDSSystem

/// Checks an XML property list before libplist 2.2's own XML parser sees it.
///
/// That parser recurses once per nested element with no limit, and its entity handling is
/// minimal, so the text is scanned here first: it must be UTF-8 without NUL bytes, declare
/// no entities, refer to no character that cannot be in a string (`&#0;`, `&#xD800;`: libplist
/// 2.2 turns a surrogate into invalid UTF-8), and nest `<array>`/`<dict>` at most
/// ``BinaryPlistValidator/maximumDepth`` levels deep.
///
/// Values are held to the rules binary plists follow, because libplist 2.2 silently repairs
/// them (`<integer>abc</integer>` reads as 0, month 13 rolls into the next year, stray base64
/// characters are skipped, a repeated key replaces the first): a dictionary must not hold a
/// key twice, `<integer>` must be a decimal or `0x` hexadecimal integer in -2^63 … 2^64-1,
/// `<date>` must be a real UTC date written `YYYY-MM-DDTHH:MM:SSZ` (years 0001–9999, as
/// plistlib and CoreFoundation write it), and `<data>` must be padded base64 (white space
/// between characters allowed). libplist still checks the rest of the grammar.
enum XMLPlistValidator {
    /// Elements whose text is checked here.
    private enum TextElement: String {
        case key, integer, date, data
    }

    static func validate(_ bytes: [UInt8]) throws(PropertyListError) {
        guard !bytes.contains(0) else {
            throw PropertyListError(.text, "XML plist contains a NUL byte")
        }
        guard String(validatingUTF8Bytes: bytes) != nil else {
            throw PropertyListError(.text, "XML plist is not valid UTF-8")
        }
        var depth = 0
        // Open arrays (nil) and dictionaries (the keys seen so far), innermost last.
        var containers: [Set<String>?] = []
        // The element whose text is being collected, and where that text starts.
        var open: (element: TextElement, start: Int)? = nil
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
                    throw PropertyListError(.xmlSyntax, "XML plist has an unterminated comment")
                }
                i = end + 3
            } else if starts(bytes, at: i, with: "<![CDATA[") {
                guard let end = find(bytes, "]]>", from: i + 9) else {
                    throw PropertyListError(.xmlSyntax, "XML plist has an unterminated CDATA section")
                }
                i = end + 3
            } else if starts(bytes, at: i, with: "<!") {
                // A DOCTYPE; an internal subset could declare entities, which we refuse.
                guard let end = bytes[(i + 2)...].firstIndex(of: gt) else {
                    throw PropertyListError(.xmlSyntax, "XML plist has an unterminated declaration")
                }
                if bytes[i..<end].contains(UInt8(ascii: "[")) || find(bytes[i..<end], "ENTITY") != nil {
                    throw PropertyListError(.xmlEntity, "XML plist declares entities or an internal DTD subset, which are not accepted")
                }
                i = end + 1
            } else if starts(bytes, at: i, with: "<?") {
                guard let end = find(bytes, "?>", from: i + 2) else {
                    throw PropertyListError(.xmlSyntax, "XML plist has an unterminated processing instruction")
                }
                i = end + 2
            } else {
                guard let end = bytes[(i + 1)...].firstIndex(of: gt) else {
                    throw PropertyListError(.xmlSyntax, "XML plist has an unterminated tag")
                }
                let closing = bytes[i + 1] == UInt8(ascii: "/")
                let nameStart = closing ? i + 2 : i + 1
                var nameEnd = nameStart
                while nameEnd < end, isNameByte(bytes[nameEnd]) { nameEnd += 1 }
                let name = bytes[nameStart..<nameEnd]
                let selfClosing = bytes[end - 1] == UInt8(ascii: "/")
                let element = TextElement(rawValue: String(decoding: name, as: UTF8.self))
                if let current = open {
                    guard closing, element == current.element else {
                        throw PropertyListError(.xmlSyntax, "XML plist has a tag inside <\(current.element.rawValue)>, where only text belongs")
                    }
                    try check(current.element, bytes[current.start..<i], in: &containers)
                    open = nil
                } else if let element, !closing {
                    if selfClosing {
                        try check(element, [][...], in: &containers)
                    } else {
                        open = (element, end + 1)
                    }
                }
                if name.elementsEqual("array".utf8) || name.elementsEqual("dict".utf8) {
                    if closing {
                        depth -= 1
                        _ = containers.popLast()
                    } else if !selfClosing {
                        containers.append(name.elementsEqual("dict".utf8) ? Set() : nil)
                        depth += 1
                        guard depth <= BinaryPlistValidator.maximumDepth else {
                            throw PropertyListError(.tooDeep, "property list is nested more than \(BinaryPlistValidator.maximumDepth) levels deep")
                        }
                    }
                }
                i = end + 1
            }
        }
    }

    /// Checks the text of a `<key>`, `<integer>`, `<date>` or `<data>` element.
    private static func check(_ element: TextElement, _ raw: ArraySlice<UInt8>, in containers: inout [Set<String>?]) throws(PropertyListError) {
        switch element {
        case .key:
            // Only keys directly inside a dictionary name entries; libplist rejects the rest.
            guard let last = containers.last, var keys = last else { return }
            let key = decodedText(raw)
            guard keys.insert(key).inserted else {
                throw PropertyListError(.duplicateKey, "XML plist: a dictionary has the key \(PropertyListError.quoted(key)) twice")
            }
            containers[containers.count - 1] = keys
        case .integer:
            guard XMLPlistValues.integer(raw) != nil else {
                throw PropertyListError(.integer, "XML plist has an invalid integer \(quotedText(raw)): not a decimal or 0x integer in -2^63 … 2^64-1")
            }
        case .date:
            guard XMLPlistValues.date(raw) != nil else {
                throw PropertyListError(.date, "XML plist has an invalid date \(quotedText(raw)): not a real date written YYYY-MM-DDTHH:MM:SSZ (years 0001-9999)")
            }
        case .data:
            guard XMLPlistValues.base64(raw) != nil else {
                throw PropertyListError(.base64, "XML plist has <data> that is not valid base64")
            }
        }
    }

    private static func quotedText(_ raw: ArraySlice<UInt8>) -> String {
        PropertyListError.quoted(String(decoding: raw, as: UTF8.self))
    }

    /// The text of an element as an XML parser reads it: CDATA sections taken literally,
    /// comments dropped, the five predefined entities and character references replaced.
    private static func decodedText(_ raw: ArraySlice<UInt8>) -> String {
        guard raw.contains(UInt8(ascii: "&")) || raw.contains(UInt8(ascii: "<")) else {
            return String(decoding: raw, as: UTF8.self)
        }
        var out: [UInt8] = []
        var i = raw.startIndex
        while i < raw.endIndex {
            let rest = raw[i...]
            if rest.starts(with: "<![CDATA[".utf8), let end = find(raw[(i + 9)...], "]]>") {
                out += raw[(i + 9)..<end]
                i = end + 3
            } else if rest.starts(with: "<!--".utf8), let end = find(raw[(i + 4)...], "-->") {
                i = end + 3
            } else if raw[i] == UInt8(ascii: "&"), let semicolon = rest.firstIndex(of: UInt8(ascii: ";")) {
                let name = String(decoding: raw[(i + 1)..<semicolon], as: UTF8.self)
                let predefined = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
                if let text = predefined[name] {
                    out += text.utf8
                } else if name.hasPrefix("#x") || name.hasPrefix("#X"), let value = UInt32(name.dropFirst(2), radix: 16),
                          let scalar = Unicode.Scalar(value) {
                    out += String(Character(scalar)).utf8
                } else if name.hasPrefix("#"), let value = UInt32(name.dropFirst(), radix: 10), let scalar = Unicode.Scalar(value) {
                    out += String(Character(scalar)).utf8
                } else {
                    out += raw[i...semicolon]
                }
                i = semicolon + 1
            } else {
                out.append(raw[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
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
            throw PropertyListError(.text, "XML plist has an invalid character reference \(PropertyListError.quoted(text))")
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
