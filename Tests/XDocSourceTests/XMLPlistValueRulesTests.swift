import Foundation
import XDSTestSupport
import Testing
@testable import XDocSource

/// XML values are held to the rules binary plists follow: libplist 2.2 would silently repair
/// each of these (last key wins, `abc` reads as 0, month 13 rolls over, bad base64 skipped).
@Suite("XML plist values held to the binary rules")
struct XMLPlistValueRulesTests {
    static func xml(_ body: String) -> [UInt8] {
        Array((xmlHeader + "<dict><key>name</key><string>x</string>" + body + "</dict></plist>").utf8)
    }

    @Test("each bad XML value is refused with its kind", arguments: [
        ("<key>a</key><true/><key>a</key><false/>", PropertyListError.Kind.duplicateKey),
        ("<key>name</key><string>y</string>", .duplicateKey),
        ("<key>a</key><true/><key>&#97;</key><false/>", .duplicateKey),
        ("<key>a&amp;</key><true/><key><![CDATA[a&]]></key><false/>", .duplicateKey),
        ("<key/><true/><key></key><false/>", .duplicateKey),
        ("<key>d</key><dict><key>k</key><true/><key>k</key><true/></dict>", .duplicateKey),
        ("<key>a</key><integer>abc</integer>", .integer),
        ("<key>a</key><integer></integer>", .integer),
        ("<key>a</key><integer/>", .integer),
        ("<key>a</key><integer>18446744073709551616</integer>", .integer),
        ("<key>a</key><integer>-9223372036854775809</integer>", .integer),
        ("<key>a</key><integer>0x10000000000000000</integer>", .integer),
        ("<key>a</key><integer>010</integer>", .integer),
        ("<key>a</key><integer>1_0</integer>", .integer),
        ("<key>a</key><integer>1.5</integer>", .integer),
        ("<key>a</key><integer>- 5</integer>", .integer),
        ("<key>a</key><integer>&#53;</integer>", .integer),
        ("<key>a</key><date>2024-13-01T00:00:00Z</date>", .date),
        ("<key>a</key><date>2023-02-29T00:00:00Z</date>", .date),
        ("<key>a</key><date>2024-02-30T00:00:00Z</date>", .date),
        ("<key>a</key><date>1900-02-29T00:00:00Z</date>", .date),
        ("<key>a</key><date>2024-04-31T00:00:00Z</date>", .date),
        ("<key>a</key><date>2024-01-01T24:00:00Z</date>", .date),
        ("<key>a</key><date>2024-01-01T00:60:00Z</date>", .date),
        ("<key>a</key><date>2024-01-01T00:00:60Z</date>", .date),
        ("<key>a</key><date>0000-01-01T00:00:00Z</date>", .date),
        ("<key>a</key><date>2024-01-01T00:00:00.5Z</date>", .date),
        ("<key>a</key><date>2024-01-01T00:00:00</date>", .date),
        ("<key>a</key><date>2024-01-01 00:00:00Z</date>", .date),
        ("<key>a</key><date> 2024-01-01T00:00:00Z</date>", .date),
        ("<key>a</key><date>2024Z</date>", .date),
        ("<key>a</key><date/>", .date),
        ("<key>a</key><data>QUJ*DRA==</data>", .base64),
        ("<key>a</key><data>QQ</data>", .base64),
        ("<key>a</key><data>QQ==QQ==</data>", .base64),
        ("<key>a</key><data>Q===</data>", .base64),
        ("<key>a</key><data>QUJDRA=</data>", .base64),
        ("<key>a</key><data>QUJD-A==</data>", .base64),
        ("<key>a</key><data>QUJDRA&#61;&#61;</data>", .base64),
        ("<key>a</key><integer><integer>1</integer></integer>", .xmlSyntax),
        ("<key>a<b/></key><true/>", .xmlSyntax),
    ])
    func refused(body: String, kind: PropertyListError.Kind) {
        let error = #expect(throws: PropertyListError.self) { try DocumentSource(propertyList: Self.xml(body)) }
        #expect(error?.kind == kind, "message was: \(error?.message ?? "none")")
        #expect(error?.message.contains("\n") == false)
    }

    @Test("edge values are accepted with their exact values", arguments: [
        ("<integer>-9223372036854775808</integer>", PropertyListValue.integer(.min)),
        ("<integer>9223372036854775807</integer>", .integer(.max)),
        ("<integer>9223372036854775808</integer>", .unsignedInteger(1 << 63)),
        ("<integer>18446744073709551615</integer>", .unsignedInteger(.max)),
        ("<integer>0xFFFFFFFFFFFFFFFF</integer>", .unsignedInteger(.max)),
        ("<integer>-0x8000000000000000</integer>", .integer(.min)),
        ("<integer>0</integer>", .integer(0)),
        ("<integer>-0</integer>", .integer(0)),
        ("<integer>+7</integer>", .integer(7)),
        ("<integer>\n\t-5 </integer>", .integer(-5)),
        ("<date>0001-01-01T00:00:00Z</date>", .date(-63_113_904_000)),
        ("<date>9999-12-31T23:59:59Z</date>", .date(252_423_993_599)),
        ("<date>2000-02-29T00:00:00Z</date>", .date(-26_524_800)),
        ("<date>2001-01-01T00:00:00Z</date>", .date(0)),
        ("<data>QUJD\nRA==</data>", .data(Array("ABCD".utf8))),
        ("<data>\n\tQUJD\n\tRA==\n\t</data>", .data(Array("ABCD".utf8))),
        ("<data></data>", .data([])),
        ("<data/>", .data([])),
        ("<data>QR==</data>", .data([0x41])),
    ])
    func accepted(body: String, value: PropertyListValue) throws {
        let source = try DocumentSource(propertyList: Self.xml("<key>a</key>" + body))
        #expect(source.dictionary["a"] == value)
    }

    @Test("equal keys in different dictionaries, and keys of nested dictionaries, are fine")
    func keysPerDictionary() throws {
        let source = try DocumentSource(propertyList: Self.xml(
            "<key>d</key><dict><key>name</key><true/></dict><key>e</key><array><dict><key>name</key><true/></dict><dict><key>name</key><false/></dict></array>"))
        #expect(source.dictionary["d"] == .dictionary(["name": .boolean(true)]))
        #expect(source.name == "x")
    }

    @Test("plistlib's XML edge values decode to what plistlib itself reads")
    func plistlibEdges() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let xmlFile = folder.appendingPathComponent("edges.plist").path
        let binaryFile = folder.appendingPathComponent("edges.bplist").path
        // plistlib writes the XML (base64 in indented 76-column lines); its own binary
        // rendering of what it reads back is the reference.
        let script = #"""
        import plistlib, datetime, sys
        v = {"min": -2**63, "max": 2**64 - 1, "aboveInt64": 2**63, "zero": 0,
             "first": datetime.datetime(1, 1, 1), "last": datetime.datetime(9999, 12, 31, 23, 59, 59),
             "leap": datetime.datetime(2000, 2, 29, 12, 0, 0),
             "data": bytes(range(256)) * 3, "short": b"A", "nested": {"deep": [b"\x00\xff" * 40]}}
        xml = plistlib.dumps(v, fmt=plistlib.FMT_XML)
        assert b"\n" in xml.split(b"<data>")[1].split(b"</data>")[0].strip()
        open(sys.argv[1], "wb").write(xml)
        open(sys.argv[2], "wb").write(plistlib.dumps(plistlib.loads(xml), fmt=plistlib.FMT_BINARY))
        """#
        let result = try await run("/usr/bin/python3", ["-c", script, xmlFile, binaryFile])
        #expect(result.status == 0, "\(result.stderr)")
        let fromXML = try PropertyList.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: xmlFile))))
        let fromBinary = try PropertyList.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: binaryFile))))
        #expect(fromXML == fromBinary)
        guard case .dictionary(let entries) = fromXML else {
            Issue.record("root is not a dictionary")
            return
        }
        #expect(entries["min"] == .integer(.min))
        #expect(entries["max"] == .unsignedInteger(.max))
        #expect(entries["first"] == .date(-63_113_904_000))
        let everyByte: [UInt8] = (0...255).map { UInt8($0) }
        #expect(entries["data"] == .data(everyByte + everyByte + everyByte))
    }
}
