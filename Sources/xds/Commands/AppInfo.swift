import ArgumentParser
import XDSPublish
import XDSSystem
import XDocSource
import XDocSourceFetch

extension XDS {
    /// `xds appinfo APP -o DIR`: publishes an app's icons and appInfo.json from its bundle
    /// (SPEC §5), and prints the `xds set` line that points at them.
    ///
    /// Named `AppInfoCommand` so that `AppInfo` keeps meaning XDocSource's model in `XDS`.
    struct AppInfoCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "appinfo",
            abstract: "Publish an app's icons and appInfo.json from its bundle.",
            discussion: """
                Reads an iOS .app (Info.plist at its root), a macOS .app (Contents/Info.plist, \
                icons in Contents/Resources) or an Info.plist: the identifier from \
                CFBundleIdentifier, the name from CFBundleDisplayName or CFBundleName (else the \
                bundle's file name), the icons from CFBundleIcons → CFBundlePrimaryIcon → \
                CFBundleIconFiles (and CFBundleIcons~ipad), CFBundleIconFiles and \
                CFBundleIconFile, with their @2x, @3x and ~ipad files and the PNG images inside \
                .icns files (legacy images are skipped, and said so). Icons only in an asset \
                catalog (Assets.car) cannot be read (status 1).

                For each size it takes the smallest image at least that large (else the largest), \
                scales it to fill the square and writes it unmasked (readers mask icons) to \
                DIR/img/icon-N.png, then writes DIR/appInfo.json listing them with relative src. \
                DIR and DIR/img are made if needed; each file is written whole (a temporary file \
                renamed into place) and other files in DIR are left alone. Nothing is written \
                outside DIR: a symbolic link where a file goes (DIR/appInfo.json, \
                DIR/img/icon-N.png) is replaced, not followed, and a symbolic link named DIR/img \
                is refused (status 74). Nothing is read outside the bundle: a symbolic link in \
                it (an icon, Contents, Contents/Resources, Info.plist) is not followed.

                Then it prints the xds set line that labels files with the app. --base-url is \
                where DIR will be served (https; http with --allow-http): appInfo.json is \
                appended to it. Without it the line holds a placeholder URL to replace.

                Examples:
                  xds appinfo Build/Editor.app -o site --base-url https://example.com/editor/
                  xds appinfo Editor.app/Contents/Info.plist -o site --sizes 58,120,1024
                """
        )

        @Argument(help: ArgumentHelp("The app bundle (.app) or its Info.plist.", valueName: "app|Info.plist"),
                  completion: .file())
        var bundle: String

        @Option(name: [.short, .customLong("output")],
                help: ArgumentHelp("The folder to write appInfo.json and img/ into.", valueName: "dir"))
        var output: String

        @Option(help: ArgumentHelp(
            "The icon sizes in pixels, comma-separated, each from 1 to \(maxPixels) (default: \(defaultSizes)).",
            valueName: "n,n,…"))
        var sizes: String?

        @Option(name: .customLong("base-url"),
                help: ArgumentHelp("The https URL DIR will be served from; appInfo.json is appended.", valueName: "url"))
        var baseURL: String?

        @Flag(name: .customLong("allow-http"), help: "Accept an http:// --base-url.")
        var allowHTTP = false

        static let maxPixels = AppIconPublication.maximumPixelSize
        static let defaultSizes = AppIconPublication.defaultPixelSizes.map(String.init).joined(separator: ",")

        /// Where the printed line points when no --base-url is given.
        static let placeholderBase = "https://example.com/PATH/"

        func validate() throws {
            _ = try Self.pixelSizes(sizes)
            if let baseURL { _ = try Self.appInfoURL(base: baseURL, allowHTTP: allowHTTP) }
            if output.isEmpty { throw ValidationError("-o is empty; give the folder to write into.") }
        }

        /// The sizes of `--sizes`, duplicates dropped, in the order given.
        static func pixelSizes(_ text: String?) throws -> [Int] {
            guard let text else { return AppIconPublication.defaultPixelSizes }
            var sizes: [Int] = []
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                let field = part.trimmingPrefix(while: { $0 == " " })
                guard !field.isEmpty, field.allSatisfy({ $0.isASCII && $0.isNumber }),
                      let n = Int(field), (1...maxPixels).contains(n) else {
                    throw ValidationError(
                        "--sizes \(VisibleText.quoted(text)): \(field.isEmpty ? "an empty size" : VisibleText.quoted(field)) is not a whole number from 1 to \(maxPixels).")
                }
                if !sizes.contains(n) { sizes.append(n) }
            }
            return sizes
        }

        /// The appInfoURL for `--base-url`: `appInfo.json` appended (a URL already ending in
        /// `/appInfo.json` is kept), checked as `set --app-info-url` checks it.
        static func appInfoURL(base: String, allowHTTP: Bool) throws -> String {
            if base.contains("?") || base.contains("#") {
                throw ValidationError("--base-url \(VisibleText.quoted(base)) has a query or fragment; give the folder's URL.")
            }
            let url: String
            if base.hasSuffix("/appInfo.json") {
                url = base
            } else {
                url = base.hasSuffix("/") ? base + "appInfo.json" : base + "/appInfo.json"
            }
            if let problem = DocumentSourceValidation.appInfoURLProblem(url, allowHTTP: allowHTTP) {
                throw ValidationError("--base-url \(VisibleText.quoted(base)) \(Set.words(problem)).")
            }
            return url
        }

        func run() throws {
            var diagnostics = Diagnostics()
            let sizes = try Self.pixelSizes(sizes)
            let url = try baseURL.map { try Self.appInfoURL(base: $0, allowHTTP: allowHTTP) }
            if let problem = FileArguments.problem(bundle) {
                diagnostics.fail(bundle, problem, status: .noInput)
                return try diagnostics.finish()
            }
            let publication: AppIconPublication
            do throws(AppIconPublishError) {
                let app: AppBundle
                do { app = try AppBundle(path: bundle) } catch { throw AppIconPublishError(error) }
                publication = try AppIconPublication(bundle: app, pixelSizes: sizes)
            } catch {
                diagnostics.fail(error)
                return try diagnostics.finish()
            }
            for note in publication.skipped {
                Diagnostics.printError("xds: note: " + VisibleText.escapedMessage(note))
            }
            do throws(AppIconPublishError) {
                try publication.write(into: output)
            } catch where error.kind == .imageFolderIsSymbolicLink {
                diagnostics.fail(error.file, Self.linkedImageFolder, status: .ioError)
                return try diagnostics.finish()
            } catch {
                diagnostics.fail(error)
                return try diagnostics.finish()
            }
            let line = Self.setLine(publication, appInfoURL: url ?? Self.placeholderBase + "appInfo.json",
                                    allowHTTP: url.flatMap(URLReference.scheme(of:)) == "http")
            guard diagnostics.write(line + "\n") else { return try diagnostics.finish() }
            if url == nil {
                Diagnostics.printError(
                    "xds: note: replace \(Self.placeholderBase) in the line above with the URL \(VisibleText.escaped(output)) will be served from (or give --base-url)")
            }
        }

        /// Why a symbolic link DIR/img is not written through, in the command's words.
        static let linkedImageFolder = "is a symbolic link; xds appinfo writes nothing outside the folder it is given, so it does not write through it (remove the link or make it a folder)"

        /// `xds set FILE --id ID --name NAME --app-info-url URL`, the values quoted for a POSIX shell.
        static func setLine(_ publication: AppIconPublication, appInfoURL: String, allowHTTP: Bool) -> String {
            var words = ["xds", "set", "FILE", "--id", ShellQuote.word(publication.identifier),
                         "--name", ShellQuote.word(publication.name), "--app-info-url", ShellQuote.word(appInfoURL)]
            if allowHTTP { words.append("--allow-http") }
            return words.joined(separator: " ")
        }
    }
}
