import Foundation
import Testing
import XDSTestSupport
@testable import XDocSource

/// `DocumentSourceTree.walk(inspecting:)` on real trees with real extended attributes: the
/// inspector sees every attribute name of the one listing, the sidecars and zone files of each
/// entry, orphans under their own path, problems as events, the same records at any `jobs`.
@Suite("DocumentSourceTree walks with an inspector", .timeLimit(.minutes(2)))
struct TreeInspectorTests {
    /// What the test inspector saw of one entry (everything read on the worker thread).
    struct Seen: Sendable, Hashable, CustomStringConvertible {
        var path: String
        var isFolder: Bool
        var isOrphan: Bool
        /// Every listed name, in list order.
        var names: [String]
        /// Each listed name's value, read relative to the folder.
        var values: [String: [UInt8]]
        var sidecar: String?
        /// The attribute names inside the sidecar.
        var sidecarAttributes: [String]?
        var zoneFile: String?
        var zoneBytes: [UInt8]?
        var zoneSize: Int?

        var description: String {
            "\(path) folder=\(isFolder) orphan=\(isOrphan) names=\(names) sidecar=\(sidecar ?? "-") "
                + "\(sidecarAttributes ?? []) zone=\(zoneFile ?? "-") \(zoneBytes.map { String(decoding: $0, as: UTF8.self) } ?? "-")"
        }
    }

    /// Reads everything an entry offers; names a prefix of interest (nil: every name), knows
    /// `NAME:Zone.Identifier` (a caller's table: XDocSource spells no mark names), and throws
    /// for the entries `failing` names (by last component).
    struct Recorder: DocumentSourceTreeInspector {
        var prefixes: [String]? = nil
        var zoneFiles = true
        var failing: Set<String> = []
        /// Entries unlinked (relative to the folder descriptor) before their value is read.
        var vanishing: Set<String> = []

        func wantsAttribute(named name: UnsafeBufferPointer<UInt8>) -> Bool {
            guard let prefixes else { return true }
            return prefixes.contains { name.starts(with: $0.utf8) }
        }

        var companionSuffix: [UInt8]? { zoneFiles ? Array(":Zone.Identifier".utf8) : nil }

        func inspect(_ entry: DocumentSourceTree.InspectedEntry) throws(DocumentSourceFileError) -> Seen? {
            let last = String(decoding: entry.name, as: UTF8.self)
            if failing.contains(last) {
                throw DocumentSourceFileError(.malformedValue, path: entry.path.lossyString, message: "refused by the test")
            }
            if vanishing.contains(last) {
                _ = unlinkat(entry.folderDescriptor, last, 0)
            }
            var values: [String: [UInt8]] = [:]
            for name in entry.attributeNames {
                values[String(decoding: name, as: UTF8.self)] = try entry.value(ofAttribute: name)
            }
            let zone = try entry.readCompanion(upTo: 64, describedAs: "zone file")
            return Seen(
                path: entry.path.lossyString, isFolder: entry.isFolder, isOrphan: entry.isOrphan,
                names: entry.attributeNames.map { String(decoding: $0, as: UTF8.self) }, values: values,
                sidecar: entry.sidecar?.lossyString,
                sidecarAttributes: try entry.readSidecar()?.attributes.map(\.name),
                zoneFile: entry.companion?.lossyString, zoneBytes: zone?.bytes, zoneSize: zone?.fileSize)
        }
    }

    struct Outcome {
        var seen: [String: Seen] = [:]
        var order: [String] = []
        var problems: [DocumentSourceTree.Problem] = []
        var archives: [String] = []
        var counts = DocumentSourceTree.Counts()
        /// Paths inspected more than once (none, checked by ``walk(_:jobs:_:archives:)``).
        var twice: [String] = []
    }

    /// The walk (which waits for its worker threads) runs on a thread of its own, not on one
    /// of the pool's; what it saw is checked here, back on the test's task.
    func walk(_ roots: [String], jobs: Int = 1, _ inspector: Recorder = Recorder(), archives: Bool = false) async -> Outcome {
        let outcome = await offPool {
            var outcome = Outcome()
            let tree = DocumentSourceTree(roots: roots, jobs: jobs)
            let visit = { (event: DocumentSourceTree.InspectionEvent<Seen>) -> DocumentSourceTree.Decision in
                switch event {
                case .inspected(let seen):
                    if outcome.seen[seen.path] != nil { outcome.twice.append(seen.path) }
                    outcome.seen[seen.path] = seen
                    outcome.order.append(seen.path)
                case .problem(let problem): outcome.problems.append(problem)
                case .progress: break
                }
                return .proceed
            }
            outcome.counts = archives
                ? tree.walk(inspecting: inspector, archives: { outcome.archives.append($0.lossyString); return .proceed }, visit)
                : tree.walk(inspecting: inspector, visit)
            return outcome
        }
        #expect(outcome.twice.isEmpty, "inspected twice: \(outcome.twice)")
        return outcome
    }

    /// A tree with one of each case.
    func makeTree(_ tmp: TemporaryFolder) throws -> String {
        let root = tmp.folder("root")
        let marked = tmp.file("root/marked.txt")
        try setRawAttribute("user.xdg.origin.url", Array("https://example.com/a".utf8), on: marked)
        try setRawAttribute("user.mime_type", Array("text/plain".utf8), on: marked)
        try setRawAttribute("user.com.apple.quarantine", Array("0082;5fad2a2e;Safari;".utf8), on: marked)
        try setRawAttribute("user.mime_type", Array("text/plain".utf8), on: tmp.file("root/mime-only.txt"))
        tmp.file("root/plain.txt")
        tmp.file("root/side.txt")
        tmp.write("root/._side.txt", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", Array("0081;1;x;".utf8))]))
        tmp.file("root/zoned.txt")
        tmp.write("root/zoned.txt:Zone.Identifier", bytes: Array("[ZoneTransfer]\r\nZoneId=3\r\n".utf8))
        let sub = tmp.folder("root/sub")
        try setRawAttribute("user.xdg.origin.url", Array("https://example.com/sub".utf8), on: sub)
        tmp.write("root/sub:Zone.Identifier", bytes: Array("[ZoneTransfer]\r\nZoneId=2\r\n".utf8))
        tmp.file("root/sub/inner.txt")
        tmp.write("root/sub/._inner.txt", bytes: appleDoubleBytes(attributes: [("x-document-source", [1])]))
        // Orphans: a sidecar and a zone file whose NAME is gone, one whose NAME is a link.
        tmp.write("root/._gone.txt", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", Array("0001;2;y;".utf8))]))
        tmp.write("root/gone2.txt:Zone.Identifier", bytes: Array("[ZoneTransfer]\r\nZoneId=4\r\n".utf8))
        try FileManagerShim.symlink(root + "/link.txt", to: marked)
        tmp.write("root/link.txt:Zone.Identifier", bytes: Array("[ZoneTransfer]\r\nZoneId=1\r\n".utf8))
        // A folder named like a zone file is a folder (walked), a link so named nothing.
        let odd = tmp.folder("root/plain.txt:Zone.Identifier")
        try setRawAttribute("user.xdg.origin.url", Array("https://example.com/odd".utf8), on: tmp.file("root/plain.txt:Zone.Identifier/f"))
        _ = odd
        try FileManagerShim.symlink(root + "/side.txt:Zone.Identifier", to: root + "/zoned.txt:Zone.Identifier")
        return root
    }

    @Test func seesEveryNameSidecarAndZoneFile() async throws {
        let tmp = TemporaryFolder()
        let root = try makeTree(tmp)
        let outcome = await walk([root])
        #expect(outcome.problems.isEmpty, "\(outcome.problems)")
        // Nothing without a name, a sidecar or a zone file is handed over (plain.txt, the
        // folder of zone-file name, the root and sub/inner's folder are not).
        #expect(Set(outcome.seen.keys) == [
            root + "/marked.txt", root + "/mime-only.txt", root + "/side.txt", root + "/zoned.txt",
            root + "/sub", root + "/sub/inner.txt", root + "/._gone.txt", root + "/gone2.txt:Zone.Identifier",
            root + "/link.txt:Zone.Identifier", root + "/plain.txt:Zone.Identifier/f",
        ])
        let marked = try #require(outcome.seen[root + "/marked.txt"])
        #expect(Set(marked.names) == ["user.xdg.origin.url", "user.mime_type", "user.com.apple.quarantine"])
        #expect(marked.values["user.com.apple.quarantine"] == Array("0082;5fad2a2e;Safari;".utf8))
        #expect(marked.values["user.xdg.origin.url"] == Array("https://example.com/a".utf8))
        #expect(marked.sidecar == nil && marked.zoneFile == nil && !marked.isOrphan && !marked.isFolder)
        let side = try #require(outcome.seen[root + "/side.txt"])
        #expect(side.names.isEmpty)
        #expect(side.sidecar == root + "/._side.txt")
        #expect(side.sidecarAttributes == ["com.apple.quarantine"])
        // A link named like a zone file is not one.
        #expect(side.zoneFile == nil)
        let zoned = try #require(outcome.seen[root + "/zoned.txt"])
        #expect(zoned.zoneFile == root + "/zoned.txt:Zone.Identifier")
        #expect(zoned.zoneBytes == Array("[ZoneTransfer]\r\nZoneId=3\r\n".utf8))
        let sub = try #require(outcome.seen[root + "/sub"])
        #expect(sub.isFolder && sub.names == ["user.xdg.origin.url"])
        #expect(sub.values["user.xdg.origin.url"] == Array("https://example.com/sub".utf8))
        #expect(sub.zoneFile == root + "/sub:Zone.Identifier")
        #expect(outcome.seen[root + "/sub/inner.txt"]?.sidecarAttributes == ["x-document-source"])
        // Orphans under their own path.
        let gone = try #require(outcome.seen[root + "/._gone.txt"])
        #expect(gone.isOrphan && gone.sidecar == root + "/._gone.txt" && gone.sidecarAttributes == ["com.apple.quarantine"])
        let gone2 = try #require(outcome.seen[root + "/gone2.txt:Zone.Identifier"])
        #expect(gone2.isOrphan && gone2.zoneFile == gone2.path && gone2.zoneBytes == Array("[ZoneTransfer]\r\nZoneId=4\r\n".utf8))
        #expect(outcome.seen[root + "/link.txt:Zone.Identifier"]?.isOrphan == true)
        // Orphans come after the files of their folder, in name order.
        let orphans = outcome.order.filter { outcome.seen[$0]!.isOrphan }
        #expect(orphans == [root + "/._gone.txt", root + "/gone2.txt:Zone.Identifier", root + "/link.txt:Zone.Identifier"])
        // Zone files and sidecars are not documents: marked, mime-only, plain, side, zoned,
        // sub/inner, the odd folder's f. Folders: root, sub, the odd folder.
        #expect(outcome.counts.files == 7)
        #expect(outcome.counts.folders == 3)
        #expect(outcome.counts.tagged == outcome.seen.count)
    }

    @Test func thePrefilterKeepsUnrelatedNamesFromTheInspector() async throws {
        let tmp = TemporaryFolder()
        let root = try makeTree(tmp)
        let outcome = await walk([root], Recorder(prefixes: ["user.xdg.", "user.com.apple."]))
        #expect(outcome.seen[root + "/mime-only.txt"] == nil)
        // An entry with a wanted name still gets every name of the list.
        #expect(Set(outcome.seen[root + "/marked.txt"]?.names ?? []) == ["user.xdg.origin.url", "user.mime_type", "user.com.apple.quarantine"])
        // A sidecar or zone file is handed over whatever the names.
        #expect(outcome.seen[root + "/side.txt"] != nil && outcome.seen[root + "/zoned.txt"] != nil)
    }

    @Test func withoutZoneFileNamesTheyAreOrdinaryFiles() async throws {
        let tmp = TemporaryFolder()
        let root = try makeTree(tmp)
        let outcome = await walk([root], Recorder(zoneFiles: false))
        #expect(outcome.seen[root + "/zoned.txt"] == nil)
        #expect(outcome.seen[root + "/gone2.txt:Zone.Identifier"] == nil)
        // The four zone files are counted as files then, as show -r counts them.
        #expect(outcome.counts.files == 11)
        var builtIn = DocumentSourceTree.Counts()
        builtIn = DocumentSourceTree(roots: [root]).walk { _ in .proceed }
        #expect(builtIn.files == 11)
    }

    @Test func aRootIsInspectedWithItsSidecarAndZoneFile() async throws {
        let tmp = TemporaryFolder()
        let file = tmp.file("lone.txt")
        try setRawAttribute("user.xdg.referrer.url", Array("https://example.com/".utf8), on: file)
        tmp.write("._lone.txt", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", Array("0001;2;z;".utf8))]))
        tmp.write("lone.txt:Zone.Identifier", bytes: Array("[ZoneTransfer]\r\nZoneId=3\r\n".utf8))
        let folder = tmp.folder("dir")
        tmp.write("dir:Zone.Identifier", bytes: Array("[ZoneTransfer]\r\n".utf8))
        let outcome = await walk([file, folder])
        #expect(outcome.problems.isEmpty, "\(outcome.problems)")
        let lone = try #require(outcome.seen[file])
        #expect(lone.names == ["user.xdg.referrer.url"])
        #expect(lone.values["user.xdg.referrer.url"] == Array("https://example.com/".utf8))
        #expect(lone.sidecar == tmp.path + "/._lone.txt" && lone.sidecarAttributes == ["com.apple.quarantine"])
        #expect(lone.zoneFile == tmp.path + "/lone.txt:Zone.Identifier" && lone.zoneSize == 26)
        let dir = try #require(outcome.seen[folder])
        #expect(dir.isFolder && dir.names.isEmpty && dir.zoneBytes == Array("[ZoneTransfer]\r\n".utf8))
    }

    @Test(arguments: [2, 4]) func severalThreadsFindTheSameRecords(jobs: Int) async throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("big")
        // 40 folders of 25 files: every third file marked, every fifth with a zone file, every
        // seventh with a sidecar, every eleventh zone file an orphan.
        for f in 0..<40 {
            let folder = tmp.folder("big/d\(f % 8)/f\(f)")
            try setRawAttribute("user.xdg.origin.url", Array("https://example.com/\(f)".utf8), on: folder)
            for i in 0..<25 {
                let name = "\(folder)/e\(i).txt"
                _ = FileManager.default.createFile(atPath: name, contents: Data("x".utf8))
                if i % 3 == 0 { try setRawAttribute("user.xdg.origin.url", Array("https://example.com/\(f)/\(i)".utf8), on: name) }
                if i % 5 == 0 { _ = FileManager.default.createFile(atPath: name + ":Zone.Identifier", contents: Data("[ZoneTransfer]\n".utf8)) }
                if i % 7 == 0 {
                    _ = FileManager.default.createFile(
                        atPath: "\(folder)/._e\(i).txt", contents: Data(appleDoubleBytes(attributes: [("com.apple.quarantine", [0x30])])))
                }
                if i % 11 == 0 { _ = FileManager.default.createFile(atPath: "\(folder)/o\(i):Zone.Identifier", contents: Data()) }
            }
        }
        let one = await walk([root], jobs: 1, archives: true)
        let many = await walk([root], jobs: jobs, archives: true)
        #expect(one.problems.isEmpty && many.problems.isEmpty)
        // Per folder: itself, the 14 files with a mark, zone file or sidecar, 3 orphans.
        #expect(one.seen.count == 40 * 18)
        #expect(Set(one.seen.values) == Set(many.seen.values))
        #expect(one.counts == many.counts)
        #expect(one.counts.files == 40 * 25)
    }

    @Test func problemsAreEventsAndTheWalkGoesOn() async throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("p")
        for name in ["a", "bad", "c", "gone"] {
            try setRawAttribute("user.xdg.origin.url", Array("https://example.com/\(name)".utf8), on: tmp.file("p/\(name)"))
        }
        for jobs in [1, 3] {
            let outcome = await walk([root], jobs: jobs, Recorder(failing: ["bad"], vanishing: ["gone"]))
            #expect(Set(outcome.seen.keys) == [root + "/a", root + "/c"])
            let byPath = Dictionary(uniqueKeysWithValues: outcome.problems.map { ($0.path.lossyString, $0) })
            #expect(byPath[root + "/bad"]?.kind == .failed)
            #expect(byPath[root + "/bad"]?.message == "refused by the test")
            #expect(byPath[root + "/bad"]?.error?.kind == .malformedValue)
            // Not an x-document-source value that remove -r would clear.
            #expect(byPath[root + "/bad"]?.isRemovableValue == false)
            // Unlinked through the folder descriptor before its value was read: vanished.
            #expect(byPath[root + "/gone"]?.kind == .vanished)
            #expect(outcome.counts.problems == 2)
            tmp.file("p/gone")
            try setRawAttribute("user.xdg.origin.url", [0x41], on: root + "/gone")
        }
    }

    @Test func manyNamesBeyondTheFirstBuffer() async throws {
        // tmpfs (/dev/shm) takes a long list; ext4 keeps names and values in one block.
        let tmp = await TemporaryFolder.withBigValues()
        try #require(tmp.takesBigValues, "no filesystem here takes a list of names past 4 KiB")
        _ = tmp.folder("many")
        let file = tmp.file("many/names.txt")
        // 60 names of 80 bytes: a list of about 4.9 KB, past the walk's first 4 KiB buffer.
        var expected: [String] = []
        for i in 0..<60 {
            let name = "user." + String(repeating: "n", count: 72) + String(format: "%03d", i)
            do {
                try setRawAttribute(name, [UInt8(i)], on: file)
            } catch {
                break  // a filesystem with less room for names (ext4's one block): what fits
            }
            expected.append(name)
        }
        let outcome = await walk([tmp.path + "/many"])
        let seen = try #require(outcome.seen[file])
        #expect(expected.count * 81 > 4096, "the filesystem kept too few names to test the second listing")
        #expect(Set(seen.names) == Set(expected))
        #expect(seen.values[expected.last!] == [UInt8(expected.count - 1)])
    }

    @Test func stopEndsTheWalkAtAnyJobs() throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("s")
        for i in 0..<10 { _ = tmp.folder("s/d\(i)") }
        for i in 0..<200 {
            try setRawAttribute("user.xdg.origin.url", [0x41], on: tmp.file("s/d\(i % 10)/f\(i)"))
        }
        for jobs in [1, 2] {
            var records = 0
            DocumentSourceTree(roots: [root], jobs: jobs).walk(inspecting: Recorder()) { event in
                if case .inspected = event { records += 1 }
                return records == 3 ? .stop : .proceed
            }
            #expect(records == 3)
        }
    }

    @Test func deepTreesPastTheWindowOfOpenFolders() async throws {
        // 100 levels: folders past the walk's window of 32 open ones are closed and opened
        // again; every level's file is inspected with its folder open (its zone file and
        // sidecar read relative to it).
        let tmp = TemporaryFolder()
        var relative = "deep"
        _ = tmp.folder(relative)
        for level in 0..<100 {
            relative += "/l\(level)"
            _ = tmp.folder(relative)
            tmp.write(relative + "/f:Zone.Identifier", bytes: Array("ZoneId=\(level)".utf8))
            tmp.write(relative + "/._f", bytes: appleDoubleBytes(attributes: [("com.apple.quarantine", [UInt8(level)])]))
            try setRawAttribute("user.xdg.origin.url", [UInt8(level)], on: tmp.file(relative + "/f"))
        }
        for jobs in [1, 2] {
            let outcome = await walk([tmp.path + "/deep"], jobs: jobs)
            #expect(outcome.problems.isEmpty, "\(outcome.problems)")
            #expect(outcome.seen.count == 100)
            var path = tmp.path + "/deep"
            for level in 0..<100 {
                path += "/l\(level)"
                let seen = outcome.seen[path + "/f"]
                #expect(seen?.zoneBytes == Array("ZoneId=\(level)".utf8))
                #expect(seen?.sidecarAttributes == ["com.apple.quarantine"])
                #expect(seen?.values["user.xdg.origin.url"] == [UInt8(level)])
            }
            #expect(outcome.counts.files == 100 && outcome.counts.folders == 101)
        }
    }

    @Test func archivesAreHandedOverByName() async throws {
        let tmp = TemporaryFolder()
        let root = tmp.folder("a")
        tmp.file("a/x.zip")
        tmp.file("a/y.tar.gz")
        tmp.file("a/z.txt")
        try setRawAttribute("user.xdg.origin.url", [0x41], on: root + "/x.zip")
        let outcome = await walk([root], archives: true)
        #expect(Set(outcome.archives) == [root + "/x.zip", root + "/y.tar.gz"])
        #expect(Set(outcome.seen.keys) == [root + "/x.zip"])
    }
}
