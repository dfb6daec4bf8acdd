import Testing
import XDSSystem

/// The writers the modules share from XDSSystem: ISO 8601 times and byte counts in words.
@Suite("Shared wording")
struct OneOfEachTests {
    @Test func iso8601WritesUTCWithTheFractionOnlyWhenThereIsOne() {
        #expect(CivilCalendar.iso8601(secondsSince1970: 1_605_184_046) == "2020-11-12T12:27:26Z")
        #expect(CivilCalendar.iso8601(secondsSince1970: 1_605_184_046, fraction: 185_000_000) == "2020-11-12T12:27:26.185Z")
        #expect(CivilCalendar.iso8601(secondsSince1970: 0, fraction: 120, fractionDigits: 6) == "1970-01-01T00:00:00.00012Z")
        // Before 1970 the seconds are floored and the fraction counts forward from them.
        #expect(CivilCalendar.iso8601(secondsSince1970: -1, fraction: 500_000_000) == "1969-12-31T23:59:59.5Z")
        #expect(CivilCalendar.iso8601(secondsSince1970: -62_135_596_800) == "0001-01-01T00:00:00Z")
        #expect(CivilCalendar.iso8601(secondsSince1970: 253_402_300_800) == "10000-01-01T00:00:00Z")
    }

    @Test func byteCountsUseTheLargestWholeBinaryUnit() {
        #expect(ByteCount.words(0) == "0 bytes")
        #expect(ByteCount.words(1) == "1 byte")
        #expect(ByteCount.words(1023) == "1023 bytes")
        #expect(ByteCount.words(64 << 10) == "64 KiB")
        #expect(ByteCount.words((1 << 20) + 1024) == "1025 KiB")
        #expect(ByteCount.words(8 << 20) == "8 MiB")
        #expect(ByteCount.words(Int64(3) << 30) == "3 GiB")
        #expect(ByteCount.words(Int64(2) << 40) == "2 TiB")
    }
}
