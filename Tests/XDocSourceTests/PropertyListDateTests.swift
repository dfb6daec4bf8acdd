import Foundation
import XDSTestSupport
import Testing
@testable import XDocSource

@Suite("Property-list dates exact to the microsecond")
struct PropertyListDateTests {
    /// 15 000 random datetimes across years 1–9999 with random microseconds, written by
    /// plistlib as binary plists (in files under the 64 KiB limit); Python's own reading of
    /// each, in ISO-8601, is the reference. One Python process for all of them.
    @Test("15 000 random plistlib dates read as Python reads them")
    func randomDatesAgainstPython() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = #"""
        import plistlib, datetime, random, sys, os
        rng = random.Random(int(sys.argv[2]))
        first = datetime.datetime(1, 1, 1).toordinal()
        last = datetime.datetime(9999, 12, 30).toordinal()
        expected = []
        for n in range(5):
            dates = []
            for i in range(3000):
                day = datetime.datetime.fromordinal(rng.randint(first, last))
                dates.append(day + datetime.timedelta(seconds=rng.randint(0, 86399), microseconds=rng.choice([0, rng.randint(0, 999999)])))
            data = plistlib.dumps(dates, fmt=plistlib.FMT_BINARY)
            open(os.path.join(sys.argv[1], "dates%d.bplist" % n), "wb").write(data)
            for d in plistlib.loads(data):
                text = d.isoformat()
                if "." in text: text = text.rstrip("0")
                expected.append(text + "Z")
        open(os.path.join(sys.argv[1], "expected.txt"), "w").write("\n".join(expected))
        """#
        let seed = UInt32.random(in: 0...UInt32.max)
        let result = try await run("/usr/bin/python3", ["-c", script, folder.path, String(seed)])
        #expect(result.status == 0, "\(result.stderr)")
        let expected = try String(contentsOf: folder.appendingPathComponent("expected.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        var ours: [String] = []
        for n in 0..<5 {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent("dates\(n).bplist")))
            guard case .array(let dates) = try PropertyList.decode(bytes) else {
                Issue.record("not an array")
                return
            }
            for case .date(let seconds) in dates { ours.append(PropertyListDate.iso8601(seconds) ?? "nil \(seconds)") }
        }
        #expect(expected.count == 15_000)
        #expect(ours.count == expected.count)
        let wrong = zip(ours, expected).filter { $0 != $1 }
        #expect(wrong.isEmpty, "seed \(seed): \(wrong.count) differ, e.g. \(wrong.prefix(3))")
    }

    @Test("known dates", arguments: [
        (0.0, "2001-01-01T00:00:00Z"),
        (-63_113_904_000, "0001-01-01T00:00:00Z"),
        (252_423_993_599.5, "9999-12-31T23:59:59.5Z"),
        (700_000_000.25, "2023-03-08T20:26:40.25Z"),
        (-978_307_200, "1970-01-01T00:00:00Z"),
        (-0.000_001, "2000-12-31T23:59:59.999999Z"),
        (0.000_000_4, "2001-01-01T00:00:00Z"),
        (0.0078125, "2001-01-01T00:00:00.007812Z"),  // exactly 7812.5 µs: halves go to even
        (0.0234375, "2001-01-01T00:00:00.023438Z"),  // exactly 23437.5 µs
        (-0.0078125, "2000-12-31T23:59:59.992188Z"),
    ])
    func known(seconds: Double, text: String) {
        #expect(PropertyListDate.iso8601(seconds) == text)
        #expect(PropertyListDate.text(seconds) == text)
        #expect(JSONText.value(.date(seconds)) == "\"" + text + "\"")
    }

    @Test("dates outside years 1-9999 are shown as seconds since 2001-01-01", arguments: [
        -63_113_904_000.5, 252_423_993_600, 1e20, -1e300, .infinity, -.infinity, .nan,
    ])
    func outOfRange(seconds: Double) {
        #expect(PropertyListDate.iso8601(seconds) == nil)
        #expect(PropertyListDate.text(seconds) == "\(seconds) s since 2001-01-01")
        #expect(JSONText.value(.date(seconds)) == JSONText.value(.real(seconds)))
    }

    @Test("an out-of-range date in a plist shows as a number in JSON")
    func outOfRangeInJSON() throws {
        let source = try DocumentSource(propertyList: PropertyList.encodeBinary(.dictionary(["d": .date(1e15)])))
        #expect(JSONText.object(source.otherKeys) == #"{"d":1000000000000000.0}"#)
    }
}
