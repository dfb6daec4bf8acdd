/// The byte ranges of the zip members read so far, kept disjoint: a member whose range meets
/// one already read is refused (a zip bomb points thousands of entries at one member's data).
///
/// Only members whose data is read are kept (`._NAME` entries, `info.json`), 16 bytes each.
/// The ranges are sorted blocks of at most 1 024: a central directory lists members in any
/// order, and a plain sorted array would move half its contents at each insertion (quadratic
/// over a hostile directory); here an insertion costs a binary search and a move within one
/// block, and the usual order (ascending offsets) appends.
struct ZipDataRanges {
    private struct Span {
        let start: Int64
        let end: Int64
    }

    /// Sorted by start, disjoint, none empty; every block but the last non-empty.
    private var blocks: [[Span]] = []
    private static let blockSize = 1_024

    /// The number of ranges kept.
    private(set) var count = 0

    /// Adds `start..<end` (not empty) when it meets none of the ranges kept; false (and
    /// nothing added) when it does.
    mutating func insert(start: Int64, end: Int64) -> Bool {
        precondition(start < end, "an empty range")
        let span = Span(start: start, end: end)
        guard !blocks.isEmpty else {
            blocks = [[span]]
            count = 1
            return true
        }
        // The last block whose first range starts at or before `start` (else the first).
        var low = 0, high = blocks.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if blocks[middle][0].start <= start { low = middle } else { high = middle - 1 }
        }
        let block = low
        // In it, the first range that starts after `start`.
        var first = 0, last = blocks[block].count
        while first < last {
            let middle = (first + last) / 2
            if blocks[block][middle].start <= start { first = middle + 1 } else { last = middle }
        }
        let position = first
        // The ranges are disjoint and sorted, so only the neighbours can meet the new one. With
        // position 0 the block is the first (any later one starts at or before `start`).
        if position > 0, blocks[block][position - 1].end > start { return false }
        let next = position < blocks[block].count ? blocks[block][position]
            : block + 1 < blocks.count ? blocks[block + 1][0] : nil
        if let next, next.start < end { return false }
        blocks[block].insert(span, at: position)
        count += 1
        if blocks[block].count > Self.blockSize {
            let upper = Array(blocks[block][(Self.blockSize / 2)...])
            blocks[block].removeLast(upper.count)
            blocks.insert(upper, at: block + 1)
        }
        return true
    }
}
