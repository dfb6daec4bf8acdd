import Foundation
import XDSTestSupport
import Testing
@testable import XDocSource

/// The one-pass binary decoder (the validator's walk builds the value) against the old path
/// (validator, then libplist, then the converter): the same value, fields, other keys, warnings
/// and JSON for every property list, and the same error for every damaged one.
@Suite("One-pass binary plist decoding equals libplist's")
struct OnePassDecodeTests {
    /// A text that tells values apart exactly (reals by bit pattern: NaN equals itself here,
    /// and -0.0 differs from 0.0).
    static func exact(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let s): "s\(Array(s.utf8))"
        case .integer(let i): "i\(i)"
        case .unsignedInteger(let u): "u\(u)"
        case .real(let r): "r\(r.bitPattern)"
        case .boolean(let b): "b\(b)"
        case .date(let d): "d\(d.bitPattern)"
        case .data(let bytes): "x\(bytes)"
        case .uid(let u): "U\(u)"
        case .array(let items): "[" + items.map(exact).joined(separator: ",") + "]"
        case .dictionary(let entries):
            "{" + entries.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
                .map { "s\(Array($0.key.utf8)):" + exact($0.value) }.joined(separator: ",") + "}"
        }
    }

    /// Both decoders on `bytes`: nil when they agree, else what differs.
    static func difference(_ bytes: [UInt8]) -> String? {
        let onePass = Result { () throws(PropertyListError) in try BinaryPlistValidator.decode(bytes) }
        let libplist = Result { () throws(PropertyListError) in try PropertyList.decodeBinaryWithLibplist(bytes) }
        switch (onePass, libplist) {
        case (.success(let a), .success(let b)):
            guard exact(a) == exact(b) else { return "values differ: \(exact(a)) vs \(exact(b))" }
            guard case .dictionary(let entries) = a, case .dictionary(let others) = b else { return nil }
            var first = DocumentSource(), second = DocumentSource()
            first.dictionary = entries
            second.dictionary = others
            guard first.warnings == second.warnings, first.identifier == second.identifier, first.name == second.name,
                  first.path == second.path, first.appInfoURL == second.appInfoURL,
                  exact(.dictionary(first.otherKeys)) == exact(.dictionary(second.otherKeys))
            else { return "fields, other keys or warnings differ" }
            let one = JSONText.object(first.otherKeys), two = JSONText.object(second.otherKeys)
            return one == two ? nil : "JSON of the other keys differs: \(one) vs \(two)"
        case (.failure(let a), .failure(let b)):
            return a == b ? nil : "errors differ: \(a) vs \(b)"
        case (.success(let a), .failure(let b)):
            return "one pass read \(exact(a)), libplist failed: \(b)"
        case (.failure(let a), .success(let b)):
            return "one pass failed (\(a)), libplist read \(exact(b))"
        }
    }

    /// The four-field path (`BinaryPlistKnownFields`, what `DocumentSource(propertyList:)` tries
    /// first) on `bytes` against libplist: nil when it declines or reads the same dictionary,
    /// fields and JSON as the general decoding, else what differs. `taken` counts the inputs it read.
    static func knownFieldsDifference(_ bytes: [UInt8], taken: inout Int) -> String? {
        guard let fields = BinaryPlistKnownFields.decode(bytes) else { return nil }
        taken += 1
        let libplist = Result { () throws(PropertyListError) in try PropertyList.decodeBinaryWithLibplist(bytes) }
        guard case .success(.dictionary(let entries)) = libplist else { return "the four-field path read \(bytes), libplist: \(libplist)" }
        var fromFields: [String: PropertyListValue] = [:]
        for index in 0..<4 {
            if let value = fields.string(index) { fromFields[DocumentSource.keys[index]] = .string(value) }
        }
        guard exact(.dictionary(entries)) == exact(.dictionary(fromFields)) else {
            return "four-field path \(exact(.dictionary(fromFields))) vs libplist \(exact(.dictionary(entries)))"
        }
        // The value as DocumentSource keeps it, against one made from libplist's dictionary.
        guard let fast = try? DocumentSource(propertyList: bytes) else { return "DocumentSource refused \(bytes)" }
        var general = DocumentSource()
        general.dictionary = entries
        guard fast == general, general == fast, fast.identifier == general.identifier, fast.name == general.name,
              fast.path == general.path, fast.appInfoURL == general.appInfoURL, fast.otherKeys.isEmpty,
              fast.warnings.isEmpty, exact(.dictionary(fast.dictionary)) == exact(.dictionary(entries)),
              fast.withKnownFieldsUTF8({ _, _ in }), !general.withKnownFieldsUTF8({ _, _ in })
        else { return "DocumentSource's fields differ for \(bytes)" }
        var utf8: [[UInt8]?] = [nil, nil, nil, nil]
        _ = fast.withKnownFieldsUTF8 { index, bytes in utf8[index] = Array(bytes) }
        let strings = [general.identifier, general.name, general.path, general.appInfoURL]
        guard utf8 == strings.map({ $0.map { Array($0.utf8) } }) else { return "the fields' UTF-8 differ for \(bytes)" }
        return nil
    }

    /// `count` random binary plists from Python's plistlib (length-prefixed): dictionaries with
    /// the four fields (sometimes of the wrong type) and other keys of every type.
    static func randomPlists(count: Int, seed: Int) async throws -> [[UInt8]] {
        let script = """
            import datetime, plistlib, random, struct, sys
            rng = random.Random(int(sys.argv[1]))
            def text():
                alphabet = ["a", "Z", "/", " ", "é", "ü", "日本", "😀", "\\u0301", "x" * 40, "\\n", "\\"", "\\\\", "\\x7f", "\\u2028"]
                return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 6)))
            def scalar():
                k = rng.randrange(12)
                if k == 0: return text()
                if k == 1: return rng.choice([0, 1, -1, 255, 256, 65535, 65536, 2**31, 2**32, 2**63 - 1, -2**63, 2**63, 2**64 - 1, rng.randrange(-2**63, 2**64)])
                if k == 2: return rng.choice([0.0, -0.0, 1.5, -2.25, 1e300, 5e-324, float("inf"), float("-inf"), float("nan"), rng.uniform(-1e9, 1e9)])
                if k == 3: return rng.choice([True, False])
                if k == 4:
                    base = datetime.datetime(2001, 1, 1)
                    return base + datetime.timedelta(seconds=rng.choice([0, -1, 1.5, 0.25, 1e9, -3e10, 7e10, rng.uniform(-1e10, 1e10)]))
                if k == 5: return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 20)))
                if k == 6: return plistlib.UID(rng.choice([0, 1, 255, 256, 65535, 65536, 2**32 - 1]))
                return text()
            def value(depth):
                k = rng.randrange(10)
                if depth < 4 and k == 0: return [value(depth + 1) for _ in range(rng.randrange(0, 4))]
                if depth < 4 and k == 1: return {text() or "k": value(depth + 1) for _ in range(rng.randrange(0, 4))}
                return scalar()
            out = sys.stdout.buffer
            for i in range(int(sys.argv[2])):
                d = {}
                for key in ["identifier", "name", "path", "appInfoURL"]:
                    r = rng.random()
                    if r < 0.6: d[key] = text() or "x"
                    elif r < 0.7: d[key] = value(1)
                for _ in range(rng.randrange(0, 5)):
                    d[rng.choice(["other", "zeta", "a.b", "ü", "CF$UID", text() or "k"])] = value(1)
                root = d if rng.random() < 0.97 else value(0)
                try:
                    data = plistlib.dumps(root, fmt=plistlib.FMT_BINARY, sort_keys=rng.random() < 0.5)
                except (OverflowError, TypeError, ValueError):
                    continue
                out.write(struct.pack(">I", len(data)) + data)
            """
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scriptFile = folder.appendingPathComponent("gen.py")
        try script.write(to: scriptFile, atomically: true, encoding: .utf8)
        let result = try await run("/usr/bin/env", ["python3", scriptFile.path, String(seed), String(count)])
        try #require(result.status == 0, "\(result.stderr)")
        let bytes = result.output
        var plists: [[UInt8]] = []
        var at = 0
        while at + 4 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            plists.append(Array(bytes[at + 4..<at + 4 + length]))
            at += 4 + length
        }
        return plists
    }

    @Test("10 000 random property lists: the same value, fields, other keys, warnings and JSON")
    func randomValues() async throws {
        let plists = try await Self.randomPlists(count: 10_000, seed: 17)
        #expect(plists.count > 9_000)
        var differences: [String] = []
        var read = 0, taken = 0
        for plist in plists {
            if let difference = Self.difference(plist) { differences.append(difference) }
            if let difference = Self.knownFieldsDifference(plist, taken: &taken) { differences.append(difference) }
            if (try? BinaryPlistValidator.decode(plist)) != nil { read += 1 }
        }
        #expect(read > 8_000)
        // About one in eight has the four keys as strings alone (or some of them).
        #expect(taken > 500)
        #expect(differences.isEmpty, "\(differences.count) differ; first: \(differences.prefix(3))")
    }

    @Test("damaged property lists (random bytes changed, cut short): the same value or the same error")
    func damagedValues() async throws {
        let plists = try await Self.randomPlists(count: 2_000, seed: 71)
        var random = SystemRandomNumberGenerator()
        var differences: [String] = []
        var taken = 0
        for plist in plists {
            for _ in 0..<5 {
                var damaged = plist
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let at = Int.random(in: 8..<damaged.count, using: &random)
                    damaged[at] = Bool.random(using: &random) ? UInt8.random(in: 0...255, using: &random) : damaged[at] ^ 1 << UInt8.random(in: 0...7, using: &random)
                }
                if let difference = Self.difference(damaged) { differences.append(difference + " \(damaged)") }
                if let difference = Self.knownFieldsDifference(damaged, taken: &taken) { differences.append(difference) }
            }
            let cut = Array(plist.prefix(Int.random(in: 0..<plist.count, using: &random)))
            if let difference = Self.difference(cut) { differences.append(difference) }
            if let difference = Self.knownFieldsDifference(cut, taken: &taken) { differences.append(difference) }
        }
        #expect(differences.isEmpty, "\(differences.count) differ; first: \(differences.prefix(3))")
    }

    @Test("the fuzz corpus (Fuzz/plist/corpus), whole, cut short and with each byte flipped: the same value or error as libplist, and the four-field path the same value")
    func fuzzCorpusValues() throws {
        var differences: [String] = []
        var inputs = 0, taken = 0
        for path in fuzzCorpus {
            let seed = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            guard seed.starts(with: Array("bplist".utf8)) else { continue }
            var variants = [seed] + (0..<seed.count).map { Array(seed.prefix($0)) }
            for at in 8..<min(seed.count, 400) {
                var flipped = seed
                flipped[at] ^= 0xFF
                variants.append(flipped)
            }
            for variant in variants {
                inputs += 1
                if let difference = Self.difference(variant) { differences.append("\(path): \(difference)") }
                if let difference = Self.knownFieldsDifference(variant, taken: &taken) { differences.append("\(path): \(difference)") }
            }
        }
        #expect(inputs > 100)
        // valid-minimal and four-fields whole, and most of their flipped string bytes.
        #expect(taken > 50)
        #expect(differences.isEmpty, "\(differences.count) differ; first: \(differences.prefix(3))")
    }

    @Test("the four-field path declines what it does not read itself, and the value reads the same")
    func knownFieldsDecline() throws {
        func plist(key: [UInt8], value: [UInt8], countAsInteger: Bool = false) -> [UInt8] {
            var builder = BPlistBuilder()
            let keyIndex = builder.add(key), valueIndex = builder.add(value)
            let root = builder.add(countAsInteger ? [0xDF, 0x10, 1, UInt8(keyIndex), UInt8(valueIndex)]
                                                  : BPlistBuilder.dict([keyIndex], [valueIndex]))
            builder.root = UInt64(root)
            return builder.bytes
        }
        let name = BPlistBuilder.ascii("name"), value = BPlistBuilder.ascii("Working Copy")
        // Read by the four-field path: an ASCII key, an ASCII or UTF-16 string (a surrogate pair).
        let plain = plist(key: name, value: value)
        let utf16 = plist(key: name, value: BPlistBuilder.utf16([0x57, 0xD83C, 0xDF89]))
        #expect(BinaryPlistKnownFields.decode(plain)?.string(1) == "Working Copy")
        #expect(BinaryPlistKnownFields.decode(utf16)?.string(1) == "W🎉")
        // Declined, and read the general way: the key as UTF-16, the count as an integer
        // object, another key, a value of another type; refused both ways: a lone surrogate.
        let declined = [plist(key: BPlistBuilder.utf16([0x6E, 0x61, 0x6D, 0x65]), value: value),
                        plist(key: name, value: value, countAsInteger: true),
                        plist(key: BPlistBuilder.ascii("other"), value: value),
                        plist(key: name, value: [0x10, 5])]
        for bytes in declined {
            #expect(BinaryPlistKnownFields.decode(bytes) == nil)
            #expect(Self.difference(bytes) == nil)
            #expect((try? DocumentSource(propertyList: bytes)) != nil)
        }
        #expect(try DocumentSource(propertyList: declined[0]) == DocumentSource(propertyList: plain))
        let lone = plist(key: name, value: BPlistBuilder.utf16([0xD83C]))
        #expect(BinaryPlistKnownFields.decode(lone) == nil)
        #expect(throws: PropertyListError.self) { try DocumentSource(propertyList: lone) }
    }

    @Test("4-byte reals, 16-byte integers, UIDs and UTF-16 keys read alike")
    func handBuilt() throws {
        // {"r": float 1.5, "n": 16-byte 2^64-1, "u": UID 0x01020304, "ü": "é", "d": data}
        var builder = BPlistBuilder()
        let keys = [builder.add(BPlistBuilder.ascii("r")), builder.add(BPlistBuilder.ascii("n")),
                    builder.add(BPlistBuilder.ascii("u")), builder.add(BPlistBuilder.utf16([0xFC])),
                    builder.add(BPlistBuilder.ascii("d"))]
        let values = [builder.add([0x22, 0x3F, 0xC0, 0x00, 0x00]),
                      builder.add([0x14] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8)),
                      builder.add([0x83, 1, 2, 3, 4]),
                      builder.add(BPlistBuilder.utf16([0xE9])),
                      builder.add([0x43, 9, 8, 7])]
        let root = builder.add(BPlistBuilder.dict(keys, values))
        builder.root = UInt64(root)
        let bytes = builder.bytes
        #expect(Self.difference(bytes) == nil)
        let value = try BinaryPlistValidator.decode(bytes)
        #expect(value == .dictionary(["r": .real(1.5), "n": .unsignedInteger(.max), "u": .uid(0x01020304),
                                      "ü": .string("é"), "d": .data([9, 8, 7])]))
    }
}
