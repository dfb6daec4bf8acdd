import ArgumentParser

@main
struct XDS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xds",
        abstract: "Read and write the x-document-source attribute and mask app icons.",
        version: "0.1.0",
        subcommands: [Set.self, Show.self, Remove.self, Mask.self]
    )

    static func main() {
        // `xds show FILE` must start fast; see Show.fastPath.
        if let status = Show.fastPath(CommandLine.arguments) { status.exitProcess() }
        main(nil)
    }
}
