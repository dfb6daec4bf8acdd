import Foundation
import Testing
import XDSTestSupport

/// The ```console blocks of README.md and docs/*.md, run as cram and trycmd run CLI docs: each
/// block in a fresh scratch folder holding the fixtures below, by one bash with the built `xds`
/// first on PATH, and every command's output (standard output and error together, as on a
/// terminal) and exit status compared with what the doc shows. The syntax, for doc writers:
/// docs/doc-examples.md.
@Suite("the examples in README.md and docs/ (run)", .timeLimit(.minutes(3)))
struct DocExampleTests {
    static let consoleBlocks = DocBlock.all("console", root: Repository.root)

    @Test("the docs have console blocks to run")
    func blocksAreFound() {
        // README's tour alone has three; an empty list means the reader broke, not the docs.
        #expect(DocExampleTests.consoleBlocks.filter { $0.file == "README.md" }.count >= 3)
        #expect(DocExampleTests.consoleBlocks.contains { $0.file == "docs/commands.md" })
        // Issue 32: the publishing guide's commands run too.
        #expect(DocExampleTests.consoleBlocks.filter { $0.file == "docs/publishing.md" }.count >= 3)
    }

    @Test("a console block prints what the doc shows", arguments: DocExampleTests.consoleBlocks)
    func consoleBlock(_ block: DocBlock) async throws {
        let commands = try block.commands()
        let scratch = TemporaryFolder()
        let work = try DocFixtures.make(in: scratch)
        let results = try await DocExampleTests.run(commands, in: work, scratch: scratch)
        #expect(results.count == commands.count,
                "\(block.testDescription): bash stopped after \(results.count) of \(commands.count) commands (an `exit`?)")
        for (command, result) in zip(commands, results) {
            let matched = DocOutputMatcher.matches(command.expected, result.lines)
            #expect(matched && result.status == command.status, """
                \(block.file):\(command.line): $ \(command.text)
                --- the doc shows\(command.status == 0 ? "" : " (exit \(command.status))"):
                \(command.expected.joined(separator: "\n"))
                --- xds printed (exit \(result.status)):
                \(result.lines.joined(separator: "\n"))
                """)
        }
    }

    /// What one command printed.
    struct Printed {
        var lines: [String]
        var status: Int32
    }

    /// A line bash prints after each command, with its status; no doc shows it.
    static let separator = "@@xds-doc-example-end@@"

    /// Runs the commands one after another in one bash (so `cd` and variables carry on, as in a
    /// terminal), standard error merged into standard output, and splits what it printed by
    /// command.
    static func run(_ commands: [DocBlock.Command], in work: String, scratch: TemporaryFolder) async throws -> [Printed] {
        let bin = scratch.folder("bin")
        try FileManager.default.createSymbolicLink(atPath: bin + "/xds", withDestinationPath: xdsPath)
        var script = "exec 2>&1\n"
        for command in commands {
            script += command.text + "\nprintf '\\n\(separator) %d\\n' \"$?\"\n"
        }
        let home = scratch.folder("home")
        let web = try await DocWeb.shared.value
        let proxy = "http://127.0.0.1:\(web.port)"
        let result = try await ProcessRunner.run("/bin/bash", ["--noprofile", "--norc", "-c", script], in: work, environment: [
            "PATH": bin + ":/usr/local/bin:/usr/bin:/bin",
            "HOME": home, "XDG_CACHE_HOME": home + "/.cache",
            "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "TZ": "UTC", "TERM": "dumb",
            "HTTPS_PROXY": proxy, "https_proxy": proxy, "HTTP_PROXY": "", "http_proxy": "", "ALL_PROXY": "", "all_proxy": "",
            "NO_PROXY": "", "no_proxy": "", "SSL_CERT_FILE": web.certificateAuthority, "CURL_CA_BUNDLE": "",
        ], timeLimit: 240)
        var printed: [Printed] = []
        var rest = Substring(result.stdout)
        // Each command's output is followed by "\nSEPARATOR STATUS\n".
        while let end = rest.range(of: "\n\(separator) ") {
            var lines = rest[..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.last == "" { lines.removeLast() }
            rest = rest[end.upperBound...]
            let statusEnd = rest.firstIndex(of: "\n") ?? rest.endIndex
            printed.append(Printed(lines: lines, status: Int32(rest[..<statusEnd]) ?? -1))
            rest = rest[statusEnd...].dropFirst()
        }
        return printed
    }
}

/// The web the examples see, one for the whole test run: Tests/Support/doc_example_web.py as the
/// https proxy, serving the repository's appInfo.json and img/ as https://workingcopy.app/ and
/// https://example.com/ over TLS with a test CA made at start (so `xds icon report.pdf` follows
/// a real appInfoURL, and nothing leaves the machine).
final class DocWeb: @unchecked Sendable {
    let port: Int
    let certificateAuthority: String
    private let server: ProcessRunner.Running
    private let folder: TemporaryFolder

    static let shared = Task<DocWeb, any Error> { try await DocWeb() }

    private init() async throws {
        folder = TemporaryFolder()
        for host in ["workingcopy.app", "example.com"] {
            let site = folder.folder("root/" + host)
            try FileManager.default.copyItem(atPath: Repository.url("appInfo.json").path, toPath: site + "/appInfo.json")
            try FileManager.default.copyItem(atPath: Repository.url("img").path, toPath: site + "/img")
        }
        // It exits when its standard input closes: at the latest when the test process ends.
        server = try ProcessRunner.start("/usr/bin/env", ["python3", Repository.url("Tests/Support/doc_example_web.py").path,
                                                          "--root", folder.path + "/root", "--work", folder.path + "/certificates"],
                                         holdInput: true, standardOutput: .pipe)
        let ready = await server.readLine() ?? ""
        guard let data = ready.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let port = object["port"] as? Int else {
            throw await NotStarted(line: ready, run: try? server.wait())
        }
        self.port = port
        certificateAuthority = folder.path + "/certificates/ca.pem"
    }

    struct NotStarted: Error, CustomStringConvertible {
        var line: String
        var run: Run?
        var description: String { "doc_example_web.py did not start: \(line) \(run.map(String.init(describing:)) ?? "")" }
    }
}

/// What every console block finds in its scratch folder (docs/doc-examples.md lists it): files to
/// label, the project's own appInfo.json and img/ (so `xds icon` needs no network), an icon to
/// mask and an app bundle to publish.
enum DocFixtures {
    /// Makes the fixtures in `scratch`/work and returns that folder's path.
    static func make(in scratch: TemporaryFolder) throws -> String {
        let work = scratch.folder("work")
        let files = FileManager.default
        for name in ["report.md", "report.pdf", "notes.txt", "share/docs/notes.md", "share/todo.txt"] {
            try files.createDirectory(atPath: (work as NSString).appendingPathComponent((name as NSString).deletingLastPathComponent),
                                      withIntermediateDirectories: true)
            _ = files.createFile(atPath: work + "/" + name, contents: Data("The text of \(name).\n".utf8))
        }
        try files.createSymbolicLink(atPath: work + "/link.pdf", withDestinationPath: "report.pdf")
        try files.copyItem(atPath: Repository.url("appInfo.json").path, toPath: work + "/appInfo.json")
        try files.copyItem(atPath: Repository.url("img").path, toPath: work + "/img")
        try files.copyItem(atPath: Repository.url("img/icon-1024.png").path, toPath: work + "/icon-1024.png")
        // An iOS app: Info.plist at its root, one 1024 px icon listed under CFBundleIcons.
        try files.createDirectory(atPath: work + "/Editor.app", withIntermediateDirectories: true)
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
              <key>CFBundleIdentifier</key><string>com.example.editor</string>
              <key>CFBundleName</key><string>Editor</string>
              <key>CFBundleIcons</key><dict><key>CFBundlePrimaryIcon</key><dict>
                <key>CFBundleIconFiles</key><array><string>AppIcon</string></array>
              </dict></dict>
            </dict></plist>

            """
        _ = files.createFile(atPath: work + "/Editor.app/Info.plist", contents: Data(plist.utf8))
        try files.copyItem(atPath: Repository.url("img/icon-1024.png").path, toPath: work + "/Editor.app/AppIcon.png")
        return work
    }
}

/// The runner itself: a doc that drifts must fail, so each marker matches what
/// docs/doc-examples.md says and nothing more.
@Suite("the doc example runner")
struct DocExampleRunnerTests {
    @Test("a literal line, [..], (re) and ... match only what they say")
    func lineMarkers() {
        #expect(DocOutputMatcher.matches(["a", "b"], ["a", "b"]))
        #expect(!DocOutputMatcher.matches(["a", "b"], ["a", "b", "c"]))
        #expect(!DocOutputMatcher.matches(["a", "b"], ["a"]))
        #expect(!DocOutputMatcher.matches(["a"], ["a "]))
        #expect(DocOutputMatcher.matches(["xds [..] (commit [..])"], ["xds 0.2.0 (commit 4a44452)"]))
        #expect(!DocOutputMatcher.matches(["xds [..] (commit [..])"], ["xds 0.2.0 commit 4a44452"]))
        #expect(DocOutputMatcher.matches(["[..]"], ["anything"]))
        #expect(DocOutputMatcher.matches(["a.b"], ["a.b"]) && !DocOutputMatcher.matches(["a.b"], ["axb"]))
        #expect(!DocOutputMatcher.matches(["a[..]"], ["a", "b"]), "[..] stays within its line")
        #expect(DocOutputMatcher.matches(["icon-[0-9]+\\.png (re)"], ["icon-58.png"]))
        #expect(!DocOutputMatcher.matches(["icon-[0-9]+\\.png (re)"], ["icon-58.pngx"]), "a regex matches the whole line")
        #expect(!DocOutputMatcher.matches(["icon-[0-9]+\\.png (re)"], ["icon-x.png"]))
        #expect(DocOutputMatcher.matches(["first", "...", "last"], ["first", "last"]))
        #expect(DocOutputMatcher.matches(["first", "...", "last"], ["first", "1", "2", "last"]))
        #expect(!DocOutputMatcher.matches(["first", "...", "last"], ["first", "1", "2"]))
        #expect(DocOutputMatcher.matches(["..."], []))
    }

    @Test("(any order) lines match a permutation, no more and no fewer")
    func anyOrder() {
        let group = ["share/todo.txt (any order)", "share/docs/[..] (any order)", "end"]
        #expect(DocOutputMatcher.matches(group, ["share/todo.txt", "share/docs/notes.md", "end"]))
        #expect(DocOutputMatcher.matches(group, ["share/docs/notes.md", "share/todo.txt", "end"]))
        #expect(!DocOutputMatcher.matches(group, ["share/todo.txt", "share/todo.txt", "end"]))
        #expect(!DocOutputMatcher.matches(group, ["share/todo.txt", "end"]))
        #expect(!DocOutputMatcher.matches(group, ["share/todo.txt", "share/docs/a", "share/docs/b", "end"]))
        #expect(!DocOutputMatcher.matches(group, ["share/todo.txt", "end", "share/docs/a"]))
    }

    @Test("fences, commands, continuation lines and # exit are read as the doc writer meant")
    func reading() throws {
        let markdown = """
            Text with an inline ```` ```console ```` fence.
            ````markdown
            ```console
            $ not run: inside a four-backtick block
            ```
            ````
            ```console
            $ xds set a.txt --id com.example.a \\
                --name A
            $ xds show b.txt
            xds: b.txt: no x-document-source attribute
            # exit 1
            ```
            ```sh
            make deb
            ```
            * a list item:

              ```console
              $ xds show c.txt
                indented output
              ```
            """
        let blocks = DocBlock.blocks(in: markdown, file: "x.md")
        #expect(blocks.map(\.language) == ["markdown", "console", "sh", "console"])
        #expect(blocks.last?.body == ["$ xds show c.txt", "  indented output"], "the fence's indentation is taken off, no more")
        let console = try #require(blocks.first { $0.language == "console" })
        #expect(console.line == 7)
        let commands = try console.commands()
        #expect(commands.map(\.text) == ["xds set a.txt --id com.example.a \\\n    --name A", "xds show b.txt"])
        #expect(commands.map(\.line) == [8, 10])
        #expect(commands.map(\.status) == [0, 1])
        #expect(commands[1].expected == ["xds: b.txt: no x-document-source attribute"])
        #expect(throws: DocBlock.Malformed.self) {
            try DocBlock(file: "x.md", line: 1, language: "console", body: ["output first", "$ true"]).commands()
        }
    }

    @Test("one bash runs a block: output split by command, stderr merged, status, cd carried on")
    func running() async throws {
        let scratch = TemporaryFolder()
        let work = scratch.folder("work")
        scratch.folder("work/sub")
        let commands = ["printf 'a\\nb'", "echo out; echo err >&2; (exit 3)", "cd sub && pwd -P | sed 's,.*/,,'", "xds show x 2>/dev/null",
                        "readlink -f \"$(command -v xds)\""]
            .enumerated().map { DocBlock.Command(text: $1, line: $0) }
        let printed = try await DocExampleTests.run(commands, in: work, scratch: scratch)
        let built = URL(fileURLWithPath: xdsPath).resolvingSymlinksInPath().path
        #expect(printed.map(\.lines) == [["a", "b"], ["out", "err"], ["sub"], [], [built]])
        #expect(printed.map(\.status) == [0, 3, 0, 66, 0])
    }
}
