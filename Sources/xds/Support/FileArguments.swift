import ArgumentParser
import XDocSource
import XDSSystem

// Everything xds does with the command line before, beside or instead of ArgumentParser:
//
// 1. `xds show FILE`, `xds mask IN ...` and `xds icon ...` without ArgumentParser (the plain
//    command lines of PlainCommandLine.swift): its parsing (reflection, protocol-conformance
//    scans) costs more than the rest of `show`, a tenth of a 58 px `mask` and nearly half of
//    an `icon` answered from the cache.
// 2. Long file lists of ``XDS/fileCommands`` (`set`, `show`, `remove`; more than
//    ``FileArguments/splitThreshold`` arguments) handed to the command directly
//    (``FileArguments/split(_:commands:)``): ArgumentParser takes time quadratic in the number
//    of arguments. Shorter command lines are ArgumentParser's alone.
// 3. File names that are not UTF-8 refused in words (``FileArguments/problem(_:)``).
//
// ``XDS/Route`` chooses between them in one place; the figures are in Benchmarks/RESULTS.md.
// Which arguments are option values is read from ArgumentParser's own model of each command
// (``FileArguments/optionsWithValues(of:)``), so a new option needs nothing here.

/// Command-line file names that `xds` cannot reach.
///
/// Linux file names are bytes; Swift's `CommandLine.arguments` repairs one that is not valid
/// UTF-8 (invalid bytes become U+FFFD), so the repaired name would name another, usually
/// absent, file: "no such file or folder" about a file that `ls` shows. Such names are told
/// apart here and refused in words instead.
enum FileArguments {
    /// The arguments whose bytes are not valid UTF-8, as `CommandLine.arguments` spells them.
    static let notUTF8: Swift.Set<String> = {
        var names = Swift.Set<String>()
        for index in 1..<max(1, Int(CommandLine.argc)) {
            guard let raw = CommandLine.unsafeArgv[index] else { continue }
            if String(validatingCString: raw) == nil { names.insert(String(cString: raw)) }
        }
        return names
    }()

    /// Why `file` cannot be used, or nil when it can.
    static func problem(_ file: String) -> String? {
        guard !notUTF8.isEmpty, notUTF8.contains(file) else { return nil }
        return "the file name is not valid UTF-8, which xds cannot handle (rename the file)"
    }
}

// MARK: - File lists beside ArgumentParser

/// A command whose positional arguments are only file names.
protocol FileListCommand: ParsableCommand {
    /// The files to act on.
    var files: [String] { get set }
}

extension FileListCommand {
    /// The options that take a value, e.g. `--id` (the argument after one is not a file); nil
    /// when ArgumentParser's model of the command cannot be read or has an option the split
    /// cannot handle. See ``FileArguments/optionsWithValues(of:)``.
    static var optionsWithValues: Swift.Set<String>? { FileArguments.optionsWithValues(of: self) }
}

extension XDS.Set: FileListCommand {}
extension XDS.Show: FileListCommand {}
extension XDS.Remove: FileListCommand {}
extension XDS.Where: FileListCommand {}
extension XDS.Strip: FileListCommand {}

extension FileArguments {
    /// The argument count above which `set`, `show` and `remove` command lines are split.
    ///
    /// Below it ArgumentParser's quadratic cost is small (~0.4 ms at 128 arguments) and less
    /// than reading the options that take values from its model (~0.8 ms,
    /// ``optionsWithValues(of:)``), so a short command line starts as fast as ArgumentParser
    /// alone and is parsed by it alone; above it the split saves seconds (16 000 files: 5.7 s).
    static let splitThreshold = 128

    /// A command line with its file names taken out.
    struct Split: Equatable {
        /// What ArgumentParser parses (without the program name): the command, its options and
        /// their values in their order, then `--` and the first file.
        var arguments: [String]
        /// Every file name, in order.
        var files: [String]
    }

    /// Takes the file names out of a `set`, `show` or `remove` command line, or returns nil to
    /// leave it all to ArgumentParser (another command, no file, or a `help` word).
    ///
    /// ArgumentParser removes each parsed argument from an array, which takes time quadratic
    /// in their count (16 000 files took 5.7 s); it is given one file instead, and the command
    /// gets the rest from here (and is validated again with them all: ``XDS/parseLongList(_:line:)``). A file is an argument that does not start with `-` (`-` alone
    /// is a file) and is not the value of one of the command's ``FileListCommand/optionsWithValues``;
    /// after `--` every argument is a file.
    static func split(_ arguments: [String], commands: [any FileListCommand.Type]) -> Split? {
        guard arguments.count >= 3,
            let command = commands.first(where: { $0.configuration.commandName == arguments[1] })
        else { return nil }
        // Read when first needed (an option with an argument after it): it costs start-up time
        // that `xds remove FILE...` does without.
        var optionsWithValues: Swift.Set<String>?
        var kept = [arguments[1]], files: [String] = []
        var index = 2
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                files += arguments[index...]
                break
            }
            if argument == "help" { return nil }  // let ArgumentParser decide what that means
            if argument.hasPrefix("-") && argument != "-" {
                kept.append(argument)
                guard index < arguments.count else { continue }
                if optionsWithValues == nil {
                    guard let options = command.optionsWithValues else { return nil }
                    optionsWithValues = options
                }
                // Each value the option (or group of short options) takes is the next argument
                // that is a value, as ArgumentParser takes it; `-rj 2`: `2` is -j's.
                for _ in 0..<valuesTaken(by: argument, optionsWithValues: optionsWithValues ?? []) {
                    guard index < arguments.count, isValue(arguments[index]) else { break }
                    kept.append(arguments[index])
                    index += 1
                }
            } else {
                files.append(argument)
            }
        }
        guard let first = files.first else { return nil }
        return Split(arguments: kept + ["--", first], files: files)
    }

    /// How many of the following arguments `option` takes as values, as ArgumentParser reads
    /// it (SplitArguments): none for `--name=value` and `-n=value`; one for an option in
    /// `optionsWithValues` (`--jobs`, `-j`); for a group of short options (`-rj`, `-jr`), one
    /// per short option in it that takes a value, in order (`-rj2` is the group r, j, 2: `2` is
    /// not a value but an unknown option, which ArgumentParser reports).
    static func valuesTaken(by option: String, optionsWithValues: Swift.Set<String>) -> Int {
        guard !option.contains("=") else { return 0 }
        if optionsWithValues.contains(option) { return 1 }
        guard !option.hasPrefix("--") else { return 0 }
        return option.dropFirst().count { optionsWithValues.contains("-" + String($0)) }
    }

    /// Whether ArgumentParser takes `argument` as a value (what an option's value must be):
    /// anything that does not start with `-`, and `-` alone.
    static func isValue(_ argument: String) -> Bool {
        !argument.hasPrefix("-") || argument == "-"
    }
}

extension FileArguments {
    /// The options of `command` that take a value, as typed (`--id`, `-j`), read from
    /// ArgumentParser's own model of it: the tool info that `xds CMD --experimental-dump-help`
    /// prints (ArgumentParserToolInfo's `ToolInfoV0`), option groups included. Nil, leaving the
    /// whole command line to ArgumentParser, when the model cannot be read or an option takes
    /// its value otherwise than from the one argument after it (a parsing strategy other than
    /// the default, which ``split(_:commands:)`` does not model), or a flag is spelt `-name`.
    ///
    /// Only the split asks (command lines of more than ``splitThreshold`` arguments), and only
    /// once an option has an argument after it: building and reading the model costs millions
    /// of instructions (Benchmarks/RESULTS.md, issue 15). The JSON is written by the vendored
    /// ArgumentParser's own encoder and read with XDocSource's `JSONReader`.
    static func optionsWithValues(of command: any ParsableCommand.Type) -> Swift.Set<String>? {
        guard let model = try? JSONReader.parse(Array(command._dumpHelp().utf8)),
            case .array(let arguments)? = model["command"]?["arguments"]
        else { return nil }
        var options = Swift.Set<String>()
        for argument in arguments {
            guard argument["kind"] == .string("option") else {
                // A flag spelt `-name` would be read by ArgumentParser as a whole where the
                // split reads `-rj` as a group of short options (``valuesTaken(by:optionsWithValues:)``).
                if case .array(let names)? = argument["names"],
                    names.contains(where: { $0["kind"] == .string("longWithSingleDash") }) { return nil }
                continue
            }
            guard argument["parsingStrategy"] == .string("default") else { return nil }
            guard case .array(let names)? = argument["names"] else { continue }
            for name in names {
                // kind: "long" (`--name`), "short" (`-n`) or "longWithSingleDash" (`-name`).
                guard case .string(let kind)? = name["kind"], case .string(let text)? = name["name"] else { return nil }
                options.insert(kind == "long" ? "--" + text : "-" + text)
            }
        }
        return options
    }
}
