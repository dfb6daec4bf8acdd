import Foundation
import Testing
import XDSSystem
import XDSTestSupport

/// XDSSystem's `Lock`, the one lock of the Swift code (macOS 13 and Linux alike).
@Suite("Lock", .timeLimit(.minutes(3)))
struct LockTests {
    /// 8 threads each add 1 to the guarded value 20 000 times: none of the additions is lost
    /// (without the lock, the read-modify-write races lose some).
    @Test func guardedCounterLosesNoIncrement() async {
        let counter = Lock(0)
        let finished = Lock(0)
        for _ in 0..<8 {
            Thread {
                for _ in 0..<20_000 { counter.withLock { $0 += 1 } }
                finished.withLock { $0 += 1 }
            }.start()
        }
        while finished.withLock({ $0 }) < 8 { try? await Task.sleep(for: .milliseconds(1)) }
        #expect(counter.withLock { $0 } == 160_000)
    }

    /// A one-slot channel built on a `Lock<Void>` and two conditions (as TreeWorkPool does):
    /// the consumer gets the producer's 10 000 values in order, each once.
    @Test func conditionsHandOverEveryValueInOrder() async {
        final class Channel: @unchecked Sendable {
            let lock = Lock()
            lazy var filled = lock.makeCondition()
            lazy var emptied = lock.makeCondition()
            var slot: Int?  // guarded by lock
        }
        let channel = Channel()
        let (filled, emptied) = (channel.filled, channel.emptied)
        Thread {
            for value in 0..<10_000 {
                channel.lock.withLock {
                    while channel.slot != nil { emptied.wait() }
                    channel.slot = value
                    filled.signal()
                }
            }
        }.start()
        // The consumer waits on a condition: on a thread of its own, not one of the pool's.
        let received = await offPool {
            var received: [Int] = []
            for _ in 0..<10_000 {
                let value = channel.lock.withLock { () -> Int in
                    while channel.slot == nil { filled.wait() }
                    defer { channel.slot = nil; emptied.signal() }
                    return channel.slot!
                }
                received.append(value)
            }
            return received
        }
        #expect(received == Array(0..<10_000))
    }
}
