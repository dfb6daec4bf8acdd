import XDSPublish
import XDocSource

extension ExitStatus {
    /// The SPEC §5 status for a bundle that cannot be read or published.
    init(_ kind: AppBundleError.Kind) {
        switch kind {
        case .notFound: self = .noInput
        case .unreadable: self = .ioError
        case .malformedInfoPlist, .unsafeIconName, .malformedIcon, .noIdentifier, .noName: self = .dataError
        case .noIcon, .assetCatalogOnly: self = .absent
        }
    }

    /// The SPEC §5 status for a failed publication.
    init(_ error: AppIconPublishError) {
        switch error.kind {
        case .bundle(let kind): self.init(kind)
        case .invalidPixelSize: self = .usage
        case .writeFailed, .imageFolderIsSymbolicLink, .libraryUnavailable: self = .ioError
        }
    }
}

extension Diagnostics {
    /// Reports a bundle error as `xds: FILE: message` with its exit status.
    mutating func fail(_ error: AppBundleError) {
        fail(error.file, error.message, status: ExitStatus(error.kind))
    }

    /// Reports a publication error as `xds: FILE: message` with its exit status.
    mutating func fail(_ error: AppIconPublishError) {
        fail(error.file.isEmpty ? "appinfo" : error.file, error.message, status: ExitStatus(error))
    }
}
