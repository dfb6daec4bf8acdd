import ArgumentParser

@main
struct XDS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xds",
        abstract: "Read and write the x-document-source attribute, fetch and mask app icons.",
        discussion: XDS.discussion,
        version: BuildInfo.versionLine,
        subcommands: [Set.self, Show.self, Remove.self, Where.self, Strip.self, Check.self, Icon.self, Mask.self, AppInfoCommand.self]
    )

    /// The root command's help and the man page's description: stores, network policy, files,
    /// environment, exit statuses and examples.
    static let discussion = """
        Apps on iOS and macOS that provide documents record which app a file came from in \
        the x-document-source extended attribute: a binary property list with identifier, \
        name, path and appInfoURL (an appInfo.json listing the app's icons).

        STORES: a value is read from the native attribute (user.x-document-source on \
        Linux), from Samba's streams_xattr form (user.DosStream.x-document-source:$DATA, \
        as Mac and iPad clients write it on a Samba share), or from an AppleDouble \
        sidecar ._NAME beside the file; inside zip, .textpack and tar archives, from \
        their AppleDouble entries and extended-attribute headers. show says which.

        WHERE FROM: where shows every mark of where a file came from (x-document-source, \
        the quarantine and download URL a Mac sets, user.xdg.origin.url from wget and curl, \
        Windows' Zone.Identifier), in every store; strip removes them. Before publishing, \
        check lists them and Mac metadata (._ files, .DS_Store, __MACOSX, Apple attributes) \
        with the commands that remove them; strip --mac-metadata removes both.

        NETWORK: https only (http with --allow-http). Local files and file: URLs only \
        when given on the command line, never from an attribute. At most 5 redirects, \
        never from https to http. Certificates are checked against the system's store, \
        or the bundle in SSL_CERT_FILE or CURL_CA_BUNDLE. Proxies as curl reads them \
        (https_proxy, http_proxy, all_proxy, no_proxy). Requests use the system's libcurl, \
        loaded only when a request is made.

        FILES: fetched lists and icons are cached in $XDG_CACHE_HOME/xds, else \
        ~/.cache/xds (--cache-dir to choose, --offline to use only the cache).

        EXIT STATUS: 0 done; 1 something asked about is absent (no attribute, no icon); \
        64 usage error; 65 bad data (malformed plist, PNG, JSON, AppleDouble, a refused \
        URL); 66 an input does not exist; 69 a network fetch failed; 74 an I/O error \
        (no extended attributes, permission denied, disk full, output not written). \
        With several files the highest status wins.

        EXAMPLES:
          xds set doc.pdf --id com.example.editor --name Editor --path docs/doc.pdf
          xds show --json -r /srv/share
          xds where -r --summary ~/Downloads
          xds check --names-only
          xds icon report.pdf --size 29 --scale 2 -o icon.png
          xds appinfo Build/Editor.app -o site --base-url https://example.com/editor/
        """

    static func main() {
        // `xds show FILE`, `xds mask` and `xds icon` must start fast: see Route.swift.
        run(Route(CommandLine.arguments))
    }

    /// Prints what ArgumentParser has to say about `error` (help, version, a completion script,
    /// a usage error) and exits with its code, as ArgumentParser's own `exit(withError:)` does,
    /// but through write(2): ArgumentParser prints with `print`, which drops a failed write, so
    /// `xds --help > /dev/full` exited 0. A failed write is status 74 here, as everywhere in xds.
    static func finish(with error: any Error) -> Never {
        let code = exitCode(for: error)
        var message = fullMessage(for: error)
        if code == .success, message == BuildInfo.versionLine {  // xds --version
            message += "\n" + BuildInfo.libraryLines
        }
        if !message.isEmpty {
            if !message.hasSuffix("\n") { message += "\n" }
            if code == .success {
                do {
                    try StandardOutput.write(message)
                } catch {
                    var diagnostics = Diagnostics()
                    diagnostics.failedOutput(error)
                    diagnostics.worst.exitProcess()
                }
            } else {
                Diagnostics.printError(message)
            }
        }
        ExitStatus.exitProcess(code: code.rawValue)
    }

    /// `xds` alone and `xds help NOSUCH` are usage errors (64): the message, or nil. ArgumentParser
    /// would print the help and exit 0 for the first, and the top-level help for the second.
    static func usageProblem(_ arguments: [String]) -> String? {
        // No arguments at all (not even the program's name, which execve allows): the same.
        if arguments.count <= 1 {
            return "Give a command: \(commandNames.joined(separator: ", "))."
        }
        if arguments[1] == "help", arguments.count >= 3 {
            var commands: [any ParsableCommand.Type] = configuration.subcommands
            for name in arguments.dropFirst(2) where !name.hasPrefix("-") {
                guard let command = commands.first(where: { $0.configuration.commandName == name }) else {
                    return "There is no command '\(name)'; the commands are \(commandNames.joined(separator: ", "))."
                }
                commands = command.configuration.subcommands
            }
        }
        return nil
    }

    static var commandNames: [String] { configuration.subcommands.compactMap { $0.configuration.commandName } }
}
