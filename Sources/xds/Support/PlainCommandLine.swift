import IconMask

// The fast paths' reading of plain command lines (``XDS/Route``): `show`, `mask` and `icon`
// without ArgumentParser, whose parse costs more than the rest of `show FILE`, a tenth of a
// 58 px `mask` and nearly half of an `icon` answered from the cache (Benchmarks/RESULTS.md).
//
// Only the syntax is read here. Each reader builds the command's own plain value
// (``ShowCommandLine``, ``MaskCommandLine``, ``IconCommandLine``), starting from that value's
// defaults, and checks it with its `validate()`, the one ArgumentParser's parse calls too.
// Anything else (another spelling such as `--size=58`, `help`, `-h`, an unknown or repeated
// option, a value that does not parse or validate) returns nil: the command line is then
// ArgumentParser's, which words any problem. RouteEquivalenceTests holds every value read here
// equal to ArgumentParser's parse of the same line, on generated command lines.

extension ShowCommandLine {
    /// `xds show` followed by files, `--json` and `--no-follow` (`arguments` without the
    /// program's and the command's names), or nil.
    init?(plain arguments: ArraySlice<String>) {
        var line = ShowCommandLine(files: [])
        for argument in arguments {
            switch argument {
            case "--json": line.json = true
            case "--no-follow": line.noFollow = true
            default:
                guard PlainArguments.isOperand(argument) else { return nil }  // `help` too: ArgumentParser's
                line.files.append(argument)
            }
        }
        guard !line.files.isEmpty, (try? line.validate()) != nil else { return nil }
        self = line
    }
}

extension MaskCommandLine {
    /// `xds mask` with the input, `--size N`, `--scale N`, `--shape NAME`, `--no-stroke` and
    /// `-o`/`--output FILE`, each at most once (`arguments` without the program's and the
    /// command's names), or nil.
    init?(plain arguments: ArraySlice<String>) {
        var line = PlainArguments(arguments)
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
        guard let input else { return nil }
        self.init(input: input, options: flags.options, output: flags.output)
        guard (try? validate()) != nil else { return nil }
    }
}

extension IconCommandLine {
    /// `xds icon` with `[FILE]`, `--app-info URL|PATH`, `--cache-dir DIR`, `--offline`,
    /// `--any-cached`, `--no-cache`, `--allow-http` and the flags of `mask`, each at most once (`arguments`
    /// without the program's and the command's names), or nil.
    init?(plain arguments: ArraySlice<String>) {
        var line = PlainArguments(arguments)
        var flags = PlainIconFlags()
        var plain = IconCommandLine()
        while let argument = line.next() {
            switch flags.read(argument, from: &line) {
            case true?: continue
            case nil: return nil
            case false?: break
            }
            switch argument {
            case "--app-info":
                guard plain.appInfo == nil, let value = line.value() else { return nil }
                plain.appInfo = value
            case "--cache-dir":
                guard plain.cacheDirectory == nil, let value = line.value() else { return nil }
                plain.cacheDirectory = value
            case "--offline":
                guard !plain.offline else { return nil }
                plain.offline = true
            case "--no-cache":
                guard !plain.noCache else { return nil }
                plain.noCache = true
            case "--any-cached":
                guard !plain.anyCached else { return nil }
                plain.anyCached = true
            case "--allow-http":
                guard !plain.allowHTTP else { return nil }
                plain.allowHTTP = true
            default:
                guard plain.file == nil, PlainArguments.isOperand(argument) else { return nil }
                plain.file = argument
            }
        }
        plain.options = flags.options
        plain.output = flags.output
        guard (try? plain.validate()) != nil else { return nil }
        self = plain
    }
}

/// A plain command line read one argument at a time, as ArgumentParser reads it.
struct PlainArguments {
    private let arguments: ArraySlice<String>
    private var index: Int

    init(_ arguments: ArraySlice<String>) {
        self.arguments = arguments
        self.index = arguments.startIndex
    }

    /// The next argument, if any.
    mutating func next() -> String? {
        guard index < arguments.endIndex else { return nil }
        index += 1
        return arguments[index - 1]
    }

    /// The next argument as the value of an option, if it is one ArgumentParser would take.
    mutating func value() -> String? {
        guard index < arguments.endIndex, !arguments[index].hasPrefix("-") else { return nil }
        return next()
    }

    /// Whether `argument` is plainly a positional one (not an option, not empty, not `help`).
    static func isOperand(_ argument: String) -> Bool {
        !(argument.isEmpty || argument.hasPrefix("-")) && argument != "help"
    }
}

/// The flags of ``IconOptions`` and `-o`/`--output` on a plain command line (`mask`, `icon`).
struct PlainIconFlags {
    private var size: Int?, scale: Int?, shape: IconShape?, noStroke = false
    private(set) var output: String?

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

    /// The options given, over ``IconOptions/defaults`` (unchecked: the command line's
    /// `validate()` checks them).
    var options: MaskOptions {
        var options = IconOptions.defaults
        if let size { options.sizePoints = size }
        if let scale { options.scale = scale }
        if let shape { options.shape = shape }
        if noStroke { options.stroke = false }
        return options
    }
}
