import ArgumentParser
import XDocSource

extension XDS {
    /// `xds remove`: deletes the attribute.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove the x-document-source attribute from files.",
            discussion: """
                Removes the native attribute and Samba's stream copy \
                (user.DosStream.x-document-source:$DATA). An AppleDouble sidecar ._NAME is a \
                separate file and is left alone. Exits with status 1 when a file had no attribute.
                """
        )

        @Argument(help: "The files or folders to clear.", completion: .file())
        var files: [String]

        @OptionGroup var follow: FollowOptions

        /// The options that take a value (none): see ``Set/optionsWithValues``.
        static let optionsWithValues: Swift.Set<String> = []

        /// Whether to act on a symbolic link itself (`--no-follow`).
        var noFollow: Bool { follow.noFollow }

        func run() throws {
            var diagnostics = Diagnostics()
            for file in files {
                guard diagnostics.accepts(file) else { continue }
                do {
                    let document = DocumentSourceFile(path: file, followSymlinks: !noFollow)
                    diagnostics.report(try document.remove(), for: file)
                } catch {
                    diagnostics.fail(file, error)
                }
            }
            try diagnostics.finish()
        }
    }
}
