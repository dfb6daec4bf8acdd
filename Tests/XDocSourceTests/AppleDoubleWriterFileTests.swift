import Foundation
import XDSTestSupport
import Testing
@testable import XDocSource

/// `DocumentSourceFile.update(with:replace:sidecar:)` and `remove(sidecar:)` on real files.
@Suite("AppleDouble sidecar writes")
struct AppleDoubleWriterFileTests {
    func contents(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    @Test func setCreatesMergesAndKeepsTheRest() throws {
        let folder = TemporaryFolder()
        let path = folder.file("Report.pdf")
        let file = DocumentSourceFile(path: path)
        try file.update(with: DocumentSource(identifier: "a.b", name: "First"), sidecar: true)
        let created = try #require(contents(folder.path + "/._Report.pdf"))
        #expect(try AppleDouble(bytes: created).attributes.map(\.name) == ["x-document-source"])
        #expect(try file.read()?.store == .appleDouble)
        #expect(try rawAttribute(DocumentSourceFile.attributeName, on: path) == nil)

        // A full sidecar: the merge keeps other keys, the rest of the file is kept.
        let parts = AppleDoubleWriterTests.fullSidecar(reserved: 500)
        let sidecar = folder.write("._Report.pdf", bytes: parts.bytes())
        chmod(sidecar, 0o640)
        var existing = try #require(try file.read()).source
        try file.update(with: DocumentSource(path: "docs/r.pdf"), sidecar: true)
        existing.path = "docs/r.pdf"
        let found = try #require(try file.read())
        #expect(found.store == .appleDouble && found.source == existing)
        let afterBytes = try #require(contents(sidecar))
        let after = try #require(SidecarParts.parse(afterBytes))
        var expected = parts
        expected.attributes[1].1 = try existing.binaryPropertyList()
        #expect(after == expected)
        var info = stat()
        stat(sidecar, &info)
        #expect(info.st_mode & 0o7777 == 0o640)
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["._Report.pdf", "Report.pdf"])
    }

    @Test func removeClearsTheSidecarAndDeletesAnEmptyOne() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        let file = DocumentSourceFile(path: path)
        // The sidecar first: a value already in the native attribute would be updated there.
        try file.update(with: DocumentSource(identifier: "s.a", name: "Side"), sidecar: true)
        try file.write(DocumentSource(identifier: "n.a", name: "Native"))
        // Without --sidecar the sidecar stays and is reported.
        let first = try file.remove()
        #expect(first.removed == [.xattr] && first.remaining.map(\.store) == [.appleDouble])
        let second = try file.remove(sidecar: true)
        #expect(second.removed == [.appleDouble] && second.remaining.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/._a.txt"))
        #expect(try file.remove(sidecar: true).removed.isEmpty)

        // A sidecar with other things in it keeps them.
        let parts = AppleDoubleWriterTests.fullSidecar()
        let sidecar = folder.write("._a.txt", bytes: parts.bytes())
        #expect(try file.remove(sidecar: true).removed == [.appleDouble])
        var expected = parts
        expected.attributes.remove(at: 1)
        #expect(SidecarParts.parse(try #require(contents(sidecar))) == expected)
        #expect(try file.read() == nil)
    }

    static let corruptionNames = AppleDoubleTests.corruptionNames + ["entry id twice"]

    @Test(arguments: corruptionNames)
    func malformedSidecarsAreNeverRewritten(name: String) throws {
        let good = AppleDoubleTests.validSidecar()
        let bad: [UInt8]
        if name == "entry id twice" {
            bad = Array(good[0..<38]) + [0, 0, 0, 9] + Array(good[42...])  // two id-9 entries
        } else {
            bad = AppleDoubleTests.corruptions.first { $0.0 == name }!.1(good)
        }
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        let sidecar = folder.write("._a.txt", bytes: bad)
        let file = DocumentSourceFile(path: path)
        for replace in [false, true] {
            let error = #expect(throws: DocumentSourceFileError.self) {
                try file.update(with: DocumentSource(identifier: "x.y", name: "Z"), replace: replace, sidecar: true)
            }
            #expect(error?.kind == .malformedSidecar, "\(String(describing: error))")
            #expect(contents(sidecar) == bad)
        }
        let error = #expect(throws: DocumentSourceFileError.self) { try file.remove(sidecar: true) }
        #expect(error?.kind == .malformedSidecar)
        #expect(contents(sidecar) == bad)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 2)
    }

    @Test func aFIFOOrSymlinkNamedLikeASidecarIsNeverWritten() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        let file = DocumentSourceFile(path: path)
        #expect(mkfifo(folder.path + "/._a.txt", 0o644) == 0)
        let fifoError = #expect(throws: DocumentSourceFileError.self) {
            try file.update(with: DocumentSource(identifier: "x.y", name: "Z"), sidecar: true)
        }
        #expect(fifoError?.kind == .unsupportedFileType)
        #expect(try file.remove(sidecar: true).removed.isEmpty)  // not a sidecar: nothing there
        unlink(folder.path + "/._a.txt")

        let target = folder.write("target", bytes: AppleDoubleTests.validSidecar())
        symlink(target, folder.path + "/._a.txt")
        let linkError = #expect(throws: DocumentSourceFileError.self) {
            try file.update(with: DocumentSource(identifier: "x.y", name: "Z"), sidecar: true)
        }
        #expect(linkError?.kind == .unsupportedFileType)
        #expect(contents(target) == AppleDoubleTests.validSidecar())
        var info = stat()
        #expect(lstat(folder.path + "/._a.txt", &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
    }

    @Test func aMissingFileGetsNoSidecar() throws {
        let folder = TemporaryFolder()
        let error = #expect(throws: DocumentSourceFileError.self) {
            try DocumentSourceFile(path: folder.path + "/gone").update(
                with: DocumentSource(identifier: "x.y", name: "Z"), sidecar: true)
        }
        #expect(error?.kind == .notFound)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func aSymlinkedFileGetsTheSidecarOfItsTarget() throws {
        let folder = TemporaryFolder()
        _ = folder.folder("sub")
        let target = folder.file("sub/real.txt")
        symlink(target, folder.path + "/link")
        try DocumentSourceFile(path: folder.path + "/link").update(
            with: DocumentSource(identifier: "x.y", name: "Z"), sidecar: true)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/sub/._real.txt"))
        #expect(try DocumentSourceFile(path: target).read()?.store == .appleDouble)
    }
}
