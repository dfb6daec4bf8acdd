import ArgumentParser
import IconMask
import XDocSource
import XDSSystem

// Everything xds does with the command line before, beside or instead of ArgumentParser:
//
// 1. `xds show FILE`, `xds mask IN ...` and `xds icon ...` without ArgumentParser
//    (``XDS/Show/fastPath(_:)``, ``XDS/Mask/fastPath(_:)``, ``XDS/Icon/fastPath(_:)``): its
//    parsing (reflection, protocol-conformance scans) costs more than the rest of `show`, a
//    tenth of a 58 px `mask` and nearly half of an `icon` answered from the cache.
// 2. Long file lists of `set`, `show` and `remove` (more than ``FileArguments/splitThreshold``
//    arguments) handed to the command directly (``FileArguments/split(_:commands:)``):
//    ArgumentParser takes time quadratic in the number of arguments. Shorter command lines are
//    ArgumentParser's alone.
// 3. File names that are not UTF-8 refused in words (``FileArguments/problem(_:)``).
//
// `XDS.main` tries them in that order; the figures are in Benchmarks/RESULTS.md. Which
// arguments are option values is read from ArgumentParser's own model of each command
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

// MARK: - `xds show FILE` without ArgumentParser

extension XDS.Show {
    /// `xds show` without ArgumentParser, for the common plain command lines: parsing with
    /// it costs more than the rest of the command (type metadata and conformance lookups).
    /// Returns nil, leaving the work to ArgumentParser, for anything but `show` followed by
    /// file names, `--json` and `--no-follow`.
    static func fastPath(_ arguments: [String]) -> ExitStatus? {
        guard arguments.count >= 3, arguments[1] == "show" else { return nil }
        var files: [String] = []
        var json = false, noFollow = false
        for argument in arguments.dropFirst(2) {
            switch argument {
            case "--json": json = true
            case "--no-follow": noFollow = true
            default:
                guard PlainArguments.isOperand(argument) else { return nil }  // `help` too: ArgumentParser's
                files.append(argument)
            }
        }
        guard !files.isEmpty else { return nil }
        return show(files, json: json, followSymlinks: !noFollow).worst
    }
}

extension XDS.Mask {
    /// `xds mask` without ArgumentParser for plain command lines: the input, `--size N`,
    /// `--scale N`, `--shape NAME`, `--no-stroke` and `-o`/`--output FILE`, each at most once,
    /// with values that pass the same checks. Returns nil, leaving the work (and any message)
    /// to ArgumentParser, for anything else: another spelling (`--size=58`), a value that does
    /// not parse or validate, `help`, `-h`, an unknown or repeated option.
    static func fastPath(_ arguments: [String]) -> ExitStatus? {
        guard let (input, options, output) = plainCommandLine(arguments) else { return nil }
        do {
            try run(input: input, options: options, output: output)
        } catch {
            XDS.finish(with: error)
        }
        return .success
    }

    /// What ``fastPath(_:)`` takes from a plain command line, or nil for any other: exactly
    /// what ArgumentParser would parse from it (a test holds both to that).
    static func plainCommandLine(_ arguments: [String]) -> (input: String, options: MaskOptions, output: String?)? {
        guard arguments.count >= 3, arguments[1] == "mask" else { return nil }
        var line = PlainArguments(arguments, from: 2)
        var flags = PlainIconFlags()
        var input: String?
        while let argument = line.next() {
            switch flags.read(argument, from: &line) {
            case true?: continue
            case nil: return nil
            case false?:
                guard input == nil, argument == "-" || PlainArguments.isOperand(argument) else { return nil }
                input = argument
            }
        }
        guard let input, let options = flags.options else { return nil }
        return (input, options, flags.output)
    }
}

// MARK: - `xds icon` without ArgumentParser

extension XDS.Icon {
    /// `xds icon` without ArgumentParser, for plain command lines, as ``XDS/Mask/fastPath(_:)``:
    /// ArgumentParser's parse was nearly half the instructions of an icon answered from the
    /// cache (7.3 M of 16 M). `[FILE]`, `--app-info URL|PATH`, `--cache-dir DIR`, `--offline`,
    /// `--no-cache`, `--allow-http` and the flags of `mask`, each at most once, with values
    /// that pass the same checks; anything else is left to ArgumentParser.
    static func fastPath(_ arguments: [String]) -> ExitStatus? {
        guard let commandLine = plainCommandLine(arguments) else { return nil }
        do {
            try commandLine.run()
        } catch {
            XDS.finish(with: error)
        }
        return .success
    }

    /// What ``fastPath(_:)`` takes from a plain command line, or nil for any other: exactly
    /// what ArgumentParser would parse from it (a test holds both to that).
    static func plainCommandLine(_ arguments: [String]) -> IconCommandLine? {
        guard arguments.count >= 2, arguments[1] == "icon" else { return nil }
        var line = PlainArguments(arguments, from: 2)
        var flags = PlainIconFlags()
        var file: String?, appInfo: String?, cacheDirectory: String?
        var offline = false, noCache = false, allowHTTP = false
        while let argument = line.next() {
            switch flags.read(argument, from: &line) {
            case true?: continue
            case nil: return nil
            case false?: break
            }
            switch argument {
            case "--app-info":
                guard appInfo == nil, let value = line.value(), !value.isEmpty else { return nil }
                appInfo = value
            case "--cache-dir":
                guard cacheDirectory == nil, let value = line.value(), !value.isEmpty else { return nil }
                cacheDirectory = value
            case "--offline":
                guard !offline else { return nil }
                offline = true
            case "--no-cache":
                guard !noCache else { return nil }
                noCache = true
            case "--allow-http":
                guard !allowHTTP else { return nil }
                allowHTTP = true
            default:
                guard file == nil, PlainArguments.isOperand(argument) else { return nil }
                file = argument
            }
        }
        guard !(offline && noCache), let options = flags.options else { return nil }
        return IconCommandLine(file: file, appInfo: appInfo, options: options, output: flags.output, offline: offline,
                               noCache: noCache, cacheDirectory: cacheDirectory, allowHTTP: allowHTTP)
    }
}

/// A plain command line read one argument at a time, as ArgumentParser reads it.
struct PlainArguments {
    private let arguments: [String]
    private var index: Int

    init(_ arguments: [String], from start: Int) {
        self.arguments = arguments
        self.index = start
    }

    /// The next argument, if any.
    mutating func next() -> String? {
        guard index < arguments.count else { return nil }
        index += 1
        return arguments[index - 1]
    }

    /// The next argument as the value of an option, if it is one ArgumentParser would take.
    mutating func value() -> String? {
        guard index < arguments.count, !arguments[index].hasPrefix("-") else { return nil }
        return next()
    }

    /// Whether `argument` is plainly a positional one (not an option, not empty, not `help`).
    static func isOperand(_ argument: String) -> Bool {
        !(argument.isEmpty || argument.hasPrefix("-")) && argument != "help"
    }
}

/// The flags of ``IconOptions`` and `-o`/`--output` on a plain command line (`mask`, `icon`).
struct PlainIconFlags {
    var size: Int?, scale: Int?, shape: IconShape?, noStroke = false, output: String?

    /// Reads `flag` (with its value from `line`) when it is one of these: true when read,
    /// false when `flag` is another, nil when it is one but not plainly given (a repeat, a
    /// value that does not parse): the line is then left to ArgumentParser.
    mutating func read(_ flag: String, from line: inout PlainArguments) -> Bool? {
        switch flag {
        case "--size":
            guard size == nil, let text = line.value(), let n = Int(text) else { return nil }
            size = n
        case "--scale":
            guard scale == nil, let text = line.value(), let n = Int(text) else { return nil }
            scale = n
        case "--shape":
            guard shape == nil, let text = line.value(), let s = IconShape(rawValue: text) else { return nil }
            shape = s
        case "--no-stroke":
            guard !noStroke else { return nil }
            noStroke = true
        case "-o", "--output":
            guard output == nil, let text = line.value() else { return nil }
            output = text
        default:
            return false
        }
        return true
    }

    /// The options, when they and the output pass the checks `validate()` makes (else nil:
    /// ArgumentParser words the problem).
    var options: MaskOptions? {
        let options = MaskOptions(sizePoints: size ?? 29, scale: scale ?? 1, shape: shape ?? .continuous, stroke: !noStroke)
        guard (try? options.validate()) != nil, (try? PNGDestination(output: output).validate()) != nil else { return nil }
        return options
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

extension XDS {
    /// The commands whose file list is handed over without ArgumentParser (see ``FileArguments``).
    static let fileCommands: [any FileListCommand.Type] = [Set.self, Show.self, Remove.self]

    /// Parses the options with ArgumentParser and hands the command its whole file list
    /// directly, then runs it and exits as ArgumentParser's `main` would.
    static func run(_ split: FileArguments.Split) -> Never {
        do {
            var command = try parseAsRoot(split.arguments)
            if var listing = command as? any FileListCommand {
                listing.files = split.files
                command = listing
            }
            try command.run()
        } catch {
            finish(with: error)
        }
        ExitStatus.success.exitProcess()
    }
}

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
    /// gets the rest from here. A file is an argument that does not start with `-` (`-` alone
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
