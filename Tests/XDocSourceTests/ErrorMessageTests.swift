import Foundation
import Testing
import XDSTestSupport
@testable import XDocSource
@testable import XDSWalk

/// Failures whose bare errno would mislead: the message must say what is really going on.
@Suite("Error messages that name the real cause")
struct ErrorMessageTests {
    @Test func danglingSymlinkIsNotCalledAMissingFile() throws {
        let folder = TemporaryFolder()
        let link = folder.path + "/link.txt"
        try FileManagerShim.symlink(link, to: "gone.txt")
        let file = DocumentSourceFile(path: link)
        let errors: [DocumentSourceFileError?] = [
            #expect(throws: DocumentSourceFileError.self) { _ = try file.read() },
            #expect(throws: DocumentSourceFileError.self) { try file.write(DocumentSource(identifier: "a.b", name: "N")) },
            #expect(throws: DocumentSourceFileError.self) { _ = try file.remove() },
        ]
        for error in errors {
            #expect(error?.kind == .notFound)
            #expect(error?.message == "is a symbolic link to a file or folder that does not exist")
        }
        // A path that is simply not there keeps the plain words.
        let missing = #expect(throws: DocumentSourceFileError.self) {
            _ = try DocumentSourceFile(path: folder.path + "/none.txt").read()
        }
        #expect(missing?.message == "no such file or folder")
    }

    /// `chattr +i` / `+a` make Linux refuse attribute changes with EPERM, even to root; a
    /// bare "operation not permitted" on one's own file is a puzzle. Needs root (chattr).
    @Test(.enabled(if: geteuid() == 0, "chattr needs root"), arguments: [("+i", "immutable (chattr +i)"), ("+a", "append-only (chattr +a)")])
    func lockedFileSaysWhy(flag: String, words: String) async throws {
        let folder = TemporaryFolder()
        let path = folder.file("locked.txt")
        let file = DocumentSourceFile(path: path)
        try file.write(DocumentSource(identifier: "a.b", name: "N"))
        let before = try file.readRawValue()
        let chattr = try await ProcessRunner.run("/usr/bin/chattr", [flag, path])
        try #require(chattr.status == 0, "this filesystem does not take chattr \(flag): \(chattr.stderr)")
        try await withCleanup { () async throws in
            let writeError = #expect(throws: DocumentSourceFileError.self) {
                try file.update(with: DocumentSource(path: "p"))
            }
            let removeError = #expect(throws: DocumentSourceFileError.self) { _ = try file.remove() }
            for error in [writeError, removeError] {
                #expect(error?.kind == .permissionDenied)
                #expect(error?.message == "operation not permitted: the file is \(words), so its attributes cannot change")
            }
            #expect(try file.readRawValue() == before)
        } cleanup: {
            _ = try? await ProcessRunner.run("/usr/bin/chattr", ["-i", "-a", path])
        }
    }
}

@Suite("Read errors in words")
struct ReadErrorWordsTests {
    /// ExtendedAttributes.value gives up with ERANGE after a value changed size eight times in
    /// a row (XattrReadLoopTests); that is no "too large" error.
    @Test func valueThatKeepsChangingIsNotCalledTooLarge() {
        let error = DocumentSourceFile(path: "a.txt").reading.readError(ExtendedAttributeFailure(code: ERANGE))
        #expect(error.kind == .ioError)
        #expect(error.description == "a.txt: the x-document-source value kept changing while it was read; try again")
        let big = DocumentSourceFile(path: "a.txt").reading.readError(ExtendedAttributeFailure(code: E2BIG))
        #expect(big.kind == .malformedValue)
    }
}
