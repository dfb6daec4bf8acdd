import Foundation
import Testing
import XDSProvenance
import XDSTestSupport
@testable import XDocSource
@testable import XDSWalk

/// `ProvenanceTree`: every mark under a folder, on real attributes, sidecars and zone files,
/// orphans under their own path; strip -r leaves nothing behind and everything else as it was.
@Suite struct ProvenanceTreeTests {
    func set(_ path: String, _ name: String, _ value: [UInt8]) {
        try! ExtendedAttributes.setValue(value, named: name, atPath: path, followSymlinks: true)
    }

    func contents(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    /// A tree with marks in every store, orphans, a link, an archive and unmarked files.
    func makeTree(_ folder: TemporaryFolder) -> String {
        let root = folder.folder("root")
        folder.folder("root/sub/deeper")
        set(folder.file("root/a.dmg"), "user.com.apple.quarantine", MarkBytes.exiftoolQuarantine)
        set(root + "/a.dmg", "user.mime_type", Array("x/y".utf8))
        set(folder.file("root/sub/b.txt"), "user.xdg.origin.url", Array("https://example.com/b.txt".utf8))
        set(root + "/sub", "user.xdg.referrer.url", Array("https://example.com/".utf8))
        folder.file("root/sub/deeper/c.pdf")
        folder.write("root/sub/deeper/._c.pdf", bytes: appleDoubleBytes(attributes: [
            ("com.apple.lastuseddate#PS", MarkBytes.exiftoolLastUsedDate), ("com.apple.FinderInfo-like", [1, 2, 3]),
        ]))
        folder.file("root/sub/deeper/d.exe")
        folder.write("root/sub/deeper/d.exe:Zone.Identifier", bytes: MarkBytes.zoneIdentifier)
        folder.write("root/._gone.txt", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", MarkBytes.exiftoolQuarantine)]))
        folder.write("root/gone.zip:Zone.Identifier", bytes: MarkBytes.zoneIdentifier)
        folder.file("root/plain.txt")
        folder.file("root/pack.zip", "not really a zip")
        try! FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: root + "/a.dmg")
        return root
    }

    func found(_ root: String, jobs: Int) -> [String] {
        var lines: [String] = []
        var problems: [String] = []
        ProvenanceTree(roots: [root], jobs: jobs).walk { event in
            switch event {
            case .found(let found):
                let path = String(found.path.lossyString.dropFirst(root.count))
                lines.append("\(path)\(found.isOrphan ? " (orphan)" : ""): " + found.marks.map { "\($0.kind) (\($0.store))" }.joined(separator: ", "))
            case .problem(let problem): problems.append(problem.message)
            case .progress: break
            }
            return .proceed
        }
        #expect(problems.isEmpty)
        return lines.sorted()
    }

    @Test(arguments: [1, 2])
    func everyMarkUnderAFolder(jobs: Int) {
        let folder = TemporaryFolder()
        let root = makeTree(folder)
        #expect(found(root, jobs: jobs) == [
            "/._gone.txt (orphan): quarantine (appledouble)",
            "/a.dmg: quarantine (xattr)",
            "/gone.zip:Zone.Identifier (orphan): zone-identifier (zone-file)",
            "/sub/b.txt: xdg (xattr)",
            "/sub/deeper/c.pdf: last-used-date (appledouble)",
            "/sub/deeper/d.exe: zone-identifier (zone-file)",
            "/sub: xdg (xattr)",
        ])
    }

    @Test func rootsThatAreFilesAndMarkedFolders() {
        let folder = TemporaryFolder()
        let root = makeTree(folder)
        set(root, "user.com.apple.provenance", [1, 2, 0, 0xD5])
        var found: [String] = []
        ProvenanceTree(roots: [root + "/a.dmg", root + "/sub/deeper/d.exe", root + "/link"]).walk { event in
            if case .found(let record) = event { found.append("\(record.path.lossyString.dropFirst(root.count)): \(record.marks.map(\.kind))") }
            return .proceed
        }
        // File roots (a link named as a root is followed), each with its zone file.
        #expect(found == ["/a.dmg: [quarantine]", "/sub/deeper/d.exe: [zone-identifier]", "/link: [quarantine]"])
        // The root folder's own mark comes with the rest.
        #expect(self.found(root, jobs: 1).contains(": macos-provenance (xattr)"))
    }

    @Test func archivesAreHandedOver() {
        let folder = TemporaryFolder()
        let root = makeTree(folder)
        var archives: [String] = []
        ProvenanceTree(roots: [root]).walk(archives: { path in
            archives.append(path.lossyString)
            return .proceed
        }) { _ in .proceed }
        #expect(archives == [root + "/pack.zip"])
    }

    @Test func dryRunChangesNothingAndStripLeavesNothing() throws {
        let folder = TemporaryFolder()
        let root = makeTree(folder)
        let listing = { try FileManager.default.subpathsOfDirectory(atPath: root).sorted() }
        let before = try listing()
        var wouldGo: [String] = []
        ProvenanceTree(roots: [root]).strip(Set(ProvenanceKind.allCases), dryRun: true) { event in
            if case .found(let stripped) = event {
                wouldGo += stripped.locations.map { "\(stripped.path.lossyString.dropFirst(root.count)): \($0.kind) (\($0.store))" }
            }
            return .proceed
        }
        #expect(wouldGo.count == 7)
        #expect(try listing() == before)
        #expect(found(root, jobs: 1).count == 7)

        var problems: [String] = []
        var stripped = 0
        ProvenanceTree(roots: [root], jobs: 2).strip(Set(ProvenanceKind.allCases), dryRun: false) { event in
            if case .found = event { stripped += 1 }
            if case .problem(let problem) = event { problems.append(problem.message) }
            return .proceed
        }
        #expect(problems.isEmpty && stripped == 7)
        #expect(found(root, jobs: 1).isEmpty)
        // What is not a mark stays: the other attribute, the sidecar's other entry (byte-exact),
        // the files; zone files and sidecars holding only marks are gone.
        #expect(try rawAttribute("user.mime_type", root + "/a.dmg") == Array("x/y".utf8))
        #expect(contents(root + "/sub/deeper/._c.pdf") == appleDoubleBytes(attributes: [("com.apple.FinderInfo-like", [1, 2, 3])]))
        #expect(try listing() == before.filter { !$0.hasSuffix(":Zone.Identifier") && $0 != "._gone.txt" })
    }

    /// The attribute `name` of the exact path `path` (not followed), or nil when it is not set.
    func rawAttribute(_ name: String, bytes path: [UInt8]) -> [UInt8]? {
        try? ExtendedAttributes.value(
            cName: Array(name.utf8CString), atCPath: path.map { CChar(bitPattern: $0) } + [0], follow: false)
    }

    func exists(bytes path: [UInt8]) -> Bool {
        var info = stat()
        return TreeWalker.withCName(path) { lstat($0, &info) } == 0
    }

    @Test func namesThatAreNotUTF8AreStrippedByTheirBytes() throws {
        let folder = TemporaryFolder()
        let root = folder.folder("odd")
        let odd: [UInt8] = [0x62, 0x61, 0x64, 0xFF, 0xFE]
        let rootBytes = Array((root + "/").utf8)
        // Marked under UTF-8 names, then renamed to bytes that are not UTF-8.
        let plain = folder.file("odd/plain")
        set(plain, "user.com.apple.quarantine", MarkBytes.exiftoolQuarantine)
        set(plain, "user.mime_type", Array("x/y".utf8))
        folder.write("odd/plain:Zone.Identifier", bytes: MarkBytes.zoneIdentifier)
        set(folder.folder("odd/dir"), "user.xdg.origin.url", Array("https://example.com/".utf8))
        for (from, to) in [("plain", odd), ("plain:Zone.Identifier", odd + Array(":Zone.Identifier".utf8)), ("dir", odd + Array("-dir".utf8))] {
            #expect(TreeWalker.withCName(rootBytes + to) { rename(root + "/" + from, $0) } == 0)
        }
        let file = rootBytes + odd, zone = rootBytes + odd + Array(":Zone.Identifier".utf8), dir = rootBytes + odd + Array("-dir".utf8)

        func strip(dryRun: Bool) -> (records: [String], problems: [String]) {
            var records: [String] = [], problems: [String] = []
            ProvenanceTree(roots: [root], jobs: 2).strip(Set(ProvenanceKind.allCases), dryRun: dryRun) { event in
                if case .found(let stripped) = event {
                    records.append("\(stripped.path.visible): " + stripped.locations.map { "\($0.kind) (\($0.store))" }.joined(separator: ", "))
                }
                if case .problem(let problem) = event { problems.append(problem.message) }
                return .proceed
            }
            return (records.sorted(), problems)
        }
        let expected = [
            "\(root)/bad\\x{ff}\\x{fe}-dir: xdg (xattr)",
            "\(root)/bad\\x{ff}\\x{fe}: quarantine (xattr), zone-identifier (zone-file)",
        ]
        let wouldGo = strip(dryRun: true)
        #expect(wouldGo.problems.isEmpty)
        #expect(wouldGo.records == expected)
        #expect(exists(bytes: zone) && rawAttribute("user.com.apple.quarantine", bytes: file) != nil)

        let went = strip(dryRun: false)
        #expect(went.problems.isEmpty)
        #expect(went.records == expected)
        #expect(found(root, jobs: 1).isEmpty)
        // The marks went from the very files; the other attribute stays.
        #expect(rawAttribute("user.com.apple.quarantine", bytes: file) == nil)
        #expect(rawAttribute("user.xdg.origin.url", bytes: dir) == nil)
        #expect(rawAttribute("user.mime_type", bytes: file) == Array("x/y".utf8))
        #expect(exists(bytes: file) && !exists(bytes: zone))
    }

    @Test func stripWaitsForTheWritersLock() async throws {
        let folder = TemporaryFolder()
        let root = folder.folder("locked")
        let file = folder.file("locked/a.dmg")
        set(file, "user.com.apple.quarantine", MarkBytes.exiftoolQuarantine)
        // Another writer (xds set, remove) holds the file's lock.
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0 && flock(fd, LOCK_EX) == 0)
        final class Count: @unchecked Sendable { var value = 0 }  // read after the strip ends
        let stripped = Count()
        // Holding the lock, waiting and letting go happen on a thread of their own, in one go:
        // a test task waiting for the pool must not hold the lock past strip's patience.
        let (waited, markWhileHeld) = try await offPool { () throws -> (Bool, [UInt8]?) in
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                ProvenanceTree(roots: [root]).strip([.quarantine], dryRun: false) { event in
                    if case .found = event { stripped.value += 1 }
                    return .proceed
                }
                done.signal()
            }
            // While it is held, strip -r waits: the mark is still there.
            let waited = done.wait(timeout: .now() + 0.5) == .timedOut
            let mark = try ExtendedAttributes.value(named: "user.com.apple.quarantine", atPath: file, followSymlinks: true)
            close(fd)
            done.wait()
            return (waited, mark)
        }
        #expect(waited)
        #expect(markWhileHeld != nil)
        #expect(stripped.value == 1)
        #expect(try rawAttribute("user.com.apple.quarantine", file) == nil)
    }

    func rawAttribute(_ name: String, _ path: String) throws -> [UInt8]? {
        try ExtendedAttributes.value(named: name, atPath: path, followSymlinks: true)
    }
}
