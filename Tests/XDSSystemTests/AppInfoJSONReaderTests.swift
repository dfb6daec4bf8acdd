import Foundation
import XDSTestSupport
import Testing
import XDSSystem

@Suite("appInfo.json: the strict JSON reader")
struct AppInfoJSONReaderTests {
    private func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue { try JSONReader.parse(Array(text.utf8)) }

    private func error(_ bytes: [UInt8]) -> JSONSyntaxError? {
        do {
            _ = try JSONReader.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    private func error(_ text: String) -> JSONSyntaxError? { error(Array(text.utf8)) }

    @Test("every kind of value")
    func values() throws {
        #expect(try parse(" \t\r\n{\"a\" : [1, -2.5e+3, 0, -0, 0.0, 1E-2, true, false, null, \"\", {}, []]} \n")
                == .object([("a", .array([.number("1"), .number("-2.5e+3"), .number("0"), .number("-0"), .number("0.0"),
                                           .number("1E-2"), .bool(true), .bool(false), .null, .string(""), .object([]),
                                           .array([])]))]))
        #expect(try parse("\"x\"") == .string("x"))
        #expect(try parse("7") == .number("7"))
        #expect(try parse("null") == .null)
        #expect(try parse(#"{"b": 1, "a": 2}"#) == .object([("b", .number("1")), ("a", .number("2"))]), "order kept")
    }

    @Test("string escapes, surrogate pairs, raw UTF-8")
    func strings() throws {
        #expect(try parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
        #expect(try parse(#""\u0041\u00e9\u20AC\u0000\uFFFF""#) == .string("Aé€\u{0}\u{FFFF}"))
        #expect(try parse(#""\uD83D\uDE00 \ud834\udd1e""#) == .string("😀 𝄞"))
        #expect(try parse("\"é€😀\u{7F}\"") == .string("é€😀\u{7F}"))
        #expect(try parse("\"\u{FEFF}\"") == .string("\u{FEFF}"), "a BOM inside a string is a character")
    }

    @Test("a leading byte-order mark is skipped")
    func byteOrderMark() throws {
        #expect(try JSONReader.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == .array([.number("1")]))
        #expect(error([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) != nil)
    }

    @Test("lone and mismatched surrogates are refused")
    func surrogates() throws {
        for (text, reason) in [
            (#""\uD83D""#, #"lone high surrogate \uD83D (not followed by a low surrogate)"#),
            (#""\uD83Dx""#, #"lone high surrogate \uD83D (not followed by a low surrogate)"#),
            (#""\uD83D\n""#, #"lone high surrogate \uD83D (not followed by a low surrogate)"#),
            (#""\uD83D\u0041""#, #"high surrogate \uD83D followed by \u0041, not a low surrogate"#),
            (#""\uD83D\uD83D""#, #"high surrogate \uD83D followed by \uD83D, not a low surrogate"#),
            (#""\uDE00""#, #"lone low surrogate \uDE00"#),
            (#""\uDE00\uD83D""#, #"lone low surrogate \uDE00"#),
        ] {
            let failure = try #require(error(text), "\(text)")
            #expect(failure.reason == reason, "\(text)")
            #expect(failure.offset == 1)
        }
    }

    @Test("what RFC 8259 does not allow is refused, at the right place")
    func refused() throws {
        let cases: [(String, Int, String)] = [
            ("", 0, "unexpected end of the text, expected a value"),
            ("   ", 3, "unexpected end of the text, expected a value"),
            ("[1,]", 3, "expected a value, found ']'"),
            ("[1 2]", 3, "expected ',' or ']', found '2'"),
            ("{\"a\" 1}", 5, "expected ':' after a key, found '1'"),
            ("{\"a\":1,}", 7, "expected a string key, found '}'"),
            ("{a:1}", 1, "expected a string key, found 'a'"),
            ("{'a':1}", 1, "expected a string key, found '''"),
            ("[1] [2]", 4, "unexpected text after the JSON value"),
            ("[1]x", 3, "unexpected text after the JSON value"),
            ("01", 1, "a number may not start with 0 followed by digits"),
            ("-01", 2, "a number may not start with 0 followed by digits"),
            ("+1", 0, "expected a value, found '+'"),
            (".5", 0, "expected a value, found '.'"),
            ("1.", 2, "expected a digit after '.' in a number, found the end of the text"),
            ("1.e5", 2, "expected a digit after '.' in a number, found 'e'"),
            ("1e", 2, "expected a digit in an exponent, found the end of the text"),
            ("1e+", 3, "expected a digit in an exponent, found the end of the text"),
            ("-", 1, "expected a digit in a number, found the end of the text"),
            ("-x", 1, "expected a digit in a number, found 'x'"),
            ("NaN", 0, "expected a value, found 'N'"),
            ("Infinity", 0, "expected a value, found 'I'"),
            ("tru", 0, "expected a value, found 't'"),
            ("True", 0, "expected a value, found 'T'"),
            ("nul", 0, "expected a value, found 'n'"),
            ("[true false]", 6, "expected ',' or ']', found 'f'"),
            ("\"abc", 4, "unterminated string"),
            ("\"a\\", 3, "unterminated string"),
            ("\"a\tb\"", 2, "control character U+0009 in a string (write it as an escape)"),
            ("\"a\nb\"", 2, "control character U+000A in a string (write it as an escape)"),
            ("\"\\x\"", 1, "invalid escape in a string: backslash followed by 'x'"),
            ("\"\\'\"", 1, "invalid escape in a string: backslash followed by '''"),
            ("\"\\u12\"", 1, "\\u must be followed by four hexadecimal digits"),
            ("\"\\u12G4\"", 1, "\\u must be followed by four hexadecimal digits"),
            ("[1,\u{0B}2]", 3, "expected a value, found byte 0x0B"),
            ("[\u{A0}1]", 1, "expected a value, found byte 0xC2"),
            ("/* c */ 1", 0, "expected a value, found '/'"),
        ]
        for (text, offset, reason) in cases {
            let failure = try #require(error(text), "\(text)")
            #expect(failure.offset == offset, "\(text)")
            #expect(failure.reason == reason, "\(text)")
        }
    }

    @Test("malformed UTF-8 is refused: overlong forms, encoded surrogates, past U+10FFFF, truncated, stray bytes")
    func utf8() throws {
        let bad: [[UInt8]] = [
            [0x80], [0xBF], [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80],
            [0xED, 0xBF, 0xBF], [0xF0, 0x80, 0x80, 0xAF], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xFE], [0xFF], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xC3, 0x41],
            [0xE2, 0x41, 0xAC],
        ]
        for sequence in bad {
            let failure = try #require(error([0x22, 0x61] + sequence + [0x22]), "\(sequence)")
            #expect(failure.offset == 2, "\(sequence)")
        }
        let good: [[UInt8]] = [[0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
                               [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF]]
        for sequence in good {
            let value = try JSONReader.parse([0x22] + sequence + [0x22])
            #expect(value == .string(String(decoding: sequence, as: UTF8.self)), "\(sequence)")
        }
    }

    @Test("line and column count lines and characters, not bytes")
    func positions() throws {
        let failure = try #require(error("[\n\"é😀\", x]"))
        #expect(failure.line == 2)
        #expect(failure.column == 7)
        #expect(failure.offset == 12)
        #expect(failure.description == "line 2, column 7: expected a value, found 'x'")
    }

    @Test("depth: 64 levels read, 65 refused, objects and arrays alike")
    func depth() throws {
        func nested(_ depth: Int, object: Bool) -> String {
            object ? String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
                : String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
        }
        for object in [false, true] {
            _ = try parse(nested(64, object: object))
            #expect(error(nested(65, object: object))?.reason == "nested deeper than 64 levels")
        }
        #expect(throws: JSONSyntaxError.self) { try JSONReader.parse(Array("[[1]]".utf8), maximumDepth: 1) }
    }

    @Test("duplicate keys are refused, in any object at any depth")
    func duplicates() throws {
        #expect(error(#"{"a":1,"b":2,"a":3}"#)?.reason == #"duplicate key "a" in an object"#)
        #expect(error(#"[{"x":{"k":1,"k":1}}]"#)?.offset == 13)
        #expect(error(#"{"\u0061":1,"a":2}"#) != nil, "escapes compare decoded")
        #expect(try parse(#"{"a":{"a":1},"b":{"a":2}}"#) != .null, "the same key in two objects is fine")
    }

    @Test("keys are compared as code points (RFC 8259): precomposed and decomposed are two keys")
    func keysCompareCodePoints() throws {
        // "é" as U+00E9 and as "e" + U+0301: canonically equivalent, so Swift's == says equal,
        // but two different member names for JSON.
        let text = "{\"\u{E9}\":1,\"e\u{301}\":2}"
        #expect(error(text) == nil, "not duplicates")
        let value = try parse(text)
        #expect(value["\u{E9}"] == .number("1"))
        #expect(value["e\u{301}"] == .number("2"))
        #expect(error(#"{"\u00e9":1,"\u00E9":2}"#) != nil, "the same code point twice is a duplicate")
        #expect(JSONValue.string("\u{E9}") != .string("e\u{301}"))
    }

    @Test("whole numbers: integers and reals with a zero fraction, in range")
    func wholeNumbers() {
        let range = 1...Int(Int32.max)
        let cases: [(String, Int?)] = [
            ("29", 29), ("29.0", 29), ("2.9e1", 29), ("2900e-2", 29), ("1", 1), ("2147483647", 2147483647),
            ("2147483647.0", 2147483647), ("0", nil), ("-0", nil), ("-1", nil), ("29.5", nil), ("2.95e1", nil),
            ("2147483648", nil), ("1e10", nil), ("1e400", nil), ("99999999999999999999999", nil), ("0.1e1", 1),
        ]
        for (text, expected) in cases {
            #expect(JSONValue.number(text).wholeNumber(in: range) == expected, "\(text)")
        }
        #expect(JSONValue.string("29").wholeNumber(in: range) == nil)
    }

    @Test("random values written as JSON read back the same, and agree with Foundation's reader")
    func roundTrip() throws {
        var generator = SplitMix64(seed: 0x15_0A_F0)
        for _ in 0..<400 {
            let value = randomValue(depth: 0, using: &generator)
            let text = write(value, pretty: Bool.random(using: &generator))
            let bytes = Array(text.utf8)
            #expect(try JSONReader.parse(bytes) == value, "\(text)")
            // Foundation, an independent reader, accepts what this one accepts.
            #expect((try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil, "\(text)")
        }
    }

    @Test("random damage to valid JSON never crashes, and any text read is valid for Foundation too")
    func damage() {
        var generator = SplitMix64(seed: 0xBAD)
        for _ in 0..<1500 {
            var bytes = Array(write(randomValue(depth: 0, using: &generator), pretty: false).utf8)
            for _ in 0..<Int.random(in: 1...3, using: &generator) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(Array("{}[]\",:\\ 0e.-tnu\u{1}".utf8).randomElement(using: &generator)!, at: at)
                default: bytes[at] = UInt8.random(in: 0...255, using: &generator)
                }
            }
            if let value = try? JSONReader.parse(bytes), !hasNumberPastDouble(value) {
                // What the strict reader takes, a conforming reader must take too (Foundation
                // refuses numbers past Double's range, which RFC 8259 §9 lets a reader do).
                #expect((try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil,
                        "\(String(decoding: bytes, as: UTF8.self))")
            }
        }
    }

    @Test("reading is linear: 256 KiB of small entries and one long string read quickly")
    func linear() throws {
        let entry = #"{"width": 29, "height": 29, "src": "img/icon-29.png"},"#
        let many = "[" + String(repeating: entry, count: 262_000 / entry.utf8.count) + "1]"
        let long = "\"" + String(repeating: "a\\u00e9", count: 262_000 / 7) + "\""
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            _ = try JSONReader.parse(Array(many.utf8))
            _ = try JSONReader.parse(Array(long.utf8))
        }
        #expect(elapsed < .seconds(2), "\(elapsed)")
    }

    private func hasNumberPastDouble(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let text): return !(Double(text)?.isFinite ?? false)
        case .array(let items): return items.contains(where: hasNumberPastDouble)
        case .object(let members): return members.contains { hasNumberPastDouble($0.value) }
        default: return false
        }
    }

    // MARK: generator

    private func randomValue(depth: Int, using generator: inout SplitMix64) -> JSONValue {
        let choice = Int.random(in: 0..<(depth >= 4 ? 5 : 7), using: &generator)
        switch choice {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .number(randomNumber(using: &generator))
        case 3, 4: return .string(randomString(using: &generator))
        case 5:
            return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            var members: [(key: String, value: JSONValue)] = []
            var keys = Set<String>()
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                let key = randomString(using: &generator)
                if keys.insert(key).inserted { members.append((key, randomValue(depth: depth + 1, using: &generator))) }
            }
            return .object(members)
        }
    }

    private func randomNumber(using generator: inout SplitMix64) -> String {
        var text = Bool.random(using: &generator) ? "-" : ""
        text += Bool.random(using: &generator) ? "0" : String(Int.random(in: 1...999_999, using: &generator))
        if Bool.random(using: &generator) { text += "." + String(Int.random(in: 0...9999, using: &generator)) }
        if Bool.random(using: &generator) {
            text += ["e", "E"].randomElement(using: &generator)! + ["", "+", "-"].randomElement(using: &generator)!
                + String(Int.random(in: 0...200, using: &generator))
        }
        return text
    }

    private func randomString(using generator: inout SplitMix64) -> String {
        let pool: [Unicode.Scalar] = ["a", "z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "€",
                                      "\u{2028}", "\u{FEFF}", "😀", "𝄞", "\u{10FFFF}", "{", "]", ":", ","]
        var text = ""
        for _ in 0..<Int.random(in: 0...8, using: &generator) {
            text.unicodeScalars.append(pool.randomElement(using: &generator)!)
        }
        return text
    }

    /// JSON text for `value`; strings through the project's writer, or with every non-ASCII
    /// character as \u escapes (surrogate pairs beyond the BMP) half of the time.
    private func write(_ value: JSONValue, pretty: Bool) -> String {
        let space = pretty ? "\n  " : ""
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let text): return text
        case .string(let s): return pretty ? asciiString(s) : JSONString.literal(s)
        case .array(let items): return "[" + space + items.map { write($0, pretty: pretty) }.joined(separator: "," + space) + "]"
        case .object(let members):
            return "{" + space + members.map { (pretty ? asciiString($0.key) : JSONString.literal($0.key)) + (pretty ? " : " : ":")
                + write($0.value, pretty: pretty) }.joined(separator: "," + space) + space + "}"
        }
    }

    private func asciiString(_ s: String) -> String {
        var out = "\""
        for unit in s.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x2F: out += "\\/"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default:
                let hex = String(unit, radix: 16, uppercase: Bool.random())
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out + "\""
    }
}
