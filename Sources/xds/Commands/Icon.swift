#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import IconMask
import XDocSource
import XDocSourceFetch
import XDocSourceHTTP
import XDSSystem

extension XDS {
    /// `xds icon [FILE]`: from a file's attribute to its app's masked icon (SPEC §3, §5).
    struct Icon: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "icon",
            abstract: "Fetch the icon of the app a file came from and mask it.",
            discussion: """
                Finds the icon list (appInfo.json): --app-info URL|PATH if given, else the \
                appInfoURL in FILE's x-document-source attribute, else (with no FILE) \
                ./appInfo.json. A FILE without an appInfoURL is reported (status 1). Picks the \
                icon for the size asked for (an exact entry, else the smallest larger one, else \
                the largest), fetches it, masks it like `xds mask` and writes an 8-bit RGBA PNG \
                to -o or to standard output.

                Network policy: https only (http with --allow-http), at most 5 redirects and never \
                from https to http, appInfo.json at most 256 KiB and an icon at most 8 MiB. \
                Local files and file: URLs are accepted only from --app-info, never from an \
                attribute, and a local list's icons must lie in its folder. A 10 s connect \
                time-out, and 30 s in all for the list, its redirects and the icon together. \
                Certificates are checked against the system's trust store, or the bundle named \
                by SSL_CERT_FILE (or CURL_CA_BUNDLE). Proxies as curl reads them: \
                https_proxy/HTTPS_PROXY, http_proxy (lower case only), all_proxy/ALL_PROXY, \
                no_proxy/NO_PROXY; http, https and socks proxies.

                Fetched lists and icons are cached in $XDG_CACHE_HOME/xds (else ~/.cache/xds; \
                --cache-dir to choose), honouring Cache-Control, Expires, ETag and Last-Modified: \
                while an entry is fresh no request is made, after that only a conditional one. \
                --any-cached draws the icon from whatever size of it is cached, whatever its age \
                (scaled down, or up only when no larger one is cached) and never makes a request: \
                status 1 when neither the list nor an icon of it is cached (--offline alone: 69).

                Examples:
                  xds icon report.pdf --size 29 --scale 2 -o icon.png
                  xds icon --size 58 > icon.png        # ./appInfo.json
                  xds icon --app-info https://example.com/appInfo.json --offline -o icon.png
                  xds icon report.pdf --size 16 --any-cached -o emblem.png
                """
        )

        @Argument(help: ArgumentHelp("The file whose attribute names the app (optional).", valueName: "file"),
                  completion: .file())
        var file: String?

        @Option(name: .customLong("app-info"),
                help: ArgumentHelp("The icon list to use: an https URL, or a local appInfo.json path or file: URL.",
                                   valueName: "url|path"))
        var appInfo: String?

        @OptionGroup var icon: IconOptions

        @Option(name: [.short, .customLong("output")],
                help: ArgumentHelp("Write the PNG here (default: standard output).", valueName: "out.png"))
        var output: String?

        @Flag(help: "Use only what is cached; make no request.")
        var offline = false

        @Flag(name: .customLong("any-cached"),
              help: "Draw the icon from any size of it in the cache, however old; make no request (status 1 when none is cached).")
        var anyCached = false

        @Flag(name: .customLong("no-cache"), help: "Neither read nor write the cache.")
        var noCache = false

        @Option(name: .customLong("cache-dir"), help: ArgumentHelp("The cache folder.", valueName: "dir"))
        var cacheDirectory: String?

        @Flag(name: .customLong("allow-http"), help: "Accept plain http URLs.")
        var allowHTTP = false

        func validate() throws {
            try commandLine.validate()
        }

        func run() throws {
            try commandLine.run()
        }

        /// What was asked, as plain values (what the fast path builds too, ``XDS/Route``).
        var commandLine: IconCommandLine {
            IconCommandLine(file: file, appInfo: appInfo, options: icon.maskOptions, output: output, offline: offline,
                            anyCached: anyCached, noCache: noCache, cacheDirectory: cacheDirectory, allowHTTP: allowHTTP)
        }
    }
}

/// What `xds icon` was asked, as plain values: from ArgumentParser's parse of ``XDS/Icon`` or
/// from the plain command line of the fast path (``XDS/Route``); both check it with the one
/// ``validate()``, and its ``run()`` is the command's work.
struct IconCommandLine: Equatable {
    var file: String?
    var appInfo: String?
    var options = IconOptions.defaults
    var output: String?
    var offline = false
    var anyCached = false
    var noCache = false
    var cacheDirectory: String?
    var allowHTTP = false

    /// Every check of the command's values, in the order ArgumentParser makes them (the
    /// ``IconOptions`` group first): a check belongs here, not in ``XDS/Icon/validate()``, so
    /// that the fast path makes it too.
    func validate() throws {
        try IconOptions.validate(options)
        if offline && noCache {
            throw ValidationError("--offline reads only the cache, so it cannot go with --no-cache.")
        }
        if anyCached && noCache {
            throw ValidationError("--any-cached reads only the cache, so it cannot go with --no-cache.")
        }
        if cacheDirectory == "" { throw ValidationError("--cache-dir needs a folder, not an empty string.") }
        if appInfo == "" { throw ValidationError("--app-info needs a URL or a path, not an empty string.") }
        try PNGDestination(output: output).validate()
    }

    /// Finds the list, fetches (or reads from the cache) and masks the icon, writes the PNG.
    func run() throws {
        var diagnostics = Diagnostics()
        guard let location = try resolveLocation(&diagnostics) else { return try diagnostics.finish() }
        let settings = cacheSettings(&diagnostics)
        if diagnostics.worst != .success { return try diagnostics.finish() }
        let request = XDS.Icon.IconRequest(location: location, pixelSize: options.pixelSize, options: options,
                                  allowHTTP: allowHTTP, cache: settings, anyCached: anyCached)
        let destination: PNGDestination.Opened
        do throws(BinaryFileError) {
            // The output first: an unwritable folder fails before any request is made.
            destination = try PNGDestination(output: output).open()
        } catch {
            diagnostics.fail(error.path, error.reason, status: error.status)
            return try diagnostics.finish()
        }
        do throws(XDS.Icon.IconRequest.Failure) {
            let warnings = try BlockingTask.run { () async throws(XDS.Icon.IconRequest.Failure) -> [String] in
                try await request.write(to: destination)
            }
            for warning in warnings { Diagnostics.printError("xds: warning: " + VisibleText.escapedMessage(warning)) }
        } catch {
            switch error {
            case .fetch(let failure, let warnings):
                for warning in warnings { Diagnostics.printError("xds: warning: " + VisibleText.escapedMessage(warning)) }
                // --any-cached: nothing cached is an answer (1), not a failed fetch (69).
                let status = anyCached && failure.kind == .notCached ? .absent : ExitStatus(failure, typed: appInfo)
                diagnostics.fail(failure.url, words(failure, location: location), status: status)
            case .output(let failure):
                diagnostics.fail(failure.path, failure.reason, status: failure.status)
            }
        }
        try diagnostics.finish()
    }

    /// Where the list comes from (SPEC §3: --app-info, FILE's appInfoURL, ./appInfo.json
    /// when no FILE is given); nil when FILE cannot be read or has no attribute or no
    /// appInfoURL (already reported; nothing is written then).
    private func resolveLocation(_ diagnostics: inout Diagnostics) throws -> AppInfoLocation? {
        if let appInfo {
            // FILE's attribute is not needed then, but a FILE that is not there is still an
            // error (66), as everywhere: it was exiting 0 with the icon of --app-info.
            if let file {
                guard diagnostics.accepts(file) else { return nil }
                var info = stat()
                if stat(file, &info) != 0 {
                    let error = Errno.current
                    let missing = error.rawValue == ENOENT || error.rawValue == ENOTDIR
                    diagnostics.fail(file, error.words, status: missing ? .noInput : .ioError)
                    return nil
                }
            }
            return .commandLine(appInfo)
        }
        guard let file else { return .currentFolder }
        guard diagnostics.accepts(file) else { return nil }
        do {
            guard let found = try DocumentSourceFile(path: file).read() else {
                diagnostics.fail(file, "no x-document-source attribute; give the icon list with --app-info", status: .absent)
                return nil
            }
            if let url = found.source.appInfoURL { return .attribute(url) }
            // SPEC §3: ./appInfo.json is for no FILE only; it says nothing about this file's app.
            diagnostics.fail(file, "the x-document-source attribute has no appInfoURL; give the icon list with --app-info",
                             status: .absent)
            return nil
        } catch {
            diagnostics.fail(file, error)
            return nil
        }
    }

    /// The cache to use: none with --no-cache, else --cache-dir or the XDG default.
    private func cacheSettings(_ diagnostics: inout Diagnostics) -> CacheSettings? {
        if noCache { return nil }
        let mode: CacheSettings.Mode = offline || anyCached ? .offline : .normal
        if let cacheDirectory { return CacheSettings(directory: cacheDirectory, mode: mode) }
        let environment = ProcessEnvironment.current()
        guard let directory = CacheSettings.defaultDirectory(environment: environment) else {
            let reason = CacheSettings.noDefaultDirectoryReason(environment: environment) ?? "there is no cache folder"
            if offline || anyCached {
                diagnostics.fail(anyCached ? "--any-cached" : "--offline", "\(reason), so there is no cache to read; give --cache-dir",
                                 status: anyCached ? .absent : .unavailable)
                return nil
            }
            Diagnostics.printError("xds: warning: \(VisibleText.escapedMessage(reason)); fetching without a cache (--cache-dir to choose one)")
            return nil
        }
        return CacheSettings(directory: directory, mode: mode)
    }

    /// The library's message with this command's flag names where one is the way out.
    private func words(_ error: FetchError, location: AppInfoLocation) -> String {
        switch error.kind {
        case .refused where URLReference.scheme(of: error.url) == "http":
            return error.message + " (--allow-http allows it)"
        case .notCached where anyCached:
            return error.message + " (--any-cached; run xds icon once without it)"
        case .notCached:
            return error.message + " (--offline; run once without it)"
        case .refused where location == .attribute(error.url):
            return error.message + " (give a local appInfo.json with --app-info)"
        default:
            return error.message
        }
    }
}
