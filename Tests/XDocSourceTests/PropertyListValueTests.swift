import Testing
@testable import XDocSource

@Suite("PropertyList round trips")
struct PropertyListRoundTripTests {
    @Test("every value type survives encode then decode", arguments: everyTypeSample.keys.sorted())
    func roundTripsEachType(key: String) throws {
        let value = everyTypeSample[key]!
        let bytes = try PropertyList.encodeBinary(.dictionary([key: value]))
        #expect(Array(bytes.prefix(8)) == Array("bplist00".utf8))
        #expect(try PropertyList.decode(bytes) == .dictionary([key: value]))
    }

    @Test("a whole nested dictionary of every type survives")
    func roundTripsEverything() throws {
        let bytes = try PropertyList.encodeBinary(.dictionary(everyTypeSample))
        #expect(try PropertyList.decode(bytes) == .dictionary(everyTypeSample))
    }

    @Test("encoding is deterministic: equal values give equal bytes")
    func deterministic() throws {
        let a = try PropertyList.encodeBinary(.dictionary(everyTypeSample))
        let b = try PropertyList.encodeBinary(.dictionary(everyTypeSample))
        #expect(a == b)
    }
}
