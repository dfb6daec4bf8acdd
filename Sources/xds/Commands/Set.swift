import ArgumentParser
import XDSSystem
import XDocSource
import XDSPublish

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

                A value already there is updated in the store it is found in (the native \
                attribute, Samba's stream attribute, or the AppleDouble sidecar ._NAME, in the \
                order xds show reads them), so a file never gets two copies that disagree: a \
                Samba stream stays a Samba stream, a sidecar a sidecar. --store chooses where a \
                new value goes:
                  xattr         the native attribute (the default).
                  samba-stream  user.DosStream.x-document-source:$DATA, the value followed by \
                one NUL byte, exactly as Samba's vfs_streams_xattr stores the stream \
                FILE:x-document-source. Use it on a Samba share with "vfs objects = ... \
                streams_xattr" (as Mac and iPad clients need, e.g. with fruit): SMB clients then \
                read the value as that stream, byte for byte. (Linux only.)
                  sidecar       the AppleDouble file ._NAME next to the file, as macOS writes \
                on filesystems without extended attributes (FAT, exFAT, some network shares). \
                --sidecar is short for --store sidecar.
                A sidecar is written whole to a new file renamed over the old one, every other \
                entry in it (Finder info, a resource fork, other attributes) kept byte for \
                byte; a sidecar that cannot be parsed is left as it is (exit status 65). A \
                write that is interrupted (SIGINT, SIGTERM, SIGHUP, on Linux SIGKILL too) \
                leaves no temporary file behind.

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

        @Option(help: ArgumentHelp("Where a new value goes: xattr (default), samba-stream (Samba streams_xattr shares) or sidecar (._NAME). A value already there is updated where it is.",
                                   valueName: "xattr|samba-stream|sidecar"))
        var store: StoreOption?

        @Flag(help: "Short for --store sidecar: a new value goes to the AppleDouble sidecar ._NAME.")
        var sidecar = false

        /// The stores `--store` names.
        enum StoreOption: String, ExpressibleByArgument, CaseIterable {
            case xattr
            case sambaStream = "samba-stream"
            case sidecar

            var store: DocumentSourceStore {
                switch self {
                case .xattr: .xattr
                case .sambaStream: .sambaStream
                case .sidecar: .appleDouble
                }
            }
        }

        /// The store of a new value.
        var newValueStore: DocumentSourceStore { sidecar ? .appleDouble : (store ?? .xattr).store }

        /// Whether the value goes to a sidecar (for the wording of errors).
        var sidecarStore: Bool { newValueStore == .appleDouble }

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
            if sidecar, let store, store != .sidecar {
                throw ValidationError("--sidecar is short for --store sidecar; it cannot go with --store \(store.rawValue).")
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
                        .update(with: changes, replace: replace, store: newValueStore)
                } catch where error.kind == .incompleteValue {
                    let flags = error.missingFields.map { $0 == "identifier" ? "--id" : "--\($0)" }
                    diagnostics.fail(
                        file, "the file has no \(error.missingFields.joined(separator: " or ")); give \(flags.joined(separator: " and "))",
                        status: .usage)
                } catch where error.kind == .notSupported && !sidecarStore {
                    diagnostics.fail(
                        file, error.message + "; --sidecar writes the value to an AppleDouble file ._NAME next to it instead",
                        status: ExitStatus(error))
                } catch where error.kind == .malformedValue || (error.kind == .malformedSidecar && !sidecarStore) {
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
