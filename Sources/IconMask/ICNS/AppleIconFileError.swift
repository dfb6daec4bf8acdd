/// Why bytes are not a usable macOS `.icns` file; thrown by ``AppleIconFile/init(bytes:)``.
/// Match on ``kind``; ``description`` is one line in words (without the file's name, which the
/// caller knows and adds).
public struct AppleIconFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broad class of problem.
    public enum Kind: Sendable, Equatable {
        /// The file does not start with the magic `icns`.
        case notICNS
        /// The file ends before its 8-byte header, before an element header, or before the end
        /// its header or an element header declares.
        case truncated
        /// A length field holds a value the format does not allow (a file length under 8, an
        /// element length under 8).
        case badLength
        /// The file holds more elements than ``AppleIconFile/maximumElementCount``.
        case tooManyElements
        /// The file holds no elements at all.
        case empty
    }

    /// The broad class of problem.
    public let kind: Kind
    /// What is wrong, in words, e.g. "element 2 (ic10) is 9000 bytes long but only 120 bytes remain".
    public let message: String

    /// Makes an error of `kind` with a one-line `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The one-line message.
    public var description: String { message }
}
