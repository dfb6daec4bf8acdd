import ArgumentParser

extension XDS {
    /// The commands whose long file lists are handed over beside ArgumentParser (the
    /// ``Route/longList(_:)`` route, ``FileArguments/split(_:commands:)``): a command whose
    /// positionals are only files joins by being added here.
    static let fileCommands: [any FileListCommand.Type] = [Set.self, Show.self, Remove.self, Where.self, Strip.self, Check.self]

    /// How `xds` handles a command line: one of the fast paths, a usage error of its own, the
    /// long-file-list split, or ArgumentParser. Chosen by ``init(_:)`` from the arguments alone
    /// and run by ``XDS/run(_:)``, the one place that runs a route and exits.
    enum Route: Equatable {
        /// `xds show` with files, `--json`, `--no-follow` (PlainCommandLine.swift).
        case fastShow(ShowCommandLine)
        /// `xds mask` with plainly given flags.
        case fastMask(MaskCommandLine)
        /// `xds icon` with plainly given flags.
        case fastIcon(IconCommandLine)
        /// A usage error ArgumentParser would not make (``XDS/usageProblem(_:)``): its message.
        case usageProblem(String)
        /// A long file list of one of ``XDS/fileCommands``: the options for ArgumentParser,
        /// the files handed over.
        case longList(FileArguments.Split)
        /// Everything else: ArgumentParser parses, validates and runs.
        case parser

        /// The route for `arguments` (the program's name first). Pure, but for what a command's
        /// `validate()` asks of the system (whether the PNG would go to a terminal).
        init(_ arguments: [String]) {
            if let problem = XDS.usageProblem(arguments) {
                self = .usageProblem(problem)
                return
            }
            let rest = arguments.dropFirst(2)
            switch arguments[1] {
            case "show":
                if let line = ShowCommandLine(plain: rest) { self = .fastShow(line); return }
            case "mask":
                if let line = MaskCommandLine(plain: rest) { self = .fastMask(line); return }
            case "icon":
                if let line = IconCommandLine(plain: rest) { self = .fastIcon(line); return }
            default:
                break
            }
            if arguments.count > FileArguments.splitThreshold,
                let split = FileArguments.split(arguments, commands: XDS.fileCommands) {
                self = .longList(split)
                return
            }
            self = .parser
        }
    }

    /// The command of a ``Route/longList(_:)`` line (`line`: the command line without the
    /// program's name), as ArgumentParser takes the whole line: parsed with its first file,
    /// then given every file and validated again, since a check may count them (`strip -o`
    /// takes one ARCHIVE: with one file the line looked right, and 130 archives copied the
    /// first). When either step fails, ArgumentParser parses the whole line, so the usage error
    /// is its own, word for word, as on the short route (which error comes first depends on
    /// the order of the line); its quadratic cost is paid only then.
    static func parseLongList(_ split: FileArguments.Split, line: [String]) throws -> any ParsableCommand {
        do {
            let command = try parseAsRoot(split.arguments)
            guard var listing = command as? any FileListCommand else { return command }
            listing.files = split.files
            try listing.validate()
            return listing
        } catch {
            return try parseAsRoot(line)
        }
    }

    /// Runs `route` and exits with its status (ArgumentParser's `main` for ``Route/parser``).
    static func run(_ route: Route) -> Never {
        do {
            switch route {
            case .fastShow(let line):
                // Straight to the status: ExitCode through finish(with:) costs start-up time.
                line.perform().worst.exitProcess()
            case .fastMask(let line):
                try line.run()
            case .fastIcon(let line):
                try line.run()
            case .usageProblem(let message):
                throw ValidationError(message)
            case .longList(let split):
                var command = try parseLongList(split, line: Array(CommandLine.arguments.dropFirst()))
                try command.run()
            case .parser:
                var command = try parseAsRoot()
                try command.run()
            }
        } catch {
            finish(with: error)
        }
        ExitStatus.success.exitProcess()
    }
}
