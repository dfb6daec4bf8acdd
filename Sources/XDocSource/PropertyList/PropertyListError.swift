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

extension PropertyListError {
    /// Text taken from the input, quoted for a one-line message: control and line-breaking
    /// characters escaped as `\u{…}`, and anything past 60 characters cut.
    static func quoted(_ text: some StringProtocol) -> String {
        var result = "'"
        for (count, scalar) in text.unicodeScalars.enumerated() {
            if count == 60 {
                result += "…"
                break
            }
            switch scalar.value {
            case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029:
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "'"
    }
}
