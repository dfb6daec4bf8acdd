import IconMask

/// Why an app's icons could not be published.
///
/// ``file`` names the file the problem is about; ``message`` is one line in words without it.
/// Bundle problems keep the `AppBundleError/Kind` they had, so callers map them as they map
/// `AppBundleError` (`xds`: malformed icon 65, no icon 1, …).
public struct AppIconPublishError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The groups of failures.
    public enum Kind: Sendable, Hashable {
        /// A problem reading the bundle or an icon file: missing, unreadable, malformed, no icon.
        case bundle(AppBundleError.Kind)
        /// A requested size is not from 1 to the largest icon size (2048 px).
        case invalidPixelSize
        /// A file or folder of the output could not be made or written
        /// (``AppIconPublication/write(into:)``).
        case writeFailed
        /// The output's `img` is a symbolic link, which ``AppIconPublication/write(into:)``
        /// does not write through.
        case imageFolderIsSymbolicLink
        /// A C library the PNG codec needs (zlib, libdeflate) cannot be loaded: the system's
        /// fault, not the icon's (`xds`: 74).
        case libraryUnavailable
    }

    /// The group of the failure.
    public let kind: Kind
    /// The file the failure is about (empty for an invalid size).
    public let file: String
    /// One line in words, without the file.
    public let message: String

    /// Makes an error.
    public init(_ kind: Kind, file: String, message: String) {
        self.kind = kind
        self.file = file
        self.message = message
    }

    /// Wraps a bundle error, keeping its kind, file and message.
    public init(_ error: AppBundleError) {
        self.init(.bundle(error.kind), file: error.file, message: error.message)
    }

    /// A malformed-icon error about `file` for a PNG that did not decode or encode, or
    /// ``Kind/libraryUnavailable`` when the reason is a library that cannot be loaded.
    static func png(_ error: PNGError, file: String, message: String) -> AppIconPublishError {
        error.kind == .libraryUnavailable
            ? AppIconPublishError(.libraryUnavailable, file: file, message: error.message)
            : AppIconPublishError(.bundle(.malformedIcon), file: file, message: message)
    }

    /// `FILE: message`, or the message alone when no file is named.
    public var description: String { file.isEmpty ? message : "\(file): \(message)" }
}
