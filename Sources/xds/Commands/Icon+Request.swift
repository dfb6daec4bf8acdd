import IconMask
import XDocSource
import XDocSourceFetch
import XDocSourceHTTP

extension XDS.Icon {
    /// One `xds icon` job: fetch the icon under the network policy and the cache, then decode,
    /// mask and encode it as `xds mask` does, and write it.
    struct IconRequest: Sendable {
        /// Why the job failed: the fetch (with the warnings gathered so far) or the output.
        enum Failure: Error {
            case fetch(FetchError, warnings: [String])
            case output(BinaryFileError)
        }

        let location: AppInfoLocation
        let pixelSize: Int
        let options: MaskOptions
        let allowHTTP: Bool
        let cache: CacheSettings?
        /// `--any-cached`: any size of the icon in the cache, however old, and no request.
        var anyCached = false

        /// Runs the job; returns the fetcher's warnings (e.g. a cache folder it could not write).
        func write(to destination: PNGDestination.Opened) async throws(Failure) -> [String] {
            var destination = destination
            // --any-cached makes no request: no transport (libcurl is not even loaded).
            let transport: (any HTTPTransport)? = anyCached ? nil : CurlTransport(configuration: .fromEnvironment(allowHTTP: allowHTTP))
            let fetcher = AppInfoFetcher(transport: transport, policy: FetchPolicy(allowHTTP: allowHTTP), cache: cache)
            var fetched: FetchedIcon?
            var fetchError: FetchError?
            do throws(FetchError) {
                fetched = anyCached
                    ? try await fetcher.anyCachedIconImage(pixelSize: pixelSize, from: location)
                    : try await fetcher.iconImage(pixelSize: pixelSize, from: location)
            } catch {
                fetchError = error
            }
            let warnings = await fetcher.warnings
            guard let icon = fetched else {
                destination.discard()
                throw .fetch(fetchError!, warnings: warnings)
            }
            do throws(BinaryFileError) {
                try destination.commit(try Self.masked(icon, options: options))
            } catch {
                destination.discard()
                throw .output(error)
            }
            return warnings
        }

        /// Decode, mask, encode; an icon that is not a usable PNG is bad data (65) about its URL.
        static func masked(_ icon: FetchedIcon, options: MaskOptions) throws(BinaryFileError) -> [UInt8] {
            do {
                let image = try PNGDecoder.decode(icon.bytes, maxDimension: XDS.Mask.maxInputPixels)
                return try PNGEncoder.encode(try IconMasker.mask(image, options: options))
            } catch {
                if let png = error as? PNGError, png.kind == .libraryUnavailable {
                    throw BinaryFileError(path: icon.url, reason: png.message, status: .ioError)
                }
                throw BinaryFileError(path: icon.url, reason: "the icon is not a usable PNG: \(error)", status: .dataError)
            }
        }
    }
}
