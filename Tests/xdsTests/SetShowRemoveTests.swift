import Foundation
import XDSTestSupport
import Testing

/// Python literal of a value with other apps' keys of every plist type.
let everyTypeValue = """
    {"identifier": "com.example.app", "name": "Example",
     "com.example.nested": {"list": [1, -2, 2.5, True, "ü", b"\\x00\\x01"],
                            "deep": {"x": {"y": [datetime.datetime(2024, 5, 1, 12, 30, 0)]}}},
     "com.example.data": b"\\x00\\xff", "com.example.date": datetime.datetime(2020, 1, 2, 3, 4, 5),
     "com.example.int": 123456789012, "com.example.neg": -7, "com.example.real": 0.25,
     "com.example.bool": False, "com.example.uid": plistlib.UID(5), "com.example.empty": {}}
    """

/// Checks with plistlib that `file`'s attribute equals the Python expression `expected`.
func expectAttribute(_ folder: TemporaryFolder, _ file: String, equals expected: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let data = try #require(try await folder.attribute(file), sourceLocation: sourceLocation)
    #expect(data.starts(with: Array("bplist00".utf8)), sourceLocation: sourceLocation)
    let script = """
        import plistlib, sys, datetime
        got = plistlib.loads(sys.stdin.buffer.read())
        want = \(expected)
        print("same" if got == want else "different: %r" % (got,))
        """
    let result = try await run("/usr/bin/env", ["python3", "-c", script], input: data)
    #expect(result.stdout == "same\n", "\(result)", sourceLocation: sourceLocation)
}

@Suite("xds set, show, remove")
struct SetShowRemoveTests {
    @Test func roundTripWithHumanAndJSONOutput() async throws {
        let folder = TemporaryFolder()
        folder.file("notes.txt")
        let set = try await xds("set", "notes.txt", "--id", "com.appliedphasor.working-copy", "--name", "Working Copy",
                          "--path", "notes/notes.txt", "--app-info-url", "https://workingcopy.app/appInfo.json", in: folder.path)
        #expect(set.status == 0, "\(set)")
        #expect(set.stdout.isEmpty && set.stderr.isEmpty)

        let show = try await xds("show", "notes.txt", in: folder.path)
        #expect(show.status == 0)
        #expect(show.stdout == """
            notes.txt
              identifier: com.appliedphasor.working-copy
              name:       Working Copy
              path:       notes/notes.txt
              appInfoURL: https://workingcopy.app/appInfo.json
              store:      xattr

            """)

        let json = try await xds("show", "--json", "notes.txt", in: folder.path)
        #expect(json.status == 0)
        #expect(json.stdout == """
            {"file":"notes.txt","identifier":"com.appliedphasor.working-copy","name":"Working Copy",\
            "path":"notes/notes.txt","appInfoURL":"https:\\/\\/workingcopy.app\\/appInfo.json","store":"xattr","other":{}}

            """.replacingOccurrences(of: "\\/", with: "/"))
        try await expectAttribute(folder, "notes.txt", equals: """
            {"identifier": "com.appliedphasor.working-copy", "name": "Working Copy",
             "path": "notes/notes.txt", "appInfoURL": "https://workingcopy.app/appInfo.json"}
            """)
    }

    @Test func mergeKeepsOtherKeysOfEveryTypeExactly() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("a.txt")
        try await folder.setAttribute(file, try plistlib(everyTypeValue))
        let set = try await xds("set", "a.txt", "--path", "new/a.txt", in: folder.path)
        #expect(set.status == 0, "\(set)")
        try await expectAttribute(folder, "a.txt", equals: "dict(\(everyTypeValue), path='new/a.txt')")

        // --id/--name given: they replace the old ones, everything else stays.
        let again = try await xds("set", "a.txt", "--id", "org.other", "--name", "Other", in: folder.path)
        #expect(again.status == 0, "\(again)")
        try await expectAttribute(folder, "a.txt", equals: "dict(\(everyTypeValue), path='new/a.txt', identifier='org.other', name='Other')")
    }

    @Test func replaceDropsOtherKeys() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("a.txt")
        try await folder.setAttribute(file, try plistlib(everyTypeValue))
        let set = try await xds("set", "a.txt", "--replace", "--id", "com.example.editor", "--name", "Editor", in: folder.path)
        #expect(set.status == 0, "\(set)")
        try await expectAttribute(folder, "a.txt", equals: "{'identifier': 'com.example.editor', 'name': 'Editor'}")
    }

    @Test func replaceNeedsIdAndName() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("a.txt")
        try await folder.setAttribute(file, try plistlib(everyTypeValue))
        let set = try await xds("set", "a.txt", "--replace", "--path", "x", in: folder.path)
        #expect(set.status == 64)
        #expect(set.stderr.contains("--replace"))
        #expect(try await folder.attribute(file) == Data(try plistlib(everyTypeValue)))
    }

    @Test func otherKeysInJSONAndHumanOutput() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("a.txt")
        try await folder.setAttribute(file, try plistlib(everyTypeValue))
        let json = try await xds("show", "--json", "a.txt", in: folder.path)
        #expect(json.status == 0, "\(json)")
        let object = try #require(try json.jsonLines().first)
        #expect(object["identifier"] as? String == "com.example.app")
        #expect(object["path"] == nil)
        #expect(object["store"] as? String == "xattr")
        let other = try #require(object["other"] as? [String: Any])
        #expect(other["com.example.data"] as? String == "AP8=")
        #expect(other["com.example.date"] as? String == "2020-01-02T03:04:05Z")
        #expect((other["com.example.int"] as? NSNumber)?.int64Value == 123456789012)
        #expect((other["com.example.neg"] as? NSNumber)?.intValue == -7)
        #expect((other["com.example.real"] as? NSNumber)?.doubleValue == 0.25)
        #expect((other["com.example.uid"] as? [String: Any])?["CF$UID"] as? Int == 5)
        let nested = try #require(other["com.example.nested"] as? [String: Any])
        let list = try #require(nested["list"] as? [Any])
        #expect(list.count == 6)
        #expect(list[4] as? String == "ü")
        #expect(list[5] as? String == "AAE=")
        #expect(json.stdout.contains("\"com.example.bool\":false"))
        #expect(json.stdout.contains("\"deep\":{\"x\":{\"y\":[\"2024-05-01T12:30:00Z\"]}}"))

        let human = try await xds("show", "a.txt", in: folder.path)
        #expect(human.stdout.contains("  other keys:\n"))
        #expect(human.stdout.contains("    com.example.data:   <2 bytes: 00ff>\n"))
        #expect(human.stdout.contains("    com.example.date:   2020-01-02T03:04:05Z\n"))
        #expect(human.stdout.contains("com.example.nested: {\"deep\": {\"x\": {\"y\": [2024-05-01T12:30:00Z]}}, \"list\": [1, -2, 2.5, true, \"ü\", <2 bytes: 0001>]}"))
    }

    @Test func unicodeNamesPathsAndJSONEscaping() async throws {
        let folder = TemporaryFolder()
        let name = "Ünïcødé 文件 \"q\" 😀.txt"
        folder.file(name)
        let appName = "Éd \"quoted\" \\ back/slash 😀"
        let set = try await xds(["set", name, "--id", "com.example.app", "--name", appName, "--path", "dossier/été/文.txt"], in: folder.path)
        #expect(set.status == 0, "\(set)")
        let json = try await xds(["show", "--json", name], in: folder.path)
        let object = try #require(try json.jsonLines().first)
        #expect(object["file"] as? String == name)
        #expect(object["name"] as? String == appName)
        #expect(object["path"] as? String == "dossier/été/文.txt")
        #expect(json.stdout.contains(#""name":"Éd \"quoted\" \\ back/slash 😀""#))
    }

    @Test func controlCharactersAreEscapedInJSONAndMadeVisibleInText() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("a.txt")
        try await folder.setAttribute(file, try plistlib(#"{"identifier": "a.b", "name": "bell\x07 esc\x1b[31m nl\n tab\t", "k\x01": "\u2028"}"#))
        let json = try await xds("show", "--json", "a.txt", in: folder.path)
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout.contains(#""name":"bell\u0007 esc\u001b[31m nl\n tab\t""#))
        #expect(json.stdout.contains(#""other":{"k\u0001":"\u2028"}"#))
        let object = try #require(try json.jsonLines().first)
        #expect(object["name"] as? String == "bell\u{07} esc\u{1B}[31m nl\n tab\t")
        let human = try await xds("show", "a.txt", in: folder.path)
        #expect(!human.stdout.contains("\u{1B}"))
        #expect(human.stdout.contains("bell\\u{7} esc\\u{1b}[31m nl\\n tab\\t"))
    }

    @Test func fileNamesWithControlCharactersStayOnOneLine() async throws {
        let folder = TemporaryFolder()
        let result = try await xds(["show", "evil\nname\u{1B}[2J"], in: folder.path)
        #expect(result.status == 66)
        #expect(result.stderr == "xds: evil\\nname\\u{1b}[2J: no such file or folder\n")
    }

    @Test func foldersCarryIt() async throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/Notes.textbundle", withIntermediateDirectories: false)
        #expect(try await xds("set", "Notes.textbundle", "--id", "a.b", "--name", "N", in: folder.path).status == 0)
        let json = try await xds("show", "--json", "Notes.textbundle", in: folder.path)
        #expect(try json.jsonLines().first?["identifier"] as? String == "a.b")
        #expect(try await xds("remove", "Notes.textbundle", in: folder.path).status == 0)
        #expect(try await folder.attribute("Notes.textbundle") == nil)
    }

    @Test func symlinksAreFollowedAndNoFollowIsAClearError() async throws {
        let folder = TemporaryFolder()
        folder.file("target.txt")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link.txt", withDestinationPath: "target.txt")
        #expect(try await xds("set", "link.txt", "--id", "a.b", "--name", "N", in: folder.path).status == 0)
        #expect(try await folder.attribute("target.txt") != nil)
        #expect(try await xds("show", "link.txt", in: folder.path).status == 0)

        // Linux's lgetxattr finds no user attribute on a link: show reports it absent.
        let show = try await xds("show", "link.txt", "--no-follow", in: folder.path)
        #expect(show.status == 1, "\(show)")
        #expect(show.errorLines == ["xds: link.txt: no x-document-source attribute"])
        for command in [["set", "--id", "c.d", "--name", "M"], ["remove"]] {
            let result = try await xds([command[0], "link.txt", "--no-follow"] + command.dropFirst(), in: folder.path)
            #expect(result.status == 74, "\(result)")
            #expect(result.errorLines == ["xds: link.txt: is a symbolic link, and Linux does not allow user extended attributes on symbolic links"])
        }
        #expect(try await xds("show", "--json", "target.txt", in: folder.path).jsonLines().first?["identifier"] as? String == "a.b")
    }

    @Test func severalFilesOneMissingHighestCodeWins() async throws {
        let folder = TemporaryFolder()
        folder.file("a.txt")
        folder.file("b.txt")
        let set = try await xds("set", "a.txt", "missing.txt", "b.txt", "--id", "a.b", "--name", "N", in: folder.path)
        #expect(set.status == 66)
        #expect(set.errorLines == ["xds: missing.txt: no such file or folder"])
        #expect(try await folder.attribute("a.txt") != nil)
        #expect(try await folder.attribute("b.txt") != nil)

        folder.file("plain.txt")
        let show = try await xds("show", "--json", "a.txt", "plain.txt", "missing.txt", "b.txt", in: folder.path)
        #expect(show.status == 66)
        #expect(show.errorLines == ["xds: plain.txt: no x-document-source attribute", "xds: missing.txt: no such file or folder"])
        #expect(try show.jsonLines().map { $0["file"] as? String } == ["a.txt", "b.txt"])
    }

    @Test func fileWithoutTheAttributeExitsOne() async throws {
        let folder = TemporaryFolder()
        folder.file("plain.txt")
        for arguments in [["show", "plain.txt"], ["show", "--json", "plain.txt"], ["remove", "plain.txt"]] {
            let result = try await xds(arguments, in: folder.path)
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr == "xds: plain.txt: no x-document-source attribute\n")
        }
    }

    @Test func idAndNameRequiredPerFileUnlessPresent() async throws {
        let folder = TemporaryFolder()
        folder.file("has.txt")
        folder.file("bare.txt")
        #expect(try await xds("set", "has.txt", "--id", "a.b", "--name", "N", in: folder.path).status == 0)
        let result = try await xds("set", "has.txt", "bare.txt", "--path", "p", in: folder.path)
        #expect(result.status == 64)
        #expect(result.errorLines == ["xds: bare.txt: the file has no identifier or name; give --id and --name"])
        #expect(try await xds("show", "--json", "has.txt", in: folder.path).jsonLines().first?["path"] as? String == "p")
        #expect(try await folder.attribute("bare.txt") == nil)
        let nameOnly = try await xds("set", "bare.txt", "--id", "a.b", in: folder.path)
        #expect(nameOnly.errorLines == ["xds: bare.txt: the file has no name; give --name"])
    }

    @Test func removeDeletesIt() async throws {
        let folder = TemporaryFolder()
        folder.file("a.txt")
        #expect(try await xds("set", "a.txt", "--id", "a.b", "--name", "N", in: folder.path).status == 0)
        let removed = try await xds("remove", "a.txt", in: folder.path)
        #expect(removed.status == 0 && removed.stdout.isEmpty && removed.stderr.isEmpty)
        #expect(try await folder.attribute("a.txt") == nil)
        #expect(try await xds("remove", "missing.txt", in: folder.path).status == 66)
    }

    @Test func procFilesystemRefusesAttributes() async throws {
        for arguments in [["show", "/proc/self/status"], ["set", "/proc/self/status", "--id", "a.b", "--name", "N"], ["remove", "/proc/version"]] {
            let result = try await xds(arguments)
            #expect(result.status == 74, "\(result)")
            // set and remove add how to use a sidecar instead.
            let hint = arguments[0] == "show" ? "" : "; --sidecar"
            #expect(result.errorLines.first?.contains(": the filesystem does not support extended attributes" + hint) == true, "\(result)")
        }
    }

    @Test func specialFilesCannotCarryIt() async throws {
        let result = try await xds("set", "/dev/null", "--id", "a.b", "--name", "N")
        #expect(result.status == 74)
        #expect(result.stderr == "xds: /dev/null: Linux allows user extended attributes only on regular files and folders\n")
        #expect(try await xds("show", "/dev/null").status == 1)
    }

    @Test func wrongTypedKeyWarnsAndIsKeptOnRewrite() async throws {
        let folder = TemporaryFolder()
        let file = folder.file("a.txt")
        try await folder.setAttribute(file, try plistlib(#"{"identifier": "a.b", "name": 42, "path": ["x"]}"#))
        let human = try await xds("show", "a.txt", in: folder.path)
        #expect(human.status == 0)
        #expect(human.stdout.contains("  warning: 'name' is an integer, not a string; ignored\n"))
        #expect(human.stdout.contains("  warning: 'path' is an array, not a string; ignored\n"))
        #expect(!human.stdout.contains("  name:"))
        let json = try await xds("show", "--json", "a.txt", in: folder.path)
        let object = try #require(try json.jsonLines().first)
        #expect(object["name"] == nil)
        #expect((object["warnings"] as? [String])?.count == 2)
        // The whole line: the keys in the order documented, "warnings" after "other".
        #expect(json.stdout == #"{"file":"a.txt","identifier":"a.b","store":"xattr","other":{},"#
            + #""warnings":["'name' is an integer, not a string; ignored","'path' is an array, not a string; ignored"]}"# + "\n")

        // Rewriting another key keeps the wrong-typed ones as they are.
        let set = try await xds("set", "a.txt", "--app-info-url", "https://example.com/appInfo.json", "--name", "Now", in: folder.path)
        #expect(set.status == 0, "\(set)")
        try await expectAttribute(folder, "a.txt", equals: #"{"identifier": "a.b", "name": "Now", "path": ["x"], "appInfoURL": "https://example.com/appInfo.json"}"#)
    }

    /// `xds show` has a fast path that skips ArgumentParser for plain command lines; `--` sends
    /// the same request through ArgumentParser. Both must behave the same.
    @Test func fastPathAndArgumentParserAgree() async throws {
        let folder = TemporaryFolder()
        folder.file("a.txt")
        folder.file("plain.txt")
        #expect(try await xds("set", "a.txt", "--id", "a.b", "--name", "N", in: folder.path).status == 0)
        for options in [[], ["--json"], ["--no-follow"], ["--json", "--no-follow"]] {
            for files in [["a.txt"], ["a.txt", "plain.txt", "missing.txt", "a.txt"]] {
                let fast = try await xds(["show"] + options + files, in: folder.path)
                let parsed = try await xds(["show"] + options + ["--"] + files, in: folder.path)
                #expect(fast.status == parsed.status)
                #expect(fast.stdout == parsed.stdout)
                #expect(fast.stderr == parsed.stderr)
            }
        }
        // Anything unusual goes to ArgumentParser: help, unknown options.
        #expect(try await xds("show", "a.txt", "--help").stdout.contains("USAGE: xds show"))
        #expect(try await xds("show", "a.txt", "--bogus").status == 64)
    }

    @Test(arguments: ["set", "show", "remove"])
    func helpExplainsOptions(command: String) async throws {
        let result = try await xds(command, "--help")
        #expect(result.status == 0)
        #expect(result.stdout.contains("--no-follow"))
        if command == "show" {
            #expect(result.stdout.contains("base64"))
            #expect(result.stdout.contains("ISO-8601"))
        }
        if command == "set" { #expect(result.stdout.contains("--allow-http")) }
    }
}
