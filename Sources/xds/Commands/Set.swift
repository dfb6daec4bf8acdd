import ArgumentParser
import XDSSystem
import XDocSource

extension XDS {
    /// `xds set`: writes the attribute, merging with what is there unless `--replace`.
    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Record which app files came from (write the x-document-source attribute).",
            discussion: """
                The value is written as a binary property list in one call, to \
                user.x-document-source on Linux (x-document-source on macOS). Without --replace \
                the given keys are merged into the current value and every other key, other \
                apps' keys included, is kept exactly. All options are checked before anything is \
                written; on any error a file keeps its old value.

                --id and --name may be left out when a file already has them, or taken from an \
                app bundle with --from-bundle (CFBundleIdentifier, and CFBundleDisplayName or \
                CFBundleName); --id and --name given as well win over the bundle's.

                --sidecar writes to the AppleDouble file ._NAME next to each file instead, as \
                macOS does on filesystems without extended attributes (FAT, exFAT, some network \
                shares): the current value is read from that sidecar and merged as above, every \
                other entry in it (Finder info, a resource fork, other attributes) is kept \
                byte for byte, and the sidecar is written whole to a new file renamed over the \
                old one. A sidecar that cannot be parsed is left as it is (exit status 65). The \
                native attribute is not changed, and xds show reads it before a sidecar.

                Examples:
                  xds set report.pdf --id com.example.editor --name Editor
                  xds set report.pdf --path archive/report.pdf
                  xds set *.pdf --app-info-url https://example.com/appInfo.json
                  xds set report.pdf --from-bundle Build/Editor.app
                """
        )

        @Argument(help: "The files or folders to label.", completion: .file())
        var files: [String]

        @Option(name: .customLong("id"),
                help: "The bundle identifier of the providing app: letters, digits, '.' and '-' (e.g. com.example.app).")
        var identifier: String?

        @Option(help: "The name of the providing app, e.g. \"Working Copy\".")
        var name: String?

        @Option(help: "The path of the document inside the providing app, e.g. docs/report.pdf.")
        var path: String?

        @Option(name: .customLong("app-info-url"),
                help: "The absolute https URL of the app's appInfo.json.")
        var appInfoURL: String?

        @Option(name: .customLong("from-bundle"),
                help: ArgumentHelp("Take --id and --name from this app bundle (.app) or Info.plist.",
                                   valueName: "app|Info.plist"))
        var fromBundle: String?

        @Flag(help: "Write only the given keys, dropping every other key (then --id and --name are required).")
        var replace = false

        @OptionGroup var follow: FollowOptions

        @Flag(name: .customLong("allow-http"), help: "Accept an http:// --app-info-url.")
        var allowHTTP = false

        @Flag(help: "Write to the AppleDouble sidecar ._NAME instead of the extended attribute.")
        var sidecar = false

        /// The options that take a value, as typed (the argument after one is never a file):
        /// ``FileArguments`` hands the files to the command without ArgumentParser, which
        /// takes time quadratic in their count. A test checks this against the parser's own list.
        static let optionsWithValues: Swift.Set<String> = ["--id", "--name", "--path", "--app-info-url", "--from-bundle"]

        /// Whether to act on a symbolic link itself (`--no-follow`).
        var noFollow: Bool { follow.noFollow }

        func validate() throws {
            if let identifier, let problem = DocumentSourceValidation.identifierProblem(identifier) {
                throw ValidationError("--id \(VisibleText.quoted(identifier)) \(Self.words(problem)).")
            }
            if let name, let problem = DocumentSourceValidation.nameProblem(name) {
                throw ValidationError("--name \(VisibleText.quoted(name)) \(Self.words(problem)).")
            }
            if let path, path.isEmpty {
                throw ValidationError("--path is empty.")
            }
            if let appInfoURL,
                let problem = DocumentSourceValidation.appInfoURLProblem(appInfoURL, allowHTTP: allowHTTP)
            {
                throw ValidationError("--app-info-url \(VisibleText.quoted(appInfoURL)) \(Self.words(problem)).")
            }
            if replace && (identifier == nil || name == nil) && fromBundle == nil {
                throw ValidationError("--replace writes only the keys given, so it needs --id and --name (or --from-bundle).")
            }
        }

        /// A validation problem in this command's words: the library's phrase, with the flag
        /// that changes the rule where there is one.
        static func words(_ problem: DocumentSourceValidation.Problem) -> String {
            switch problem {
            case .httpNotAllowed: "uses http, which is allowed only with --allow-http; use https"
            case .unsupportedScheme(let scheme): "uses the scheme '\(scheme)'; only https is allowed (http with --allow-http)"
            default: problem.description
            }
        }

        func run() throws {
            var diagnostics = Diagnostics()
            var identifier = identifier
            var name = name
            if let fromBundle {
                // Read before any file is written: a bundle that cannot give both writes nothing.
                do throws(AppBundleError) {
                    if let problem = FileArguments.problem(fromBundle) {
                        throw AppBundleError(.notFound, file: fromBundle, message: problem)
                    }
                    let bundle = try AppBundle(path: fromBundle)
                    if identifier == nil { identifier = try bundle.identifier() }
                    if name == nil { name = try bundle.name() }
                } catch {
                    diagnostics.fail(error)
                    return try diagnostics.finish()
                }
            }
            let changes = DocumentSource(
                identifier: identifier, name: name, path: path, appInfoURL: appInfoURL)
            for file in files {
                guard diagnostics.accepts(file) else { continue }
                do {
                    try DocumentSourceFile(path: file, followSymlinks: !noFollow)
                        .update(with: changes, replace: replace, sidecar: sidecar)
                } catch where error.kind == .incompleteValue {
                    let flags = error.missingFields.map { $0 == "identifier" ? "--id" : "--\($0)" }
                    diagnostics.fail(
                        file, "the file has no \(error.missingFields.joined(separator: " or ")); give \(flags.joined(separator: " and "))",
                        status: .usage)
                } catch where error.kind == .notSupported && !sidecar {
                    diagnostics.fail(
                        file, error.message + "; --sidecar writes the value to an AppleDouble file ._NAME next to it instead",
                        status: ExitStatus(error))
                } catch where error.kind == .malformedValue || (error.kind == .malformedSidecar && !sidecar) {
                    // The merge needs the old value; say how to write over it instead.
                    diagnostics.fail(file, error.message + "; --replace writes a new value without reading it", status: ExitStatus(error))
                } catch {
                    diagnostics.fail(file, error)
                }
            }
            try diagnostics.finish()
        }
    }
}
