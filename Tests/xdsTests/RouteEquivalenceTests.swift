import ArgumentParser
import Foundation
import Testing
import XDSTestSupport
import XDocSource
import XDSSystem
@testable import xds

/// The fast paths of `show`, `mask` and `icon` (``XDS/Route``) must do exactly what
/// ArgumentParser's route does with the same command line. Command lines are generated from each
/// command's own option model (ArgumentParser's dump-help JSON, so a new option is drawn too):
/// flags and options under every name, values good and bad, `--name=value`, missing values,
/// grouped short options (`-rj 2`), repeats, `--`, `-h`, `help`, unknown options.
@Suite("fast paths and ArgumentParser agree (generated command lines)", .timeLimit(.minutes(3)))
struct RouteEquivalenceTests {
    static let commands = ["show", "mask", "icon"]
    static let seeds: [UInt64] = Array(1...8)
    static let linesPerSeed = 256

    /// Every value a fast path takes is the value ArgumentParser parses from the same line (and
    /// ArgumentParser accepts it: its parse runs every validate()); a line it does not take is
    /// ArgumentParser's.
    @Test("a fast path takes a command line only as ArgumentParser parses it", arguments: commands)
    func sameValues(command: String) throws {
        let model = try OptionModel(command)
        var taken = 0, total = 0
        for seed in Self.seeds {
            var random = SplitMix64(seed: seed &* 0x1_0000 &+ UInt64(command.utf8.count))
            for _ in 0..<Self.linesPerSeed {
                let line = model.commandLine(using: &random).flatMap(\.arguments)
                total += 1
                let route = XDS.Route(["xds", command] + line)
                guard route != .parser else { continue }
                taken += 1
                let parsed = Result { try XDS.parseAsRoot([command] + line) }
                let message: Comment = "seed \(seed): \(line) takes \(route); ArgumentParser: \(parsed)"
                switch route {
                case .fastShow(let fast): #expect((try? parsed.get() as? XDS.Show)?.commandLine == fast, message)
                case .fastMask(let fast): #expect((try? parsed.get() as? XDS.Mask)?.commandLine == fast, message)
                case .fastIcon(let fast): #expect((try? parsed.get() as? XDS.Icon)?.commandLine == fast, message)
                default: Issue.record(message)
                }
            }
        }
        // Not a test that cannot fail: a good share of the lines must reach the fast path, and
        // a good share must not.
        #expect(taken >= total / 40 && taken <= total - total / 5, "\(taken) of \(total) lines took the fast path")
    }

    /// Long file lists (``XDS/Route/longList(_:)``: more than 128 arguments, the files handed
    /// over beside ArgumentParser): each generated line with 130 files mixed into it is
    /// accepted or refused as ArgumentParser takes the whole line, with the same values or the
    /// same words and status. Before issue 31 the long route validated the command with its
    /// first file only (`strip a.zip b.zip … -o clean.zip` copied a.zip and exited 0), and
    /// worded some errors otherwise (`--store` last without a value: "missing value" where
    /// ArgumentParser takes the line's first file as the value and refuses it).
    @Test("a long file list is validated and parsed as ArgumentParser parses the whole line",
          arguments: XDS.fileCommands.map { $0.configuration.commandName! })
    func longLists(command: String) throws {
        let model = try OptionModel(command)
        var long = 0, refused = 0
        for seed in Self.seeds {
            var random = SplitMix64(seed: seed &* 0x2_0000 &+ UInt64(command.utf8.count))
            for _ in 0..<(Self.linesPerSeed / 16) {
                var pieces = model.commandLine(using: &random)
                for index in 0..<130 {
                    pieces.insert(CommandLinePiece(arguments: ["f\(index).txt"], isOperand: true),
                                  at: Int.random(in: 0...pieces.count, using: &random))
                }
                let line = pieces.flatMap(\.arguments)
                guard case .longList(let split) = XDS.Route(["xds", command] + line) else { continue }
                long += 1
                let viaSplit = Result { try XDS.parseLongList(split, line: [command] + line) }
                let whole = Result { try XDS.parseAsRoot([command] + line) }
                let message: Comment = "seed \(seed): \(line)"
                switch (viaSplit, whole) {
                case (.success(let split), .success(let parsed)):
                    #expect(String(describing: split) == String(describing: parsed), message)
                case (.failure(let split), .failure(let parsed)):
                    refused += 1
                    #expect(XDS.fullMessage(for: split) == XDS.fullMessage(for: parsed), message)
                    #expect(XDS.exitCode(for: split) == XDS.exitCode(for: parsed), message)
                default:
                    Issue.record("\(message): the long route \(viaSplit), ArgumentParser \(whole)")
                }
            }
        }
        // Lines of both kinds were compared.
        #expect(long >= Self.seeds.count * Self.linesPerSeed / 16 / 2 && refused > 0, "\(long) long lines, \(refused) refused")
    }

    /// The same through the built binary: each generated line the fast path takes, and its twin
    /// that the fast path declines (the options first, spelt as given, then `--` and the operands:
    /// the same command to ArgumentParser), give the same standard output, standard error, exit
    /// status and output files.
    @Test("the binary answers a fast line and its ArgumentParser twin alike",
          arguments: commands)
    func sameOutput(command: String) async throws {
        let folder = try await Fixture()
        defer { folder.remove() }
        let model = try OptionModel(command)
        var compared = 0
        var random = SplitMix64(seed: 0x7E57 &+ UInt64(command.utf8.count))
        var tries = 0
        while compared < 16 && tries < 2_000 {
            tries += 1
            let pieces = model.commandLine(using: &random)
            let line = pieces.flatMap(\.arguments)
            guard XDS.Route(["xds", command] + line) != .parser else { continue }
            let twin = pieces.filter { !$0.isOperand }.flatMap(\.arguments) + ["--"]
                + pieces.filter(\.isOperand).flatMap(\.arguments)
            #expect(XDS.Route(["xds", command] + twin) == .parser, "\(twin)")
            let fast = try await folder.run([command] + line)
            let parser = try await folder.run([command] + twin)
            #expect(fast.status == parser.status && fast.stdout == parser.stdout && fast.stderr == parser.stderr
                    && fast.files == parser.files,
                    "\(line): \(fast.status) \(fast.stderr) / \(twin): \(parser.status) \(parser.stderr)")
            compared += 1
        }
        #expect(compared == 16, "only \(compared) of \(tries) lines took the fast path")
    }
}

/// One piece of a generated command line: an operand, or an option with its values.
struct CommandLinePiece {
    var arguments: [String]
    var isOperand = false
}

/// A command's flags and options as ArgumentParser models them (`xds CMD --experimental-dump-help`).
struct OptionModel {
    /// Every spelling of each flag (`-r`, `--recursive`) and of each option that takes a value.
    var flags: [[String]] = []
    var options: [[String]] = []
    var shortFlags: [Character] = [], shortOptions: [Character] = []

    init(_ command: String) throws {
        let type = try #require(XDS.configuration.subcommands.first { $0.configuration.commandName == command })
        let model = try JSONReader.parse(Array(type._dumpHelp().utf8))
        guard case .array(let arguments)? = model["command"]?["arguments"] else { throw ValidationError("no model") }
        for argument in arguments {
            guard case .string(let kind)? = argument["kind"], kind != "positional",
                  case .array(let names)? = argument["names"] else { continue }
            var spellings: [String] = []
            for name in names {
                guard case .string(let nameKind)? = name["kind"], case .string(let text)? = name["name"] else { continue }
                spellings.append(nameKind == "long" ? "--" + text : "-" + text)
                if nameKind == "short", let letter = text.first {
                    if kind == "option" { shortOptions.append(letter) } else { shortFlags.append(letter) }
                }
            }
            if kind == "option" { options.append(spellings) } else { flags.append(spellings) }
        }
    }

    /// Values to draw for an option, by its spellings: good and bad ones; any other option
    /// (one added later) gets the generic ones.
    static func values(for spellings: [String]) -> [String] {
        switch spellings.last ?? "" {
        case "--size": ["29", "58", "60", "+58", "0", "-3", "683", "2048", "x"]
        case "--scale": ["1", "2", "3", "4", "0"]
        case "--shape": ["continuous", "circular", "none", "round"]
        case "--output": ["out.png", "o.png", "out.png", "", "-x", "-"]
        case "--app-info": ["appInfo.json", "appInfo.json", "missing.json", "", "-x"]
        case "--cache-dir": ["cache", "cache", "", "-x"]
        case "--archive-limit": ["1G", "512M", "0", "x"]
        case "--jobs": ["1", "2", "0", "300", "-1"]
        default: ["value", "1", "", "-v"]
        }
    }

    static let operands = ["a.txt", "plain.txt", "in.png", "in.png", "a.txt", "missing.txt", "-", "help", "", "-x"]
    static let oddities = [["--"], ["-h"], ["--help"], ["--bogus"], ["-"]]

    /// A random command line of up to five pieces.
    func commandLine(using random: inout SplitMix64) -> [CommandLinePiece] {
        var pieces: [CommandLinePiece] = []
        for _ in 0..<Int.random(in: 0...5, using: &random) {
            switch Int.random(in: 0..<16, using: &random) {
            case 0..<6:
                pieces.append(CommandLinePiece(arguments: [Self.operands.randomElement(using: &random)!], isOperand: true))
            case 6..<9:
                guard let flag = flags.randomElement(using: &random) else { continue }
                pieces.append(CommandLinePiece(arguments: [flag.randomElement(using: &random)!]))
            case 9..<14:
                guard let option = options.randomElement(using: &random) else { continue }
                let name = option.randomElement(using: &random)!
                let value = Self.values(for: option).randomElement(using: &random)!
                switch Int.random(in: 0..<10, using: &random) {
                case 0: pieces.append(CommandLinePiece(arguments: [name + "=" + value]))
                case 1: pieces.append(CommandLinePiece(arguments: [name]))
                default: pieces.append(CommandLinePiece(arguments: [name, value]))
                }
            case 14:
                // A group of short options (`-rj 2`): each option in it takes the next value.
                let letters = (0..<Int.random(in: 2...3, using: &random)).compactMap { _ in
                    (shortFlags + shortOptions).randomElement(using: &random)
                }
                guard !letters.isEmpty else { continue }
                let values = letters.filter(shortOptions.contains).map { letter in
                    Self.values(for: options.first { $0.contains("-" + String(letter)) } ?? []).randomElement(using: &random)!
                }
                pieces.append(CommandLinePiece(arguments: ["-" + String(letters)] + values))
            default:
                pieces.append(CommandLinePiece(arguments: Self.oddities.randomElement(using: &random)!))
            }
        }
        return pieces
    }
}

/// A folder with what the generated lines name: a.txt with a value (no appInfoURL), plain.txt
/// without, in.png, appInfo.json listing in.png; the cache inside it.
struct Fixture {
    let path: String

    init() async throws {
        path = try ScratchFolder.make(prefix: "xds-route-tests").path
        try Data("a\n".utf8).write(to: URL(fileURLWithPath: path + "/a.txt"))
        try Data("plain\n".utf8).write(to: URL(fileURLWithPath: path + "/plain.txt"))
        try MaskHarness.writePNG(path + "/in.png", width: 64, height: 64) { x, y in
            (UInt8(x * 4), UInt8(y * 4), 128, 255)
        }
        try Data(#"[{"width": 58, "height": 58, "src": "in.png"}]"#.utf8)
            .write(to: URL(fileURLWithPath: path + "/appInfo.json"))
        let set = try await xds(["set", "a.txt", "--id", "a.b", "--name", "N"], in: path)
        #expect(set.status == 0, "\(set)")
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// What one run of `xds` did: its status and output, and the files it wrote (then removed).
    struct Outcome {
        var status: Int32
        var stdout: Data
        var stderr: String
        var files: [String: Data]
    }

    func run(_ arguments: [String]) async throws -> Outcome {
        let result = try await ProcessRunner.run(xdsPath, arguments, in: path,
                                           environment: ["HOME": path, "XDG_CACHE_HOME": path + "/xdg-cache"],
                                           timeLimit: 60)
        var files: [String: Data] = [:]
        for name in ["out.png", "o.png"] {
            let url = URL(fileURLWithPath: path + "/" + name)
            if let data = try? Data(contentsOf: url) { files[name] = data }
            try? FileManager.default.removeItem(at: url)
        }
        return Outcome(status: result.status, stdout: result.stdoutBytes, stderr: result.stderr, files: files)
    }
}
