import Foundation
import Testing
import XDSTestSupport

/// `xds set` keeps a value in the store it is found in (SPEC §2): never a second copy.
@Suite("set: the store a value is found in, --store for a new value")
struct SambaStoreCLITests {
    static let stream = "user.DosStream.x-document-source:$DATA"

    @Test("a Samba stream value is updated in the stream, with one trailing NUL; no native copy appears")
    func sambaStreamStaysAStream() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("notes.md")
        let value = try await plistlib(#"{"identifier": "com.example.a", "name": "A", "other": "kept"}"#)
        try await folder.setAttribute(file, value + [0], name: Self.stream)
        let set = try await xds("set", "notes.md", "--path", "moved/notes.md", in: folder.path)
        #expect(set.status == 0 && set.stderr.isEmpty, "\(set)")
        #expect(try await folder.attribute(file) == nil, "no second copy in user.x-document-source")
        let raw = try #require(try await folder.attribute(file, name: Self.stream))
        #expect(raw.last == 0)
        let parsed = try await pythonReading(raw.dropLast(), """
            import plistlib, sys
            d = plistlib.loads(sys.stdin.buffer.read()); print(d['path'], d['other'], d['name'])
            """, in: folder.path)
        #expect(parsed.stdout == "moved/notes.md kept A\n", "\(parsed)")
        let show = try await xds("show", "--json", "notes.md", in: folder.path)
        #expect(show.stdout.contains(#""store":"samba-stream""#))
        // The form without :$DATA (store_stream_type = no) keeps its own name.
        let other = folder.file("other.md")
        try await folder.setAttribute(other, value + [0], name: "user.DosStream.x-document-source")
        #expect(try await xds("set", "other.md", "--path", "p", in: folder.path).status == 0)
        let otherValue = try await folder.attribute(other), otherStream = try await folder.attribute(other, name: Self.stream)
        #expect(otherValue == nil && otherStream == nil)
        #expect(try await folder.attribute(other, name: "user.DosStream.x-document-source")?.last == 0)
    }

    @Test("a sidecar value is updated in the sidecar without --sidecar; no native copy appears")
    func sidecarStaysASidecar() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("a.txt")
        let value = try await plistlib(#"{"identifier": "com.example.a", "name": "A"}"#)
        try Data(appleDoubleBytes(attributes: [("x-document-source", value)])).write(to: URL(fileURLWithPath: folder.path + "/._a.txt"))
        let set = try await xds("set", "a.txt", "--path", "p/a.txt", in: folder.path)
        #expect(set.status == 0, "\(set)")
        #expect(try await folder.attribute(file) == nil)
        let show = try await xds("show", "--json", "a.txt", in: folder.path)
        #expect(show.stdout.contains(#""path":"p/a.txt""#) && show.stdout.contains(#""store":"appledouble""#), "\(show)")
    }

    @Test("--store samba-stream writes a new value as streams_xattr does; --store and --sidecar are checked")
    func storeOption() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("n.md")
        let set = try await xds("set", "n.md", "--store", "samba-stream", "--id", "com.example.a", "--name", "A", in: folder.path)
        #expect(set.status == 0, "\(set)")
        #expect(try await folder.attribute(file) == nil)
        let raw = try #require(try await folder.attribute(file, name: Self.stream))
        #expect(raw.starts(with: Data("bplist00".utf8)) && raw.last == 0)
        #expect(try await xds("show", "--json", "n.md", in: folder.path).stdout.contains(#""store":"samba-stream""#))
        // --store sidecar is --sidecar.
        folder.file("s.md")
        #expect(try await xds("set", "s.md", "--store", "sidecar", "--id", "a.b", "--name", "B", in: folder.path).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/._s.md"))
        #expect(try await xds("set", "s.md", "--store", "xattr", "--sidecar", "--id", "a.b", "--name", "B", in: folder.path).status == 64)
        #expect(try await xds("set", "s.md", "--store", "zip", "--id", "a.b", "--name", "B", in: folder.path).status == 64)
        let help = try await xds("set", "--help").stdout
        #expect(help.contains("--store") && help.contains("samba-stream") && help.contains("streams_xattr"))
    }
}

/// The Samba stream store against a real `smbd` with `vfs_streams_xattr`, read and written
/// by `smbclient` as an SMB client would (root only: smbd must run as root).
@Suite("Samba streams through a real smbd", .serialized)
struct RealSambaTests {
    static var unavailable: String? { TestSambaServer.unavailable }

    @Test("set --store samba-stream on the server: the client reads the exact bytes as the stream; a client-written stream is updated in place",
          .enabled(if: unavailable == nil, "\(unavailable ?? "")"), .timeLimit(.minutes(3)))
    func roundTrip() async throws {
        let server = try await TestSambaServer()
        defer { server.stop() }
        _ = server.folder.file("share/notes.md", "# notes\n")
        let set = try await xds("set", "share/notes.md", "--store", "samba-stream", "--id", "com.example.editor", "--name", "Editor",
                          "--path", "docs/notes.md", in: server.folder.path)
        #expect(set.status == 0, "\(set)")
        let stored = try #require(try await server.folder.attribute(server.share + "/notes.md", name: SambaStoreCLITests.stream))
        let info = try await server.client("allinfo notes.md")
        #expect(info.stdout.contains("stream: [:x-document-source:$DATA], \(stored.count - 1) bytes"), "\(info)")
        let got = try await server.client(#"get "notes.md:x-document-source" got.bin"#)
        #expect(got.status == 0, "\(got)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: server.folder.path + "/got.bin"))
        #expect(bytes == stored.dropLast(), "the client reads the value without the NUL, byte for byte")
        #expect(bytes.starts(with: Data("bplist00".utf8)))

        // The reverse: the client writes the stream, xds set updates it, the client reads it.
        _ = server.folder.file("share/other.md", "other\n")
        let value = try await plistlib(#"{"identifier": "com.example.mac", "name": "Mac App", "path": "a/other.md", "theirs": 7}"#)
        try Data(value).write(to: URL(fileURLWithPath: server.folder.path + "/local.bin"))
        let put = try await server.client(#"put local.bin "other.md:x-document-source""#)
        #expect(put.status == 0, "\(put)")
        #expect(try await server.folder.attribute(server.share + "/other.md", name: SambaStoreCLITests.stream) == Data(value + [0]))
        let update = try await xds("set", "share/other.md", "--path", "moved/other.md", in: server.folder.path)
        #expect(update.status == 0, "\(update)")
        #expect(try await server.folder.attribute(server.share + "/other.md") == nil, "no native copy")
        let back = try await server.client(#"get "other.md:x-document-source" back.bin"#)
        #expect(back.status == 0, "\(back)")
        let read = try await pythonReading(try Data(contentsOf: URL(fileURLWithPath: server.folder.path + "/back.bin")), """
            import plistlib, sys
            d = plistlib.loads(sys.stdin.buffer.read()); print(d['path'], d['theirs'], d['name'])
            """, in: server.folder.path)
        #expect(read.stdout == "moved/other.md 7 Mac App\n", "\(read)")
    }
}
