import Testing
@testable import XDocSource

@Suite("Property-list values as JSON")
struct JSONTextTests {
    @Test("every value type maps as documented")
    func mapping() {
        let value = PropertyListValue.dictionary([
            "s": .string("a\"b\\c\n\u{1}\u{2028}é"), "i": .integer(-3), "u": .unsignedInteger(.max), "r": .real(1.5),
            "nan": .real(.nan), "inf": .real(-.infinity), "t": .boolean(true), "d": .date(0.5), "data": .data([0, 1, 2, 255]),
            "uid": .uid(7), "a": .array([.integer(1), .dictionary([:])]),
        ])
        #expect(value.json == #"{"a":[1,{}],"d":"2001-01-01T00:00:00.5Z","data":"AAEC/w==","i":-3,"inf":"-Infinity","nan":"NaN","r":1.5,"#
            + #""s":"a\"b\\c\n\u0001\u2028é","t":true,"u":18446744073709551615,"uid":{"CF$UID":7}}"#)
    }

    @Test("base64 encodes and decodes every length, and refuses what is not base64")
    func base64() {
        let bytes: [UInt8] = (0..<40).map { UInt8(($0 * 37 + 11) % 256) }
        for count in 0...bytes.count {
            let encoded = Base64.encode(Array(bytes.prefix(count)))
            #expect(encoded.utf8.count % 4 == 0)
            #expect(Base64.decode(Array(encoded.utf8)) == Array(bytes.prefix(count)))
        }
        #expect(Base64.encode(Array("ABCD".utf8)) == "QUJDRA==")
        #expect(Base64.decode(Array(" QU\nJD\r\n\tRA== ".utf8)) == Array("ABCD".utf8))
        for bad in ["QQ", "Q===", "QQ=A", "QUJDRA=", "QUJ*", "QQ==QQ==", "===="] {
            #expect(Base64.decode(Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    @Test("a value's other keys as JSON (xds show --json's \"other\"), the key of the wrong type a warning")
    func otherKeys() throws {
        let source = try DocumentSource(propertyList: PropertyList.encodeBinary(.dictionary([
            "appInfoURL": .string("https://example.com/appInfo.json"), "path": .string("d/f.txt"),
            "name": .integer(5), "identifier": .string("com.example.app"), "zz": .data([1]),
        ])))
        #expect(JSONText.object(source.otherKeys) == #"{"zz":"AQ=="}"#)
        #expect(source.warnings == ["'name' is an integer, not a string; ignored"])
        #expect(JSONText.string("a\"b") == #""a\"b""#)
    }
}
