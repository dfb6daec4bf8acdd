import Foundation
import XDSTestSupport
import Testing
@testable import XDocSource

/// Writers of one file are serialised by `FileLock` (SPEC §2 "concurrent writers").
@Suite("Concurrent writers")
struct ConcurrentWriterTests {
    /// 8 threads, each merging its own key into one file, 50 rounds with a barrier between
    /// rounds: after every round each key holds that round's value. Each thread opens its own
    /// descriptor, so the flocks conflict as between processes. A reader thread running all
    /// the while never sees a malformed or missing value.
    @Test(arguments: ["file", "folder"])
    func eightWritersOfDifferentKeysAllKeepTheirs(kind: String) async throws {
        let folder = TemporaryFolder()
        let path = kind == "file" ? folder.file("shared.txt") : folder.folder("Shared.textbundle")
        let file = DocumentSourceFile(path: path)
        try file.write(DocumentSource(identifier: "com.example.base", name: "Base"))

        let stop = Flag()
        let readerProblems = Box<[String]>([])
        let reader = Thread {
            var reads = 0
            while !stop.value || reads == 0 {
                do {
                    guard let found = try file.read(), found.source.identifier == "com.example.base" else {
                        readerProblems.mutate { $0.append("read \(reads): no value or no identifier") }
                        continue
                    }
                } catch {
                    readerProblems.mutate { $0.append("read \(reads): \(error)") }
                }
                reads += 1
            }
        }
        reader.start()
        defer { stop.value = true }

        for round in 0..<50 {
            let failures = Box<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { writer in
                var change = DocumentSource()
                change.dictionary["com.example.writer\(writer)"] = .integer(Int64(round))
                do {
                    try DocumentSourceFile(path: path).update(with: change)
                } catch {
                    failures.mutate { $0.append("writer \(writer): \(error)") }
                }
            }
            #expect(failures.value.isEmpty, "round \(round): \(failures.value)")
            let value = try #require(try file.read()).source
            for writer in 0..<8 {
                #expect(value.dictionary["com.example.writer\(writer)"] == .integer(Int64(round)),
                        "round \(round): writer \(writer)'s key is \(String(describing: value.dictionary["com.example.writer\(writer)"]))")
            }
            #expect(value.identifier == "com.example.base" && value.name == "Base")
        }
        stop.value = true
        while !reader.isFinished { try await Task.sleep(for: .milliseconds(1)) }
        #expect(readerProblems.value.isEmpty, "\(readerProblems.value.prefix(3))")
    }

    /// Only regular files and folders are opened for the lock: a FIFO (which would block a
    /// plain open) and a link acted on itself are written without it, and never hang.
    @Test func onlyRegularFilesAndFoldersAreLocked() throws {
        let folder = TemporaryFolder()
        let regular = folder.file("a.txt")
        let sub = folder.folder("sub")
        let fifo = folder.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let link = folder.path + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: regular)
        #expect(FileLock.canLock(regular, followSymlinks: true))
        #expect(FileLock.canLock(sub, followSymlinks: true))
        #expect(FileLock.canLock(link, followSymlinks: true))
        #expect(!FileLock.canLock(link, followSymlinks: false))
        #expect(!FileLock.canLock(fifo, followSymlinks: true))
        #expect(!FileLock.canLock("/dev/null", followSymlinks: true))
        #expect(!FileLock.canLock(folder.path + "/missing", followSymlinks: true))
    }

    /// The lock is exclusive while held: a second taker waits until the first lets go, and
    /// the write it then makes is merged over the first writer's value.
    @Test func aWriterWaitsForTheHolder() async throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        try DocumentSourceFile(path: path).write(DocumentSource(identifier: "a.b", name: "N"))
        let started = Flag()
        let finished = Flag()
        let second = Thread {
            while !started.value { usleep(100) }
            var change = DocumentSource()
            change.dictionary["second"] = .boolean(true)
            _ = try? DocumentSourceFile(path: path).update(with: change)
            finished.value = true
        }
        second.start()
        try FileLock.holding(path, followSymlinks: true) { () throws(DocumentSourceFileError) in
            started.value = true
            usleep(200_000)
            // Still waiting for us: nothing written yet.
            #expect(!finished.value)
            var first = try DocumentSourceFile(path: path).read()!.source
            first.dictionary["first"] = .boolean(true)
            // Written without the library's writer, which would wait for this very lock.
            #expect((try? setRawAttribute(DocumentSourceFile.attributeName, first.binaryPropertyList(), on: path)) != nil)
        }
        while !finished.value { try await Task.sleep(for: .milliseconds(1)) }
        let value = try #require(try DocumentSourceFile(path: path).read()).source
        #expect(value.dictionary["first"] == .boolean(true))
        #expect(value.dictionary["second"] == .boolean(true))
    }
}

extension ConcurrentWriterTests {
    /// A holder that does not let go is not waited on forever: the taker gives up as busy.
    @Test func aLockHeldTooLongIsReportedBusy() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        guard case .locked(let held) = FileLock.acquire(path: path, followSymlinks: true) else {
            Issue.record("could not take the lock")
            return
        }
        defer { close(held) }
        let started = Date()
        guard case .busy = FileLock.acquire(path: path, followSymlinks: true, waitingAtMost: 0.3) else {
            Issue.record("a second taker got the lock while it was held")
            return
        }
        #expect(Date().timeIntervalSince(started) >= 0.3)
    }
}

/// A thread-safe flag for the tests above.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = false
    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// A thread-safe box for results gathered from several threads.
final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T { lock.withLock { stored } }
    func mutate(_ change: (inout T) -> Void) { lock.withLock { change(&stored) } }
}
