import Foundation
import Testing
@testable import XDocSource
@testable import XDSWalk

/// The read loop of `ExtendedAttributes.value`, driven by a fake `getxattr`.
@Suite("Xattr read loop")
struct XattrReadLoopTests {
    /// A scripted getxattr: each step answers one call (a size, or -1 with an errno).
    final class Script: @unchecked Sendable {
        var steps: [(result: Int, errno: Int32, fill: UInt8)]
        var calls: [Int] = []  // the buffer size asked for
        init(_ steps: [(Int, Int32, UInt8)]) { self.steps = steps.map { ($0.0, $0.1, $0.2) } }

        func get(_: String, _: String, _ buffer: UnsafeMutableRawPointer?, _ size: Int, _: Bool) -> Int {
            calls.append(size)
            let step = steps.removeFirst()
            if step.result < 0 {
                errno = step.errno
                return -1
            }
            if let buffer { memset(buffer, Int32(step.fill), step.result) }
            return step.result
        }
    }

    func read(_ script: Script) throws(ExtendedAttributeFailure) -> [UInt8]? {
        try ExtendedAttributes.value(named: "user.x", atPath: "/nowhere", followSymlinks: true, get: script.get)
    }

    /// What the first read asks for (``ExtendedAttributes/firstReadSize``).
    let first = ExtendedAttributes.firstReadSize

    @Test func readsAShortValueInOneCall() throws {
        let script = Script([(3, 0, 7)])
        #expect(try read(script) == [7, 7, 7])
        #expect(script.calls == [first])
    }

    @Test func probesThenReadsALongerValue() throws {
        let script = Script([(-1, ERANGE, 0), (5000, 0, 0), (5000, 0, 7)])
        #expect(try read(script) == [UInt8](repeating: 7, count: 5000))
        #expect(script.calls == [first, 0, 5000])
    }

    @Test func retriesWhenTheValueGrewBetweenProbeAndRead() throws {
        let script = Script([(-1, ERANGE, 0), (5000, 0, 0), (-1, ERANGE, 0), (6000, 0, 0), (6000, 0, 9)])
        #expect(try read(script) == [UInt8](repeating: 9, count: 6000))
        #expect(script.calls == [first, 0, 5000, 0, 6000])
    }

    @Test func retriesOnEINTR() throws {
        #expect(try read(Script([(-1, EINTR, 0), (2, 0, 1)])) == [1, 1])
        let long = Script([(-1, ERANGE, 0), (-1, EINTR, 0), (5000, 0, 0), (-1, EINTR, 0), (5000, 0, 1)])
        #expect(try read(long) == [UInt8](repeating: 1, count: 5000))
    }

    @Test func refusesValuesOver64KiBBeforeAllocating() throws {
        let script = Script([(-1, ERANGE, 0), (70_000, 0, 0)])
        let error = #expect(throws: ExtendedAttributeFailure.self) { try read(script) }
        #expect(error?.code == E2BIG)
        #expect(script.calls == [first, 0])
    }

    @Test func missingIsNilAndOtherErrorsThrow() throws {
        #expect(try read(Script([(-1, ENODATA, 0)])) == nil)
        #expect(try read(Script([(-1, ERANGE, 0), (5000, 0, 0), (-1, ENODATA, 0)])) == nil)  // removed meanwhile
        let error = #expect(throws: ExtendedAttributeFailure.self) { try read(Script([(-1, EACCES, 0)])) }
        #expect(error?.code == EACCES)
    }

    @Test func givesUpOnAValueThatKeepsGrowing() throws {
        let script = Script([(-1, ERANGE, 0)] + Array(repeating: [(5000, 0, 0), (-1, ERANGE, 0)], count: 8).flatMap { $0 })
        let error = #expect(throws: ExtendedAttributeFailure.self) { try read(script) }
        #expect(error?.code == ERANGE)
    }
}
