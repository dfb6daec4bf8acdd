import XDocSource

extension ExitStatus {
    /// The SPEC §5 status for a failed read, write or remove.
    init(_ error: DocumentSourceFileError) {
        switch error.kind {
        case .notFound: self = .noInput
        case .malformedValue, .malformedSidecar: self = .dataError
        case .incompleteValue: self = .usage
        case .notSupported, .unsupportedFileType, .permissionDenied, .tooLarge, .noSpace,
            .readOnly, .ioError:
            self = .ioError
        }
    }
}

extension Diagnostics {
    /// Reports a library error on `file` as `xds: FILE: message` with its exit status.
    mutating func fail(_ file: String, _ error: DocumentSourceFileError) {
        fail(file, error.message, status: ExitStatus(error))
    }
}
