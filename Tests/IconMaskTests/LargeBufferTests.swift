#if os(Linux) && canImport(Glibc)
import Glibc
import Testing
@testable import IconMask

/// `prepareLargeBuffer` prefaults only the unaligned ends of a big buffer (its 2 MiB-aligned
/// middle is left to huge-page faults), so it saves faults without committing memory a
/// hostile header merely announces.
@Suite("Large buffers")
struct LargeBufferTests {
    static let page = 4096, huge = 2 << 20

    /// Whether this kernel prefaults on request (`MADV_POPULATE_WRITE`, Linux 5.14); on older
    /// kernels `prepareLargeBuffer` is a no-op by design and the prefault checks do not apply.
    static let kernelPrefaults: Bool = {
        let p = mmap(nil, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
        defer { munmap(p, page) }
        return madvise(p, page, 23) == 0
    }()

    /// Pages of `count` bytes at `base` that are resident, per mincore(2).
    static func resident(_ base: UnsafeMutableRawPointer, _ count: Int) -> [Bool] {
        var vec = [UInt8](repeating: 0, count: (count + page - 1) / page)
        #expect(mincore(base, count, &vec) == 0)
        return vec.map { $0 & 1 == 1 }
    }

    /// Runs `body` on the 2 MiB-aligned start of a fresh anonymous mapping (no page resident yet).
    static func withMapping(_ size: Int, _ body: (UnsafeMutableRawPointer) -> Void) {
        let raw = mmap(nil, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
        defer { munmap(raw, size + huge) }
        let aligned = (Int(bitPattern: raw) + huge - 1) & ~(huge - 1)
        body(UnsafeMutableRawPointer(bitPattern: aligned)!)
    }

    @Test("the unaligned head and tail are prefaulted, the aligned middle is not",
          .enabled(if: kernelPrefaults, "the kernel lacks MADV_POPULATE_WRITE (Linux < 5.14)"))
    func endsOnly() {
        Self.withMapping(8 * Self.huge) { block in
            // Buffer from 1.5 MiB + 100 B to 5.5 MiB + 100 B: head up to 2 MiB, middle 2…4 MiB, tail 4…5.5 MiB.
            let start = block + (3 << 19) + 100, count = 4 * (1 << 20)
            Self.prepareAndCheck(block, start, count)
        }
    }

    static func prepareAndCheck(_ block: UnsafeMutableRawPointer, _ start: UnsafeMutableRawPointer, _ count: Int) {
        prepareLargeBuffer(start, count: count)
        let pages = resident(block, 8 * huge)
        let a = Int(bitPattern: block), s = Int(bitPattern: start)
        let firstWhole = (s - a + page - 1) / page, endWhole = (s - a + count) / page
        let hugeStart = ((s + huge - 1) & ~(huge - 1) - a) / page, hugeEnd = ((s + count) & ~(huge - 1) - a) / page
        #expect(pages[firstWhole..<hugeStart].allSatisfy { $0 }, "head prefaulted")
        #expect(pages[hugeEnd..<endWhole].allSatisfy { $0 }, "tail prefaulted")
        #expect(pages[hugeStart..<hugeEnd].allSatisfy { !$0 }, "aligned middle left to fault on write")
        #expect(!pages[firstWhole - 1] && !pages[endWhole], "partial pages at the ends untouched")
    }

    @Test("a buffer announced as 64 MiB commits under 4 MiB until written",
          .enabled(if: kernelPrefaults, "the kernel lacks MADV_POPULATE_WRITE (Linux < 5.14)"))
    func boundedCommit() {
        let size = 64 << 20
        Self.withMapping(size) { block in
            prepareLargeBuffer(block + 12_345, count: size - 20_000)
            let residentBytes = Self.resident(block, size).filter { $0 }.count * Self.page
            #expect(residentBytes > 0 && residentBytes < 4 << 20, "\(residentBytes) bytes resident")
        }
    }

    @Test("buffers under 2 MiB are left alone")
    func small() {
        Self.withMapping(2 * Self.huge) { block in
            prepareLargeBuffer(block + 100, count: Self.huge - 1000)
            #expect(Self.resident(block, Self.huge).allSatisfy { !$0 })
        }
    }
}
#endif
