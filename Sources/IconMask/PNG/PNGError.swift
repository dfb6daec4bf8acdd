/// Why a PNG could not be decoded or encoded; `description` is one line in words.
public struct PNGError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The broad class of problem, so callers and tests can match without parsing ``message``.
    public enum Kind: Sendable, Equatable {
        /// The first 8 bytes are not the PNG signature.
        case signature
        /// The file ends before a chunk or before `IEND`.
        case truncated
        /// A critical chunk's CRC does not match its contents.
        case checksum
        /// A chunk is malformed, unknown and critical, duplicated or out of order.
        case chunk
        /// `IHDR` is missing or holds values PNG does not allow.
        case header
        /// `PLTE` is missing, malformed, or an index points past its end.
        case palette
        /// The image data does not inflate, or inflates to the wrong size.
        case imageData
        /// A row starts with a filter type other than 0–4.
        case filter
        /// The image is larger than the caller's limit (checked before allocating).
        case tooLarge
        /// A C library the codec needs (zlib, libdeflate) cannot be loaded: a fault of the
        /// system, not of the image (SPEC §5: 74, not 65).
        case libraryUnavailable
        /// Anything else, e.g. errors raised by the encoder.
        case other
    }

    /// The broad class of problem.
    public let kind: Kind
    /// What went wrong, e.g. "CRC mismatch in IHDR chunk".
    public let message: String

    /// Creates an error of kind ``Kind/other`` with the given one-line message.
    public init(message: String) {
        self.kind = .other
        self.message = message
    }

    /// Creates an error of the given kind with a one-line message.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The one-line message.
    public var description: String { message }
}
