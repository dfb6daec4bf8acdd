/// Why a property list could not be decoded or encoded.
///
/// The message is one line in words, naming the problem, for example
/// "binary plist trailer: offset table lies outside the data". It is what
/// `description` returns, so command-line tools can print it as it is.
public struct PropertyListError: Error, CustomStringConvertible, Sendable, Equatable {
    /// One line in words describing the problem.
    public let message: String

    /// Creates an error with the given one-line message.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
