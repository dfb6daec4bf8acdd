#if os(Linux) && canImport(Glibc)
import Glibc
#endif

/// Prepares a freshly allocated multi-MB buffer, before its first write, so that filling it
/// costs fewer page faults (writing the ~4 MB inflated image of a 1024 px icon took ~1000
/// faults of 4 KiB, the largest single cost of a `xds mask` job): the 2 MiB-aligned middle is
/// advised for transparent huge pages (one fault then maps 2 MiB), and the unaligned head and
/// tail, under 4 MiB together, are prefaulted in one call each (`MADV_POPULATE_WRITE`,
/// Linux 5.14) instead of a trap per page. Only those ends are prefaulted so that a hostile
/// header announcing a huge image commits no more memory than its data actually fills.
///
/// Linux only, buffers of 2 MiB or more; elsewhere, or when the kernel declines (THP disabled,
/// older kernel), nothing happens and the buffer works the same: both are hints and their
/// failures are ignored.
@inline(__always)
func prepareLargeBuffer(_ base: UnsafeMutableRawPointer, count: Int) {
    #if os(Linux) && canImport(Glibc)
    let huge = 2 << 20, page = 4096
    guard count >= huge else { return }
    let address = Int(bitPattern: base)
    // Whole pages only: the partial pages at either end may hold other allocations.
    let pageStart = (address + page - 1) & ~(page - 1), pageEnd = (address + count) & ~(page - 1)
    let hugeStart = (address + huge - 1) & ~(huge - 1), hugeEnd = (address + count) & ~(huge - 1)
    if hugeEnd > hugeStart {
        advise(hugeStart, hugeEnd, MADV_HUGEPAGE)
        advise(pageStart, hugeStart, populateWrite)
        advise(hugeEnd, pageEnd, populateWrite)
    } else {
        advise(pageStart, pageEnd, populateWrite)  // no aligned 2 MiB inside: under 4 MiB
    }
    #endif
}

#if os(Linux) && canImport(Glibc)
/// `madvise` over `start ..< end` when not empty, ignoring failure (a hint).
@inline(__always)
private func advise(_ start: Int, _ end: Int, _ advice: Int32) {
    if end > start, let p = UnsafeMutableRawPointer(bitPattern: start) { _ = madvise(p, end - start, advice) }
}

/// `MADV_POPULATE_WRITE` (Linux 5.14), spelled out because older headers lack it; an older
/// kernel answers EINVAL, which is ignored.
private let populateWrite: Int32 = 23
#endif
