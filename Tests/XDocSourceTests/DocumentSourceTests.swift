import Foundation
import Testing
@testable import XDocSource

@Suite("DocumentSource model")
struct DocumentSourceTests {
    static let workingCopy = DocumentSource(
        identifier: "com.appliedphasor.working-copy", name: "Working Copy",
        path: "repo/README.md", appInfoURL: "https://workingcopy.app/appInfo.json")

    @Test("keys are the four fields in display order")
    func keys() {
        #expect(DocumentSource.keys == ["identifier", "name", "path", "appInfoURL"])
    }

    @Test("an empty value has no fields, no other keys and no warnings")
    func empty() throws {
        let source = DocumentSource()
        #expect(source.dictionary.isEmpty)
        #expect(source.identifier == nil && source.name == nil && source.path == nil && source.appInfoURL == nil)
        #expect(source.warnings.isEmpty)
        let bytes = try source.binaryPropertyList()
        #expect(try DocumentSource(propertyList: bytes) == source)
    }

    @Test("the four fields round-trip through a binary plist")
    func roundTrip() throws {
        let bytes = try Self.workingCopy.binaryPropertyList()
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        let back = try DocumentSource(propertyList: bytes)
        #expect(back == Self.workingCopy)
        #expect(back.identifier == "com.appliedphasor.working-copy")
        #expect(back.name == "Working Copy")
        #expect(back.path == "repo/README.md")
        #expect(back.appInfoURL == "https://workingcopy.app/appInfo.json")
        #expect(back.otherKeys.isEmpty)
    }

    @Test("the memberwise initialiser leaves out nil fields")
    func partialInit() {
        let source = DocumentSource(identifier: "a.b", name: "N")
        #expect(Set(source.dictionary.keys) == ["identifier", "name"])
    }

    @Test("setting a field replaces it; setting nil removes the key")
    func setters() {
        var source = Self.workingCopy
        source.name = "Other"
        #expect(source.dictionary["name"] == .string("Other"))
        source.path = nil
        #expect(source.dictionary["path"] == nil)
        source.identifier = nil
        source.appInfoURL = nil
        source.name = nil
        #expect(source.dictionary.isEmpty)
    }

    @Test("unicode names and paths survive exactly", arguments: [
        "Wörking Cöpy", "日本語のアプリ", "🎉 Party 🎈", "e\u{301}le\u{300}ve (NFD)", "élève (NFC)",
        "한국어/파일.txt", "a/b/c d/ünï cödé.md", "\u{1F469}\u{200D}\u{1F4BB} dev",
    ])
    func unicode(text: String) throws {
        let source = DocumentSource(identifier: "x.y", name: text, path: text)
        let back = try DocumentSource(propertyList: source.binaryPropertyList())
        // Compared by scalars: Swift's String == would treat NFC and NFD as equal.
        #expect(back.name.map { Array($0.unicodeScalars) } == Array(text.unicodeScalars))
        #expect(back.path.map { Array($0.unicodeScalars) } == Array(text.unicodeScalars))
    }

    @Test("NFD and NFC spellings stay distinct keys' values, not normalised")
    func noNormalisation() throws {
        let nfd = "e\u{301}", nfc = "\u{e9}"
        let source = DocumentSource(name: nfd, path: nfc)
        let back = try DocumentSource(propertyList: source.binaryPropertyList())
        #expect(back.name?.unicodeScalars.count == 2)
        #expect(back.path?.unicodeScalars.count == 1)
    }

    @Test("merge: keys present in the other value replace ours, all others stay")
    func merge() {
        var source = Self.workingCopy
        source.dictionary["com.example.other"] = .array([.integer(1)])
        var update = DocumentSource(name: "New Name", appInfoURL: "https://example.com/appInfo.json")
        update.dictionary["extra"] = .boolean(true)
        source.merge(update)
        #expect(source.identifier == "com.appliedphasor.working-copy")
        #expect(source.name == "New Name")
        #expect(source.path == "repo/README.md")
        #expect(source.appInfoURL == "https://example.com/appInfo.json")
        #expect(source.dictionary["com.example.other"] == .array([.integer(1)]))
        #expect(source.dictionary["extra"] == .boolean(true))
    }

    @Test("merge with an empty value changes nothing")
    func mergeEmpty() {
        var source = Self.workingCopy
        source.merge(DocumentSource())
        #expect(source == Self.workingCopy)
    }

    @Test("other apps' keys of every type are kept and round-trip exactly")
    func otherKeys() throws {
        var source = Self.workingCopy
        for (key, value) in everyTypeSample { source.dictionary["other." + key] = value }
        let back = try DocumentSource(propertyList: source.binaryPropertyList())
        #expect(back == source)
        #expect(back.otherKeys.count == everyTypeSample.count)
        #expect(back.otherKeys["other.huge"] == .unsignedInteger(.max))
        #expect(back.otherKeys["other.min"] == .integer(.min))
        #expect(back.warnings.isEmpty)
    }

    @Test("a wrong-typed known key reads as nil, gives a warning, and is kept on re-encode")
    func wrongTypes() throws {
        var source = DocumentSource()
        source.dictionary = [
            "identifier": .array([.string("a")]),
            "name": .integer(5),
            "path": .data([1]),
            "appInfoURL": .string("https://ok.example/appInfo.json"),
        ]
        let back = try DocumentSource(propertyList: source.binaryPropertyList())
        #expect(back.identifier == nil)
        #expect(back.name == nil)
        #expect(back.path == nil)
        #expect(back.appInfoURL == "https://ok.example/appInfo.json")
        #expect(back.warnings == [
            "'identifier' is an array, not a string; ignored",
            "'name' is an integer, not a string; ignored",
            "'path' is data, not a string; ignored",
        ])
        // Wrong-typed keys are not "other" keys, but they are kept as they are.
        #expect(back.otherKeys.isEmpty)
        #expect(back.dictionary["name"] == .integer(5))
        var merged = back
        merged.merge(DocumentSource(appInfoURL: "https://new.example/appInfo.json"))
        let rewritten = try DocumentSource(propertyList: merged.binaryPropertyList())
        #expect(rewritten.dictionary["identifier"] == .array([.string("a")]))
        #expect(rewritten.dictionary["name"] == .integer(5))
        #expect(rewritten.dictionary["path"] == .data([1]))
    }

    @Test("warnings name each type", arguments: [
        (PropertyListValue.real(1), "a real number"), (.boolean(true), "a boolean"), (.date(0), "a date"),
        (.uid(1), "a UID"), (.dictionary([:]), "a dictionary"), (.unsignedInteger(.max), "an integer"),
    ])
    func warningWording(value: PropertyListValue, words: String) {
        var source = DocumentSource()
        source.dictionary["name"] = value
        #expect(source.warnings == ["'name' is \(words), not a string; ignored"])
    }

    @Test("an XML attribute value is read like a binary one")
    func xml() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
                <key>identifier</key><string>com.appliedphasor.working-copy</string>
                <key>name</key><string>Working Copy &amp; Co &#65;&#x1F600;</string>
                <key>other</key><array><integer>-3</integer><real>2.5</real><true/></array>
            </dict>
            </plist>
            """
        let source = try DocumentSource(propertyList: Array(xml.utf8))
        #expect(source.identifier == "com.appliedphasor.working-copy")
        #expect(source.name == "Working Copy & Co A😀")
        #expect(source.otherKeys == ["other": .array([.integer(-3), .real(2.5), .boolean(true)])])
        // Rewritten, it is binary.
        #expect(try source.binaryPropertyList().starts(with: Array("bplist00".utf8)))
    }

    @Test("typeName gives the short type names")
    func typeNames() {
        let names = [PropertyListValue.string(""), .integer(0), .unsignedInteger(.max), .real(0), .boolean(true),
                     .date(0), .data([]), .uid(0), .array([]), .dictionary([:])].map(\.typeName)
        #expect(names == ["string", "integer", "integer", "real", "boolean", "date", "data", "uid", "array", "dictionary"])
    }

    @Test("PropertyListError prints its message")
    func errorDescription() {
        let error = PropertyListError("binary plist trailer: offset table lies outside the data")
        #expect("\(error)" == "binary plist trailer: offset table lies outside the data")
    }
}
