import Foundation
import Testing
import XDSSystem
import XDSTestSupport

/// AtomicFile's streamed write (a clean copy of an archive, larger than memory): written to the
/// descriptor, then renamed into place; discarded, nothing is left and the old file stays.
@Suite("AtomicFile: streamed writes")
struct AtomicFileStreamingTests {
    static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    @Test func streamedThenCommitted() throws {
        let tmp = TemporaryFolder()
        let path = tmp.path + "/out.tar"
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        var file = try AtomicFile.begin(path)
        let fd = try file.streamingDescriptor()
        #expect(try file.streamingDescriptor() == fd)
        Self.write(fd, "part one, ")
        // Nothing at the path changes until the commit.
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n")
        Self.write(fd, "part two\n")
        try file.commitStreamed()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "part one, part two\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path) == ["out.tar"])
    }

    @Test func streamedThenDiscarded() throws {
        let tmp = TemporaryFolder()
        let path = tmp.path + "/out.tar"
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        var file = try AtomicFile.begin(path)
        Self.write(try file.streamingDescriptor(), "half a copy")
        file.discard()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path) == ["out.tar"])
    }

    @Test func streamedInPlaceToADevice() throws {
        var file = try AtomicFile.begin("/dev/null")
        Self.write(try file.streamingDescriptor(), "gone")
        try file.commitStreamed()
    }
}
