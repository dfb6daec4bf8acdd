import Testing
import XDSTestSupport
@testable import XDocSourceArchive

/// The disjoint ranges the zip reader keeps of the members it reads (issue 24: overlapping
/// entries are damage): held equal to a plain check against every range, in any order.
@Suite("Zip data ranges")
struct ZipDataRangesTests {
    private func add(_ ranges: inout ZipDataRanges, _ start: Int64, _ end: Int64) -> Bool {
        ranges.insert(start: start, end: end)
    }

    @Test func neighboursAndEdges() {
        var ranges = ZipDataRanges()
        #expect(add(&ranges, 100, 200))
        #expect(!add(&ranges, 100, 200))  // the same member again
        #expect(!add(&ranges, 150, 160))  // inside
        #expect(!add(&ranges, 50, 101))   // over the start
        #expect(!add(&ranges, 199, 300))  // over the end
        #expect(add(&ranges, 200, 300))   // touching is not overlapping
        #expect(add(&ranges, 0, 100))
        #expect(!add(&ranges, 0, Int64.max))
        #expect(ranges.count == 3)
    }

    /// Thousands of ranges in random order (several blocks), some overlapping: the answer of
    /// each insertion is the brute-force one.
    @Test(arguments: [1 as UInt64, 2, 3])
    func randomOrderMatchesBruteForce(_ seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var ranges = ZipDataRanges()
        var kept: [(Int64, Int64)] = []
        for _ in 0..<6_000 {
            let start = Int64(random.next() % 200_000)
            let end = start + 1 + Int64(random.next() % 60)
            let expected = !kept.contains { $0.0 < end && start < $0.1 }
            let added = ranges.insert(start: start, end: end)
            #expect(added == expected)
            if expected { kept.append((start, end)) }
        }
        #expect(ranges.count == kept.count)
        #expect(kept.count > 2_048, "too few kept to fill several blocks: \(kept.count)")
    }
}
