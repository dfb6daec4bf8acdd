import IconMask
import XDocSource
import XDocSourceFetch
import XDocSourceHTTP
import XDSSystem

extension XDS.Show {
    /// `show --icon`: the masked icon of each value's app, drawn in the terminal above its
    /// fields. The icon comes from the cache (any size of it, as `xds icon --any-cached` finds it) unless
    /// `--fetch` allows a request; a value without an `appInfoURL`, or whose icon cannot be had,
    /// is shown without one and its status does not change.
    final class IconDisplay {
        /// 32 pt at 2x: sharp in the 4×2 cells it is drawn in.
        static let options = MaskOptions(sizePoints: 32, scale: 2, shape: .continuous, stroke: true)

        let terminal: TerminalImage
        let fetch: Bool
        let cache: CacheSettings?
        /// Sequences already made, by appInfoURL (files from one app share one icon).
        private var made: [String: String?] = [:]

        /// nil when nothing is to be drawn: `--icon` not given, or a terminal that speaks
        /// neither protocol, or standard output that is not a terminal.
        init?(requested: Bool, fetch: Bool) {
            guard requested else { return nil }
            let environment = ProcessEnvironment.current()
            guard let terminal = TerminalImage.detect(environment: environment,
                                                      outputIsTerminal: BinaryFile.standardOutputIsTerminal)
            else { return nil }
            self.terminal = terminal
            self.fetch = fetch
            self.cache = CacheSettings.defaultDirectory(environment: environment).map {
                CacheSettings(directory: $0, mode: fetch ? .normal : .offline)
            }
        }

        /// The escape sequence that draws the icon of `source`'s app, or "" when there is none.
        func sequence(for source: DocumentSource) -> String {
            guard let url = source.appInfoURL else { return "" }
            if let known = made[url] { return known ?? "" }
            let png = icon(appInfoURL: url)
            let text = png.map { terminal.sequence(for: $0) }
            made[url] = text
            return text ?? ""
        }

        /// The masked PNG of the app whose list is at `appInfoURL`, or nil.
        private func icon(appInfoURL: String) -> [UInt8]? {
            // Without a cache, only --fetch can get an icon.
            guard cache != nil || fetch else { return nil }
            let cache = self.cache, fetch = self.fetch
            let fetched = try? BlockingTask.run { () async throws(FetchError) -> FetchedIcon in
                let transport: (any HTTPTransport)? = fetch ? CurlTransport() : nil
                let fetcher = AppInfoFetcher(transport: transport, policy: FetchPolicy(), cache: cache)
                // Without --fetch: any size of it that is cached, however old (SPEC §6b), as
                // `xds icon --any-cached` draws it; with --fetch, as `xds icon` fetches it.
                return fetch
                    ? try await fetcher.iconImage(pixelSize: Self.options.pixelSize, from: .attribute(appInfoURL))
                    : try await fetcher.anyCachedIconImage(pixelSize: Self.options.pixelSize, from: .attribute(appInfoURL))
            }
            guard let fetched else { return nil }
            return try? XDS.Icon.IconRequest.masked(fetched, options: Self.options)
        }
    }
}
