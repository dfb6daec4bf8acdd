/// Why a PNG could not be decoded or encoded; `description` is one line in words.
public struct PNGError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, e.g. "CRC mismatch in IHDR chunk".
    public let message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
