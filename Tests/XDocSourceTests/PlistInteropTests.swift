import Foundation
import Testing
import XDSTestSupport
@testable import XDocSource

/// Interop with independent implementations on the machine: Python's `plistlib` (binary and
/// XML, both directions) and libplist-utils' `plistutil` (binary to XML and back).
@Suite("Plist interop with plistlib and plistutil")
struct PlistInteropTests {
    /// The same value in Python; `X` selects what a format can hold.
    static let pythonPrelude = #"""
    import plistlib, datetime, sys
    EPOCH = datetime.datetime(2001, 1, 1)
    def d(s): return EPOCH + datetime.timedelta(seconds=s)
    def expected(xml=False, whole_seconds=False, uid_as_dict=False, negative_whole=-1000000001):
        v = {
            "string": "hello", "empty": "", "unicode": "Ünïcödé 日本語 🎉 e\u0301",
            "zero": 0, "small": 42, "int16": 40000, "int32": 3000000000,
            "negative": -1, "min": -2**63, "max": 2**63 - 1,
            "huge": 2**64 - 1, "aboveInt64": 2**63,
            "real": 3.141592653589793, "negativeReal": -0.5, "true": True, "false": False,
            "date": d(700000000 if whole_seconds else 700000000.25),
            "negativeDate": d(negative_whole if whole_seconds else -1000000000.5),
            "farDate": d(63113904000),
            "data": b"\x00\x01\x02\xff\x80", "emptyData": b"",
            "array": [1, "two", [], {}],
            "nested": {"inner": {"deep": [True, b"\x09"]}, "list": [1.5, d(0)]},
        }
        if not xml: v["uid"] = plistlib.UID(7); v["bigUID"] = plistlib.UID(4000000000)
        if uid_as_dict: v["uid"] = {"CF$UID": 7}; v["bigUID"] = {"CF$UID": 4000000000}
        return v
    def check(actual, want):
        if actual != want:
            for k in sorted(set(actual) | set(want)):
                if actual.get(k) != want.get(k):
                    print("key", k, "got", repr(actual.get(k)), "want", repr(want.get(k)), file=sys.stderr)
            sys.exit(1)
    """#

    static func python(_ body: String, _ arguments: [String] = [], stdin: Data? = nil) async throws -> Run {
        try await run("/usr/bin/python3", ["-c", pythonPrelude + "\n" + body] + arguments, stdin: stdin)
    }

    /// Our value for the XML variants: no UID, and dates as plistlib writes them in XML.
    static func xmlSample(wholeSeconds: Bool) -> [String: PropertyListValue] {
        var value = everyTypeSample
        value["uid"] = nil
        value["bigUID"] = nil
        if wholeSeconds {
            value["date"] = .date(700_000_000)
            value["negativeDate"] = .date(-1_000_000_001)
        }
        return value
    }

    @Test("plistlib's binary plist decodes to the same values")
    func readsPythonBinary() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("python.bplist").path
        let result = try await Self.python("plistlib.dump(expected(), open(sys.argv[1], 'wb'), fmt=plistlib.FMT_BINARY)", [file])
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(try PropertyList.decode(bytes) == .dictionary(everyTypeSample))
    }

    @Test("plistlib's XML plist decodes to the same values")
    func readsPythonXML() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("python.plist").path
        let result = try await Self.python("plistlib.dump(expected(xml=True, whole_seconds=True), open(sys.argv[1], 'wb'), fmt=plistlib.FMT_XML)", [file])
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(bytes.starts(with: Array("<?xml".utf8)))
        #expect(try PropertyList.decode(bytes) == .dictionary(Self.xmlSample(wholeSeconds: true)))
    }

    @Test("plistlib reads our binary plist back exactly")
    func pythonReadsOurs() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("ours.bplist")
        try Data(PropertyList.encodeBinary(.dictionary(everyTypeSample))).write(to: file)
        let result = try await Self.python("check(plistlib.load(open(sys.argv[1], 'rb'), fmt=plistlib.FMT_BINARY), expected())", [file.path])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("plistutil converts our binary plist to XML that plistlib reads as the same values")
    func plistutilReadsOurs() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("ours.bplist")
        try Data(PropertyList.encodeBinary(.dictionary(everyTypeSample))).write(to: file)
        let converted = try await run("/usr/bin/plistutil", ["-i", file.path, "-o", "-"])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stdoutBytes.starts(with: Data("<?xml".utf8)))
        // libplist writes dates in XML as whole seconds truncated toward zero, and UIDs as
        // CF$UID dictionaries.
        let result = try await Self.python(
            "check(plistlib.loads(sys.stdin.buffer.read(), fmt=plistlib.FMT_XML), expected(whole_seconds=True, uid_as_dict=True, negative_whole=-1000000000))",
            stdin: converted.stdoutBytes)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("plistutil's binary conversion of a plistlib XML plist decodes to the same values")
    func readsPlistutilBinary() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let xml = folder.appendingPathComponent("python.plist").path
        let binary = folder.appendingPathComponent("plistutil.bplist").path
        let result = try await Self.python("plistlib.dump(expected(xml=True, whole_seconds=True), open(sys.argv[1], 'wb'), fmt=plistlib.FMT_XML)", [xml])
        #expect(result.status == 0, "\(result.stderr)")
        let converted = try await run("/usr/bin/plistutil", ["-i", xml, "-o", binary, "-f", "bin"])
        #expect(converted.status == 0, "\(converted.stderr)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: binary)))
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        #expect(try PropertyList.decode(bytes) == .dictionary(Self.xmlSample(wholeSeconds: true)))
    }
}
