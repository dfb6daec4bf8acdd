import Foundation
import XDSTestSupport
import Testing

/// `xds show` on TextBundle folders: both records of where the document came from.
@Suite("xds show: TextBundles")
struct TextBundleCLITests {
    /// A `.textbundle` folder with a text file and the given info.json text.
    func bundle(in folder: TemporaryFolder, _ name: String = "Note.textbundle", info: String?) throws -> String {
        let path = folder.path + "/" + name
        try FileManager.default.createDirectory(atPath: path + "/assets", withIntermediateDirectories: true)
        folder.file(name + "/text.md", "# Note\n")
        if let info { folder.file(name + "/info.json", info) }
        return path
    }

    let info = #"{"version": 2, "type": "net.daringfireball.markdown", "transient": false, "creatorIdentifier": "net.shinyfrog.bear", "creatorURL": "https://bear.app", "sourceURL": "https://example.com/clip"}"#

    @Test func showsTheAttributeAndTheBundleRecord() async throws {
        let folder = TemporaryFolder()
        _ = try bundle(in: folder, info: info)
        let set = try await xds("set", "Note.textbundle", "--id", "com.example.editor", "--name", "Editor", in: folder.path)
        #expect(set.status == 0, "\(set)")

        let human = try await xds("show", "Note.textbundle", in: folder.path)
        #expect(human.status == 0 && human.stderr.isEmpty, "\(human)")
        #expect(human.stdout == """
            Note.textbundle
              identifier: com.example.editor
              name:       Editor
              store:      xattr
              textbundle (info.json):
                creatorIdentifier: net.shinyfrog.bear
                creatorURL:        https://bear.app
                sourceURL:         https://example.com/clip
                type:              net.daringfireball.markdown
                transient:         false
                version:           2

            """)

        let json = try await xds("show", "--json", "Note.textbundle", in: folder.path)
        let line = try #require(try json.jsonLines().first)
        #expect(line["identifier"] as? String == "com.example.editor" && line["store"] as? String == "xattr")
        let record = try #require(line["textbundle"] as? [String: Any])
        #expect(record["creatorIdentifier"] as? String == "net.shinyfrog.bear")
        #expect(record["sourceURL"] as? String == "https://example.com/clip")
        #expect(record["transient"] as? Bool == false && record["version"] as? Int == 2)
    }

    @Test func aBundleWithoutTheAttributeStillShowsItsRecordWithStatus1() async throws {
        let folder = TemporaryFolder()
        _ = try bundle(in: folder, info: info)
        let json = try await xds("show", "--json", "Note.textbundle", in: folder.path)
        #expect(json.status == 1, "\(json)")
        #expect(json.stderr.contains("Note.textbundle: no x-document-source attribute"))
        let line = try #require(try json.jsonLines().first)
        #expect(line["store"] == nil && line["identifier"] == nil)
        #expect((line["textbundle"] as? [String: Any])?["creatorURL"] as? String == "https://bear.app")
    }

    /// "oversized" stands for a valid object after 70 000 spaces (over the 64 KiB bound).
    @Test(arguments: ["{not json", "[1, 2]", "oversized"])
    func aBadInfoFileIsAWarningNotAFailure(_ text: String) async throws {
        let folder = TemporaryFolder()
        _ = try bundle(in: folder, info: text == "oversized" ? String(repeating: " ", count: 70_000) + "{}" : text)
        #expect(try await xds("set", "Note.textbundle", "--id", "com.example.editor", "--name", "Editor", in: folder.path).status == 0)
        let show = try await xds("show", "--json", "Note.textbundle", in: folder.path)
        #expect(show.status == 0, "\(show)")
        #expect(show.stderr.hasPrefix("xds: warning: Note.textbundle: info.json is"), "\(show)")
        let line = try #require(try show.jsonLines().first)
        #expect(line["textbundle"] == nil && line["name"] as? String == "Editor")
    }

    @Test func wrongTypesAreListedAsWarningsOfTheRecord() async throws {
        let folder = TemporaryFolder()
        _ = try bundle(in: folder, info: #"{"creatorIdentifier": 7, "type": "public.plain-text"}"#)
        #expect(try await xds("set", "Note.textbundle", "--id", "com.example.editor", "--name", "Editor", in: folder.path).status == 0)
        let human = try await xds("show", "Note.textbundle", in: folder.path)
        #expect(human.status == 0 && human.stdout.contains("    type: public.plain-text\n"), "\(human)")
        #expect(human.stdout.contains("    warning: info.json: creatorIdentifier is a number, not a string (ignored)\n"))
    }

    @Test func recursiveShowIncludesTheRecordOfTaggedBundles() async throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/notes", withIntermediateDirectories: true)
        _ = try bundle(in: folder, "notes/A.textbundle", info: info)
        _ = try bundle(in: folder, "notes/B.textbundle", info: #"{"creatorIdentifier": "com.example.other"}"#)
        #expect(try await xds("set", "notes/A.textbundle", "--id", "com.example.editor", "--name", "Editor", in: folder.path).status == 0)
        let json = try await xds("show", "-r", "--json", "notes", in: folder.path)
        #expect(json.status == 0, "\(json)")
        let lines = try json.jsonLines()
        // Only the tagged bundle is listed (-r lists what carries the attribute), with its record.
        #expect(lines.count == 1)
        #expect(lines.first?["file"] as? String == "notes/A.textbundle")
        #expect((lines.first?["textbundle"] as? [String: Any])?["creatorIdentifier"] as? String == "net.shinyfrog.bear")
    }

    @Test func aTextpackShowsItsMembersThenItsRecord() async throws {
        let folder = TemporaryFolder()
        let spec = #"""
            {"out": "Note.textpack", "format": "zip", "entries": [
             {"name": "Note.textbundle/info.json", "data": "{\"version\": 2, \"creatorIdentifier\": \"net.shinyfrog.bear\", \"transient\": true}"},
             {"name": "Note.textbundle/text.md", "data": "# Note"},
             {"name": "__MACOSX/Note.textbundle/._text.md", "appledouble": {"value": {"identifier": "com.example.editor", "name": "Editor"}}}]}
            """#
        folder.file("spec.json", spec)
        let made = try await run("/usr/bin/env", ["python3", packageRoot + "/scripts/make_test_archive.py", "spec.json"], in: folder.path)
        try #require(made.status == 0, "\(made)")
        let json = try await xds("show", "--json", "Note.textpack", in: folder.path)
        #expect(json.status == 0, "\(json)")
        let lines = try json.jsonLines()
        #expect(lines.count == 2)
        #expect(lines.first?["member"] as? String == "Note.textbundle/text.md" && lines.first?["name"] as? String == "Editor")
        #expect(lines.last?["file"] as? String == "Note.textpack")
        let record = try #require(lines.last?["textbundle"] as? [String: Any])
        #expect(record["creatorIdentifier"] as? String == "net.shinyfrog.bear" && record["transient"] as? Bool == true)

        // The pack's own attribute and its record are one entry.
        #expect(try await xds("set", "Note.textpack", "--id", "com.example.zip", "--name", "Zipper", in: folder.path).status == 0)
        let again = try await xds("show", "--json", "Note.textpack", in: folder.path).jsonLines()
        #expect(again.count == 2 && again.last?["name"] as? String == "Zipper" && again.last?["textbundle"] != nil)
    }
}
