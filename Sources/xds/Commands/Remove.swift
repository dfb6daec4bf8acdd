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
                separate file and is left alone unless --sidecar is given: then the value is \
                removed from the sidecar too (every other entry in it kept byte for byte; a \
                sidecar left with nothing in it is deleted). Exits with status 1 when a file \
                had no attribute.
                """
        )

        @Argument(help: "The files or folders to clear.", completion: .file())
        var files: [String]

        @OptionGroup var follow: FollowOptions

        @Flag(help: "Remove the value from the AppleDouble sidecar ._NAME too.")
        var sidecar = false

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
                    diagnostics.report(try document.remove(sidecar: sidecar), for: file)
                } catch where error.kind == .notSupported && !sidecar {
                    diagnostics.fail(
                        file, error.message + "; --sidecar removes the value from an AppleDouble file ._NAME next to it",
                        status: ExitStatus(error))
                } catch {
                    diagnostics.fail(file, error)
                }
            }
            try diagnostics.finish()
        }
    }
}
