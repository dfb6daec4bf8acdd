import ArgumentParser

@main
struct XDS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xds",
        abstract: "Read and write the x-document-source attribute and mask app icons.",
        version: "0.1.0",
        subcommands: [Mask.self]
    )
}
