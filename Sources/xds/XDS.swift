import ArgumentParser

@main
struct XDS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xds",
        abstract: "Read and write the x-document-source attribute, fetch and mask app icons.",
        version: "0.1.0",
        subcommands: [Set.self, Show.self, Remove.self, Icon.self, Mask.self, AppInfoCommand.self]
    )

    /// The commands whose file list is handed over without ArgumentParser (see ``FileArguments``).
    static let fileCommands: [any FileListCommand.Type] = [Set.self, Show.self, Remove.self]

    static func main() {
        let arguments = CommandLine.arguments
        // `xds show FILE` must start fast; see Show.fastPath.
        if let status = Show.fastPath(arguments) { status.exitProcess() }
        if let problem = usageProblem(arguments) { exit(withError: problem) }
        if let split = FileArguments.split(arguments, commands: fileCommands) { run(split) }
        main(nil)
    }

    /// `xds` alone and `xds help NOSUCH` are usage errors (64); ArgumentParser would print the
    /// help and exit 0 for the first, and the top-level help for the second.
    static func usageProblem(_ arguments: [String]) -> ValidationError? {
        if arguments.count == 1 {
            return ValidationError("Give a command: \(commandNames.joined(separator: ", ")).")
        }
        if arguments[1] == "help", arguments.count >= 3 {
            var commands: [any ParsableCommand.Type] = configuration.subcommands
            for name in arguments.dropFirst(2) where !name.hasPrefix("-") {
                guard let command = commands.first(where: { $0.configuration.commandName == name }) else {
                    return ValidationError("There is no command '\(name)'; the commands are \(commandNames.joined(separator: ", ")).")
                }
                commands = command.configuration.subcommands
            }
        }
        return nil
    }

    static var commandNames: [String] { configuration.subcommands.compactMap { $0.configuration.commandName } }

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
            exit(withError: error)
        }
        exit()
    }
}

/// A command whose positional arguments are only file names.
protocol FileListCommand: ParsableCommand {
    /// The files to act on.
    var files: [String] { get set }
    /// The options that take a value, e.g. `--id` (the argument after one is not a file).
    static var optionsWithValues: Swift.Set<String> { get }
}

extension XDS.Set: FileListCommand {}
extension XDS.Show: FileListCommand {}
extension XDS.Remove: FileListCommand {}
