import ArgumentParser
import Foundation
import XDSTestSupport
import Testing
@testable import xds

/// `set`, `show` and `remove` get their file lists without ArgumentParser, whose parsing takes
/// time quadratic in the number of arguments.
@Suite("File arguments handed over directly", .timeLimit(.minutes(3)))
struct FileArgumentTests {
    @Test("files are split from options and their values", arguments: [
        (["xds", "set", "a", "--id", "x.y", "b", "--name", "N", "c"],
         FileArguments.Split(arguments: ["set", "--id", "x.y", "--name", "N", "--", "a"], files: ["a", "b", "c"])),
        (["xds", "set", "--name", "-", "a", "-", "--replace", "--", "--id", "b"],
         FileArguments.Split(arguments: ["set", "--name", "-", "--replace", "--", "a"], files: ["a", "-", "--id", "b"])),
        (["xds", "set", "--name=N", "a"], FileArguments.Split(arguments: ["set", "--name=N", "--", "a"], files: ["a"])),
        (["xds", "remove", "--no-follow", "a", "b"],
         FileArguments.Split(arguments: ["remove", "--no-follow", "--", "a"], files: ["a", "b"])),
        (["xds", "show", "--json", "--", "-a"], FileArguments.Split(arguments: ["show", "--json", "--", "-a"], files: ["-a"])),
    ])
    func split(arguments: [String], expected: FileArguments.Split) {
        #expect(FileArguments.split(arguments, commands: XDS.fileCommands) == expected)
    }

    @Test("left to ArgumentParser: other commands, no file, help", arguments: [
        ["xds", "mask", "a.png"], ["xds", "set", "--id", "a.b"], ["xds", "set", "help"], ["xds", "remove"],
        ["xds", "show", "--help"],
    ])
    func notSplit(arguments: [String]) {
        #expect(FileArguments.split(arguments, commands: XDS.fileCommands) == nil)
    }

    /// The lists of options that take a value must match what ArgumentParser declares, or a
    /// value would be taken for a file (or a file for a value).
    @Test("optionsWithValues matches the parser's options", arguments: ["set", "show", "remove", "where", "strip", "check"])
    func optionsMatchTheParser(command: String) async throws {
        let dump = try await xds(command, "--experimental-dump-help")
        let tool = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let info = try #require(tool["command"] as? [String: Any])
        var declared = Swift.Set<String>()
        for argument in info["arguments"] as? [[String: Any]] ?? [] where argument["kind"] as? String == "option" {
            for name in argument["names"] as? [[String: Any]] ?? [] {
                let kind = name["kind"] as? String, text = name["name"] as? String ?? ""
                declared.insert(kind == "long" ? "--" + text : "-" + text)
            }
        }
        let type = try #require(XDS.fileCommands.first { $0.configuration.commandName == command })
        #expect(type.optionsWithValues == declared)
        if command == "set" { #expect(declared.contains("--id")) }  // the dump was read
    }

    /// The split knows no option by hand: whatever options `set`, `show` and `remove` declare
    /// (read here from `xds CMD --experimental-dump-help`), the argument after one that takes a
    /// value is that value, before the files or among them, and the argument after a flag is a
    /// file. A new option that the split would mis-handle (one taking its value some other way
    /// than from the next argument) fails here too.
    @Test("every option that takes a value keeps its value; flags take none", arguments: ["set", "show", "remove", "where", "strip", "check"])
    func everyDeclaredOption(command: String) async throws {
        let dump = try await xds(command, "--experimental-dump-help")
        let tool = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let info = try #require(tool["command"] as? [String: Any])
        var options: [String] = [], flags: [String] = []
        for argument in info["arguments"] as? [[String: Any]] ?? [] {
            let kind = argument["kind"] as? String
            if kind == "option" {
                #expect(argument["parsingStrategy"] as? String == "default", "\(argument["names"] ?? "")")
            }
            for name in argument["names"] as? [[String: Any]] ?? [] {
                let typed = (name["kind"] as? String == "long" ? "--" : "-") + (name["name"] as? String ?? "")
                if kind == "option" { options.append(typed) } else if kind == "flag" { flags.append(typed) }
            }
        }
        #expect(options.count >= 2 && flags.count >= 2)  // the dump was read
        for option in options {
            #expect(FileArguments.split(["xds", command, option, "VALUE", "FILE"], commands: XDS.fileCommands)
                    == FileArguments.Split(arguments: [command, option, "VALUE", "--", "FILE"], files: ["FILE"]), "\(option)")
            #expect(FileArguments.split(["xds", command, "A", option, "VALUE", "B"], commands: XDS.fileCommands)
                    == FileArguments.Split(arguments: [command, option, "VALUE", "--", "A"], files: ["A", "B"]), "\(option)")
        }
        for flag in flags {
            #expect(FileArguments.split(["xds", command, "A", flag, "B"], commands: XDS.fileCommands)
                    == FileArguments.Split(arguments: [command, flag, "--", "A"], files: ["A", "B"]), "\(flag)")
        }
    }

    @Test("files and options in any order, files after --")
    func mixedOrder() async throws {
        let folder = TemporaryFolder()
        for name in ["a", "b", "-c"] { folder.file(name) }
        let result = try await xds("set", "a", "--name", "N", "b", "--id", "com.example.app", "--", "-c", in: folder.path)
        #expect(result.status == 0, "\(result)")
        // ./-c: getfattr would take "-c" for an option.
        for name in ["a", "b", "./-c"] { #expect(try await folder.attribute(name) != nil, "\(name)") }
        #expect(try await xds("remove", "a", "--", "-c", in: folder.path).status == 0)
        let a = try await folder.attribute("a"), c = try await folder.attribute("./-c"), b = try await folder.attribute("b")
        #expect(a == nil && c == nil && b != nil)
        // Errors still come from ArgumentParser, with status 64.
        let bad = try await xds("set", "a", "--bogus", "b", in: folder.path)
        #expect(bad.status == 64 && bad.stderr.hasPrefix("Error: Unknown option '--bogus'"), "\(bad)")
    }

    /// Command lines of more than `FileArguments.splitThreshold` arguments are split, shorter
    /// ones are ArgumentParser's alone: both must mean the same.
    @Test("a long command line is split and means what the same short one means")
    func longLineSplit() async throws {
        let folder = TemporaryFolder()
        let names = (0..<(FileArguments.splitThreshold + 10)).map { "f\($0)" }
        for name in names + ["-c"] { folder.file(name) }
        let half = names.count / 2
        let set = try await xds(["set"] + names[..<half] + ["--name", "N"] + names[half...]
                          + ["--id", "com.example.app", "-j", "--", "-c"], in: folder.path)
        // "-j" is not an option of set: a file named -j would be after --; before it, an error.
        #expect(set.status == 64 && set.stderr.hasPrefix("Error: Unknown option '-j'"), "\(set.stderr.prefix(300))")
        let good = try await xds(["set"] + names[..<half] + ["--name", "N"] + names[half...]
                           + ["--id", "com.example.app", "--", "-c"], in: folder.path)
        #expect(good.status == 0, "\(good.stderr.prefix(300))")
        for name in [names[0], names[half], names[names.count - 1], "./-c"] {
            #expect(try await folder.attribute(name) != nil, "\(name)")
        }
        // show with an option taking a value (-j 1) among the files: each file once, in order.
        let shown = try await xds(["show", "--json"] + names[..<half] + ["-j", "1"] + names[half...], in: folder.path)
        #expect(shown.status == 0, "\(shown.stderr.prefix(300))")
        #expect(shown.stdout.split(separator: "\n").count == names.count)
    }

    /// 20 000 files: ArgumentParser alone took 25 s for set and remove in a release build;
    /// handed over directly it is well under a second. The time limit (generous for a debug
    /// build on a busy machine) still fails the quadratic version; the figures themselves are
    /// in Benchmarks/RESULTS.md.
    @Test("20 000 files: set and remove take time linear in the count")
    func manyFiles() async throws {
        let folder = TemporaryFolder()
        let count = 20_000
        let names = (0..<count).map { "f\($0)" }
        for name in names { _ = FileManager.default.createFile(atPath: folder.path + "/" + name, contents: nil) }
        let set = try await xds(["set"] + names + ["--id", "com.example.app", "--name", "N"], in: folder.path)
        #expect(set.status == 0, "\(set.stderr.prefix(300))")
        let first = try await folder.attribute("f0"), last = try await folder.attribute("f\(count - 1)")
        #expect(first != nil && last != nil)
        let remove = try await xds(["remove"] + names, in: folder.path)
        #expect(remove.status == 0)
        #expect(try await folder.attribute("f\(count / 2)") == nil)
    }
}
