/// A JSON value as ``JSONReader`` reads it.
///
/// Numbers keep their text (the lexeme as written) so a reader decides how to take them
/// without a trip through `Double` losing digits; objects keep their members in order.
package enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number exactly as written, e.g. "29", "-0.5", "2.9E1".
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in the order written; keys are unique (the reader refuses duplicates).
    case object([(key: String, value: JSONValue)])

    package static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy {
                $0.key.unicodeScalars.elementsEqual($1.key.unicodeScalars) && $0.value == $1.value
            }
        default: return false
        }
    }

    /// The member `key` of an object, or nil (also when this is not an object).
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        // Code points, not Swift's canonical equivalence (RFC 8259 §8.3): "é" is not "e\u{301}".
        return members.first { $0.key.unicodeScalars.elementsEqual(key.unicodeScalars) }?.value
    }

    /// A number that is a whole value in `range`, written as an integer ("29") or as a
    /// number with a zero fraction or an exponent ("29.0", "2.9e1"); nil otherwise.
    package func wholeNumber(in range: ClosedRange<Int>) -> Int? {
        guard case .number(let text) = self else { return nil }
        if let exact = Int(text) { return range.contains(exact) ? exact : nil }
        guard let real = Double(text), real.isFinite, real == real.rounded(.towardZero),
              real >= Double(range.lowerBound), real <= Double(range.upperBound) else { return nil }
        return Int(real)
    }
}

/// Why ``JSONReader`` refused a text: the reason in words and where (byte offset, and the
/// line and column — both from 1, the column counting characters — of that byte).
package struct JSONSyntaxError: Error, Equatable, Sendable {
    /// The offset of the offending byte from the start of the input (0-based).
    package let offset: Int
    /// The line of that byte, from 1.
    package let line: Int
    /// The column of that byte in its line, from 1, counting Unicode characters.
    package let column: Int
    /// What is wrong, in words, e.g. "expected ',' or ']'".
    package let reason: String

    /// "line 3, column 7: expected ',' or ']'".
    package var description: String { "line \(line), column \(column): \(reason)" }
}

/// A strict RFC 8259 reader, written by hand (Foundation costs start-up time).
///
/// * UTF-8 only, validated (overlong forms, encoded surrogates and values past U+10FFFF are
///   refused); a leading UTF-8 byte-order mark is skipped (RFC 8259 §8.1 allows it).
/// * Strings with every escape, surrogate pairs joined, a lone surrogate escape refused, raw
///   control characters refused.
/// * Numbers by the RFC grammar (no leading zeros, no `+`, no `.5`, no `NaN`).
/// * Duplicate keys in one object are refused: RFC 8259 §4 leaves their meaning to each
///   reader, and two readers that pick different members are a way to make one file mean two
///   things.
/// * Nesting is bounded (`maximumDepth`, 64 by default) so a hostile file cannot exhaust the
///   stack; the work is linear in the input.
package struct JSONReader {
    /// The deepest nesting of arrays and objects accepted; the root container is depth 1.
    package static let defaultMaximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0
    private let maximumDepth: Int

    /// Reads one JSON text (surrounded by optional white space) from `bytes`.
    package static func parse(_ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth) throws(JSONSyntaxError) -> JSONValue {
        var reader = JSONReader(bytes: bytes, maximumDepth: maximumDepth)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
        reader.skipWhiteSpace()
        let value = try reader.value(depth: 0)
        reader.skipWhiteSpace()
        guard reader.index == bytes.count else { throw reader.error("unexpected text after the JSON value") }
        return value
    }

    private init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    // MARK: values

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of the text, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("expected a value, found \(found())")
        }
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nested deeper than \(maximumDepth) levels") }
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        // Keys are compared as code points (RFC 8259 §8.3), not with `String`'s `==`, which
        // takes "é" (U+00E9) and "e\u{301}" for the same key: they are two different members.
        var keys = Set<[Unicode.Scalar]>()
        skipWhiteSpace()
        if peek(UInt8(ascii: "}")) { index += 1; return .object(members) }
        while true {
            skipWhiteSpace()
            guard peek(UInt8(ascii: "\"")) else { throw error("expected a string key, found \(found())") }
            let keyStart = index
            let key = try string()
            guard keys.insert(Array(key.unicodeScalars)).inserted else {
                throw error("duplicate key \(JSONString.literal(key)) in an object", at: keyStart)
            }
            skipWhiteSpace()
            guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after a key, found \(found())") }
            index += 1
            skipWhiteSpace()
            members.append((key, try value(depth: depth)))
            skipWhiteSpace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            if peek(UInt8(ascii: "}")) { index += 1; return .object(members) }
            throw error("expected ',' or '}', found \(found())")
        }
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nested deeper than \(maximumDepth) levels") }
        index += 1
        var items: [JSONValue] = []
        skipWhiteSpace()
        if peek(UInt8(ascii: "]")) { index += 1; return .array(items) }
        while true {
            skipWhiteSpace()
            items.append(try value(depth: depth))
            skipWhiteSpace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            if peek(UInt8(ascii: "]")) { index += 1; return .array(items) }
            throw error("expected ',' or ']', found \(found())")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let start = index
        var i = 0
        let count = word.utf8CodeUnitCount
        while i < count {
            guard index < bytes.count, bytes[index] == word.utf8Start[i] else {
                throw error("expected a value, found \(found(at: start))", at: start)
            }
            index += 1
            i += 1
        }
    }

    // MARK: numbers

    private mutating func number() throws(JSONSyntaxError) -> String {
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        if peek(UInt8(ascii: "0")) {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("a number may not start with 0 followed by digits") }
        } else {
            guard digits() > 0 else { throw error("expected a digit in a number, found \(found())") }
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard digits() > 0 else { throw error("expected a digit after '.' in a number, found \(found())") }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard digits() > 0 else { throw error("expected a digit in an exponent, found \(found())") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        return index - start
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: strings

    /// Reads a string starting at its opening quote; the index ends after the closing one.
    private mutating func string() throws(JSONSyntaxError) -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &out)
            case 0x00..<0x20:
                throw error("control character U+00\(hex2(byte)) in a string (write it as an escape)")
            case 0x20..<0x80:
                out.append(byte)
                index += 1
            default:
                try multiByte(into: &out)
            }
        }
    }

    private mutating func escape(into out: inout [UInt8]) throws(JSONSyntaxError) {
        let start = index
        index += 1
        guard index < bytes.count else { throw error("unterminated string") }
        let code = bytes[index]
        index += 1
        switch code {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "/"): out.append(0x2F)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            let first = try hexQuad(escapeStart: start)
            var scalar: UInt32 = first
            if (0xD800...0xDBFF).contains(first) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("lone high surrogate \\u\(hex4(first)) (not followed by a low surrogate)", at: start)
                }
                let secondStart = index
                index += 2
                let second = try hexQuad(escapeStart: secondStart)
                guard (0xDC00...0xDFFF).contains(second) else {
                    throw error("high surrogate \\u\(hex4(first)) followed by \\u\(hex4(second)), not a low surrogate", at: start)
                }
                scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(first) {
                throw error("lone low surrogate \\u\(hex4(first))", at: start)
            }
            // Valid by construction: not a surrogate, at most U+10FFFF.
            out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
        default:
            throw error("invalid escape in a string: backslash followed by \(found(at: index - 1))", at: start)
        }
    }

    private mutating func hexQuad(escapeStart: Int) throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = Hex.value(bytes[index]) else {
                throw error("\\u must be followed by four hexadecimal digits", at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Copies one multi-byte UTF-8 sequence, refusing what is not well-formed (Unicode 15
    /// table 3-7: no overlong forms, no surrogates, nothing past U+10FFFF).
    private mutating func multiByte(into out: inout [UInt8]) throws(JSONSyntaxError) {
        let lead = bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: throw error("invalid UTF-8 byte 0x\(hex2(lead))")
        }
        guard index + length <= bytes.count else { throw error("truncated UTF-8 sequence") }
        for k in 1..<length {
            let range = k == 1 ? secondRange : 0x80...0xBF
            guard range.contains(bytes[index + k]) else { throw error("invalid UTF-8 sequence") }
        }
        out.append(contentsOf: bytes[index..<index + length])
        index += length
    }

    // MARK: helpers

    private mutating func skipWhiteSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    /// Two upper-case digits, as messages name a byte ("0xFF") or a code unit ("\\u" and four).
    private func hex2(_ byte: UInt8) -> String {
        var digits: [UInt8] = []
        Hex.append(byte, uppercase: true, to: &digits)
        return String(decoding: digits, as: UTF8.self)
    }

    private func hex4(_ value: UInt32) -> String { hex2(UInt8(value >> 8)) + hex2(UInt8(value & 0xFF)) }

    /// The character at `at` in words for a message: "'x'", "byte 0xFF" or "the end of the text".
    private func found(at position: Int? = nil) -> String {
        let i = position ?? index
        guard i < bytes.count else { return "the end of the text" }
        let byte = bytes[i]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(hex2(byte))"
    }

    private func error(_ reason: String, at position: Int? = nil) -> JSONSyntaxError {
        let offset = min(position ?? index, bytes.count)
        var line = 1
        var column = 1
        for byte in bytes[..<offset] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONSyntaxError(offset: offset, line: line, column: column, reason: reason)
    }
}
