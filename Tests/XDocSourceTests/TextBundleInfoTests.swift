import Foundation
import Testing
import XDocSource

/// Reading a TextBundle's `info.json` (the bundle's own provenance record).
@Suite("TextBundleInfo")
struct TextBundleInfoTests {
    func parse(_ text: String) throws -> TextBundleInfo {
        try TextBundleInfo.parse(Array(text.utf8))
    }

    @Test func readsTheSpecificationKeys() throws {
        let info = try parse("""
            {"version": 2, "type": "net.daringfireball.markdown", "transient": true,
             "creatorURL": "https://bear.app", "creatorIdentifier": "net.shinyfrog.bear",
             "sourceURL": "https://example.com/clip", "net.shinyfrog.bear": {"tags": ["a"]}}
            """)
        #expect(info.version == 2)
        #expect(info.type == "net.daringfireball.markdown")
        #expect(info.transient == true)
        #expect(info.creatorURL == "https://bear.app")
        #expect(info.creatorIdentifier == "net.shinyfrog.bear")
        #expect(info.sourceURL == "https://example.com/clip")
        #expect(info.warnings.isEmpty)
        #expect(info.fields.map(\.key) == ["creatorIdentifier", "creatorURL", "sourceURL", "type", "transient", "version"])
    }

    @Test func keysOfTheWrongTypeAreLeftOutWithAWarning() throws {
        let info = try parse(#"{"version": "2", "transient": 1, "creatorIdentifier": ["x"], "type": "public.plain-text"}"#)
        #expect(info.version == nil && info.transient == nil && info.creatorIdentifier == nil)
        #expect(info.type == "public.plain-text")
        #expect(info.warnings == [
            "info.json: version is a string, not a whole number (ignored)",
            "info.json: transient is a number, not a boolean (ignored)",
            "info.json: creatorIdentifier is an array, not a string (ignored)",
        ])
    }

    @Test(arguments: ["", "{", "[]", "\"text\"", "{\"a\":1,\"a\":2}", "{\"type\": \"x\"} trailing", "\u{FF}"])
    func malformedTextIsRefusedInWords(_ text: String) {
        #expect(throws: TextBundleInfoError.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch let error as TextBundleInfoError {
            #expect(error.kind == .malformed)
            #expect(error.message.hasPrefix("info.json is"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func aTooLargeFileIsRefused() {
        let big = "{\"type\": \"" + String(repeating: "x", count: TextBundleInfo.maximumSize) + "\"}"
        #expect(throws: TextBundleInfoError.self) { try parse(big) }
    }

    @Test func fieldsAreTypedValuesInKeyOrder() throws {
        let info = try parse(#"{"version": 1, "creatorIdentifier": "a\"b", "transient": false, "sourceURL": 5}"#)
        #expect(info.fields.map(\.key) == ["creatorIdentifier", "transient", "version"])
        #expect(info.fields.map(\.value) == [.string("a\"b"), .boolean(false), .integer(1)])
        #expect(info.warnings == ["info.json: sourceURL is a number, not a string (ignored)"])
    }

    @Test func readsAFolderAndRefusesALinkedInfoFile() throws {
        let folder = try #require(FileManager.default.temporaryDirectory.appendingPathComponent("tb-\(UUID().uuidString)").path)
        let bundle = folder + "/Note.textbundle"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try TextBundleInfo.read(bundleAt: bundle) == nil)

        try Data(#"{"creatorIdentifier": "com.example.writer"}"#.utf8).write(to: URL(fileURLWithPath: bundle + "/info.json"))
        #expect(try TextBundleInfo.read(bundleAt: bundle)?.creatorIdentifier == "com.example.writer")

        // A link named info.json must not make the reader open another file.
        try FileManager.default.removeItem(atPath: bundle + "/info.json")
        try Data(#"{"creatorIdentifier": "elsewhere"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/other.json"))
        try FileManager.default.createSymbolicLink(atPath: bundle + "/info.json", withDestinationPath: folder + "/other.json")
        #expect(throws: TextBundleInfoError.self) { try TextBundleInfo.read(bundleAt: bundle) }

        #expect(TextBundleInfo.isBundleName("a/Note.TextBundle/"))
        #expect(!TextBundleInfo.isBundleName("a/Note.textbundle.zip"))
    }
}
