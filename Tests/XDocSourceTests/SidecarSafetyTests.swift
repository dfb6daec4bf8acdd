import Foundation
import XDSTestSupport
import Testing
@testable import XDocSource

/// The sidecar reader opens nothing but regular files, and finds sidecars relative to their
/// folder (no realpath), so deep trees work too.
@Suite("Sidecar safety")
struct SidecarSafetyTests {
    func sidecarValue() throws -> [UInt8] {
        appleDoubleBytes(attributes: [("x-document-source", try sampleSource().binaryPropertyList())])
    }

    /// A FIFO named `._a.txt` with no writer would block a plain open forever; it is not
    /// opened at all and counts as no sidecar.
    @Test func aFIFONamedLikeASidecarIsNoSidecar() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        #expect(mkfifo(folder.path + "/._a.txt", 0o600) == 0)
        #expect(try DocumentSourceFile(path: path).read() == nil)
        #expect(try DocumentSourceFile(path: path).remove().remaining == [])
    }

    @Test func aSocketNamedLikeASidecarIsNoSidecar() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        let socketPath = folder.path + "/._a.txt"
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let fd = socket(AF_UNIX, stream, 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in socketPath.utf8.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        var info = stat()
        #expect(lstat(socketPath, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK)
        #expect(try DocumentSourceFile(path: path).read() == nil)
    }

    /// A symbolic link named `._a.txt` is not followed, whether to a device or to a valid
    /// AppleDouble file: macOS writes sidecars as plain files, and a link could lead anywhere.
    @Test(arguments: ["/dev/null", "/dev/zero", "real"])
    func aSymlinkNamedLikeASidecarIsNotFollowed(target: String) throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        let destination = target == "real" ? folder.write("elsewhere", bytes: try sidecarValue()) : target
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/._a.txt", withDestinationPath: destination)
        #expect(try DocumentSourceFile(path: path).read() == nil)
    }

    /// A tree whose absolute path is longer than PATH_MAX, reached through short symbolic links:
    /// the attribute calls work (the kernel resolves the links), realpath fails, and the
    /// sidecar is still found beside the file the links lead to.
    @Test func aSidecarDeeperThanPATH_MAXIsFound() throws {
        let folder = TemporaryFolder()
        let component = String(repeating: "d", count: 200)
        let chain = Array(repeating: component, count: 9).joined(separator: "/")  // 1 808 bytes
        var reach = folder.path  // a short path to the deepest folder made so far
        for level in 0..<3 {
            try FileManager.default.createDirectory(atPath: reach + "/" + chain, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: reach + "/l\(level)", withDestinationPath: chain)
            reach += "/l\(level)"
        }
        let path = reach + "/a.txt"
        _ = FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
        _ = FileManager.default.createFile(atPath: reach + "/._a.txt", contents: Data(try sidecarValue()))
        #expect(path.utf8.count < 200)
        #expect(realpath(path, nil) == nil && errno == ENAMETOOLONG)  // resolved, it is too long

        let found = try #require(try DocumentSourceFile(path: path).read())
        #expect(found.store == .appleDouble)
        #expect(found.source == sampleSource())
        #expect(found.location == reach + "/._a.txt")
        // A link to the deep file from a shallow folder: its sidecar is beside the target.
        let link = folder.path + "/shortcut"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(try DocumentSourceFile(path: link).read()?.source == sampleSource())
        #expect(try DocumentSourceFile(path: link, followSymlinks: false).read() == nil)
    }

    /// A relative link is read relative to the folder it sits in, not the current folder.
    @Test func aRelativeSymlinkChainLeadsToTheTargetsSidecar() throws {
        let folder = TemporaryFolder()
        _ = folder.folder("x/y")
        folder.file("x/y/t.txt")
        folder.write("x/y/._t.txt", bytes: try sidecarValue())
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/x/hop", withDestinationPath: "y/t.txt")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/start", withDestinationPath: "x/hop")
        let found = try #require(try DocumentSourceFile(path: folder.path + "/start").read())
        #expect(found.location == folder.path + "/x/y/._t.txt")
    }

    /// `remove` reports a sidecar that still holds a value after the native attribute is gone,
    /// and a FIFO reads and removes alike: no value, nothing removed, no error.
    @Test func removeReportsWhatRemains() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.txt")
        folder.write("._a.txt", bytes: try sidecarValue())
        try DocumentSourceFile(path: path).write(DocumentSource(identifier: "a.b", name: "N"))
        let removal = try DocumentSourceFile(path: path).remove()
        #expect(removal.removed == [.xattr])
        #expect(removal.remaining == [.init(store: .appleDouble, location: folder.path + "/._a.txt")])
        #expect(try DocumentSourceFile(path: path).read()?.store == .appleDouble)

        let fifo = folder.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(try DocumentSourceFile(path: fifo).read() == nil)
        #expect(try DocumentSourceFile(path: fifo).remove() == DocumentSourceRemoval(removed: []))
        // Writing is what Linux refuses: in words.
        let error = #expect(throws: DocumentSourceFileError.self) {
            try DocumentSourceFile(path: fifo).write(sampleSource())
        }
        #expect(error?.kind == .unsupportedFileType)
    }
}
