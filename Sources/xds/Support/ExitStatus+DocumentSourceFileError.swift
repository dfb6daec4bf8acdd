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

extension Diagnostics {
    /// Reports what `xds remove` left behind on `file`: nothing to remove (1, "no
    /// x-document-source attribute"), or where `show` still finds a value: an AppleDouble
    /// sidecar, which `remove` leaves alone without `--sidecar` (a note with status 0 when something was removed,
    /// 1 when the sidecar is all there was), or a Samba stream that refused the removal (that
    /// failure's status).
    mutating func report(_ removal: DocumentSourceRemoval, for file: String) {
        guard !removal.remaining.isEmpty else {
            if removal.removed.isEmpty { fail(file, "no x-document-source attribute", status: .absent) }
            return
        }
        let removed = removal.removed.map(\.description).joined(separator: " and ")
        for place in removal.remaining {
            let holder = place.store == .appleDouble
                ? "the AppleDouble sidecar \(place.location)" : "the Samba stream \(place.location)"
            if let failure = place.failure {
                fail(file, "removed from \(removed), but \(holder) could not be removed (\(failure.message)) and still holds a value",
                     status: ExitStatus(failure))
            } else if removal.removed.isEmpty {
                fail(file, "the attribute is only in \(holder); xds remove --sidecar removes it", status: .absent)
            } else {
                fail(file, "removed from \(removed), but \(holder) still holds a value (xds show will find it; xds remove --sidecar removes it too)",
                     status: .success)
            }
        }
    }
}
