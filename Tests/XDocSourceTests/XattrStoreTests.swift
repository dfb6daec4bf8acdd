import Foundation
import XDSTestSupport
import Testing
@testable import XDocSource

@Suite("Native xattr store")
struct XattrStoreTests {
    @Test func writeThenReadRoundTripsEveryType() throws {
        let folder = TemporaryFolder()
        let file = DocumentSourceFile(path: folder.file("a.txt"))
        #expect(try file.read() == nil)
        try file.write(sampleSource())
        let found = try #require(try file.read())
        #expect(found.source == sampleSource())
        #expect(found.store == .xattr)
        #expect(found.location == "user.x-document-source")
        let raw = try #require(try file.readRawValue())
        #expect(raw.starts(with: Array("bplist00".utf8)))
    }

    @Test func updateMergesAndKeepsOtherKeys() throws {
        let folder = TemporaryFolder()
        let file = DocumentSourceFile(path: folder.file("a.txt"))
        try file.write(sampleSource())
        let written = try file.update(with: DocumentSource(path: "archive/report.pdf"))
        var expected = sampleSource()
        expected.path = "archive/report.pdf"
        #expect(written == expected)
        #expect(try file.read()?.source == expected)
    }

    @Test func updateWithReplaceDropsOtherKeys() throws {
        let folder = TemporaryFolder()
        let file = DocumentSourceFile(path: folder.file("a.txt"))
        try file.write(sampleSource())
        let only = DocumentSource(identifier: "com.example.editor", name: "Editor")
        try file.update(with: only, replace: true)
        #expect(try file.read()?.source == only)
    }

    @Test func updateNeedsIdentifierAndName() throws {
        let folder = TemporaryFolder()
        let file = DocumentSourceFile(path: folder.file("a.txt"))
        let error = #expect(throws: DocumentSourceFileError.self) {
            try file.update(with: DocumentSource(path: "x"))
        }
        #expect(error?.kind == .incompleteValue)
        #expect(error?.missingFields == ["identifier", "name"])
        #expect(try file.readRawValue() == nil)
        // A file that has them already needs neither.
        try file.write(DocumentSource(identifier: "a.b", name: "N"))
        try file.update(with: DocumentSource(path: "x"))
        #expect(try file.read()?.source.path == "x")
    }

    @Test func unicodePathsAndValues() throws {
        let folder = TemporaryFolder()
        let file = DocumentSourceFile(path: folder.file("Ünïcødé 文件 😀.txt"))
        let source = DocumentSource(identifier: "com.example.app", name: "Éditeur 文 😀", path: "dossier/été.txt")
        try file.write(source)
        #expect(try file.read()?.source == source)
    }

    @Test func foldersCarryIt() throws {
        let folder = TemporaryFolder()
        let bundle = DocumentSourceFile(path: folder.folder("Notes.textbundle"))
        try bundle.write(sampleSource())
        #expect(try bundle.read()?.source == sampleSource())
        #expect(try bundle.remove().removed == [.xattr])
        #expect(try bundle.read() == nil)
    }

    @Test func symlinksAreFollowedByDefault() throws {
        let folder = TemporaryFolder()
        let target = folder.file("target.txt")
        let link = folder.path + "/link.txt"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try DocumentSourceFile(path: link).write(sampleSource())
        #expect(try DocumentSourceFile(path: target).read()?.source == sampleSource())
    }

    @Test(arguments: ["write", "remove"])
    func noFollowOnASymlinkIsAClearError(operation: String) throws {
        let folder = TemporaryFolder()
        let target = folder.file("target.txt")
        let link = folder.path + "/link.txt"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let file = DocumentSourceFile(path: link, followSymlinks: false)
        let error = #expect(throws: DocumentSourceFileError.self) {
            switch operation {
            case "write": try file.write(sampleSource())
            default: try file.remove()
            }
        }
        #expect(error?.kind == .unsupportedFileType)
        #expect(error?.message.contains("symbolic link") == true)
        #expect(try DocumentSourceFile(path: target).readRawValue() == nil)
    }

    /// Linux lets no `user.` attribute sit on a symbolic link, and `lgetxattr` answers "no
    /// such attribute": reading the link itself finds none, even when its target has one.
    @Test func noFollowReadOfASymlinkIsAbsent() throws {
        let folder = TemporaryFolder()
        let target = folder.file("target.txt")
        let link = folder.path + "/link.txt"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try DocumentSourceFile(path: target).write(sampleSource())
        #expect(try DocumentSourceFile(path: link, followSymlinks: false).read() == nil)
        #expect(try DocumentSourceFile(path: link, followSymlinks: false).readRawValue() == nil)
        #expect(try DocumentSourceFile(path: link).read()?.source == sampleSource())
    }

    @Test func noFollowOnARegularFileWorks() throws {
        let folder = TemporaryFolder()
        let file = DocumentSourceFile(path: folder.file("a.txt"), followSymlinks: false)
        try file.write(sampleSource())
        #expect(try file.read()?.source == sampleSource())
    }

    @Test func missingFileIsNotFound() throws {
        let folder = TemporaryFolder()
        for operation in 0..<3 {
            let file = DocumentSourceFile(path: folder.path + "/missing.txt")
            let error = #expect(throws: DocumentSourceFileError.self) {
                switch operation {
                case 0: _ = try file.read()
                case 1: try file.write(sampleSource())
                default: try file.remove()
                }
            }
            #expect(error?.kind == .notFound)
            #expect(error?.message == "no such file or folder")
            #expect(error?.description == folder.path + "/missing.txt: no such file or folder")
        }
    }

    @Test func procRefusesUserAttributes() throws {
        for operation in 0..<2 {
            let file = DocumentSourceFile(path: "/proc/self/status")
            let error = #expect(throws: DocumentSourceFileError.self) {
                if operation == 0 { _ = try file.read() } else { try file.write(sampleSource()) }
            }
            #expect(error?.kind == .notSupported)
            #expect(error?.message == "the filesystem does not support extended attributes")
        }
    }

    @Test func malformedValueIsReportedAndNotOverwrittenByAMerge() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        let garbage = Array("bplist00 this is not a property list".utf8)
        try setRawAttribute("user.x-document-source", garbage, on: path)
        let file = DocumentSourceFile(path: path)
        let readError = #expect(throws: DocumentSourceFileError.self) { _ = try file.read() }
        #expect(readError?.kind == .malformedValue)
        #expect(readError?.message.hasPrefix("malformed x-document-source value: ") == true)
        let writeError = #expect(throws: DocumentSourceFileError.self) {
            try file.update(with: DocumentSource(identifier: "a.b", name: "N"))
        }
        #expect(writeError?.kind == .malformedValue)
        #expect(try rawAttribute("user.x-document-source", on: path) == garbage)
        // --replace does not need the old value, so it may overwrite it.
        try file.update(with: DocumentSource(identifier: "a.b", name: "N"), replace: true)
        #expect(try file.read()?.source == DocumentSource(identifier: "a.b", name: "N"))
    }

    @Test func tooLargeValuesAreRefusedBeforeWriting() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        let file = DocumentSourceFile(path: path)
        try file.write(DocumentSource(identifier: "a.b", name: "N"))
        let before = try file.readRawValue()
        // Over 64 KiB: refused by the library itself.
        var huge = DocumentSource(identifier: "a.b", name: "N")
        huge.dictionary["blob"] = .data([UInt8](repeating: 7, count: 70_000))
        let error = #expect(throws: DocumentSourceFileError.self) { try file.write(huge) }
        #expect(error?.kind == .tooLarge)
        // 8 KiB: more than ext4 fits next to an inode, less than 64 KiB (tmpfs takes it).
        var big = DocumentSource(identifier: "a.b", name: "N")
        big.dictionary["blob"] = .data([UInt8](repeating: 7, count: 8_000))
        do {
            try file.write(big)
            #expect(try file.read()?.source == big)
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(error.message == "the value is too large for this filesystem")
            #expect(try file.readRawValue() == before)
        }
    }

    @Test func removeReportsWhetherAnythingWasThere() throws {
        let folder = TemporaryFolder()
        let file = DocumentSourceFile(path: folder.file("a.txt"))
        #expect(try file.remove().removed == [])
        try file.write(sampleSource())
        #expect(try file.remove().removed == [.xattr])
        #expect(try file.readRawValue() == nil)
    }

    @Test func emptyValueIsMalformedNotAbsent() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        try setRawAttribute("user.x-document-source", [], on: path)
        let error = #expect(throws: DocumentSourceFileError.self) { _ = try DocumentSourceFile(path: path).read() }
        #expect(error?.kind == .malformedValue)
    }
}
