/// Why ``MaskOptions`` cannot be used; thrown by ``MaskOptions/validate()`` and
/// ``IconMasker/mask(_:options:)``. Match on ``kind``; ``description`` is one line in the
/// library's terms (points, scale), for callers that have no wording of their own.
public struct MaskOptionsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which value is wrong.
    public enum Kind: Sendable, Equatable {
        /// ``MaskOptions/sizePoints`` is zero or negative.
        case sizeNotPositive
        /// ``MaskOptions/scale`` is not 1, 2 or 3.
        case scaleNotSupported
        /// `sizePoints × scale` is over `limit` pixels a side (``MaskOptions/maximumPixelSize``).
        case tooLarge(limit: Int)
    }

    /// Which value is wrong.
    public let kind: Kind
    /// The options that were refused.
    public let options: MaskOptions

    /// Makes the error for `options`.
    public init(_ kind: Kind, _ options: MaskOptions) {
        self.kind = kind
        self.options = options
    }

    /// One line naming the value, e.g. "the scale must be 1, 2 or 3, not 4".
    public var description: String {
        switch kind {
        case .sizeNotPositive:
            return "the size must be a positive number of points, not \(options.sizePoints)"
        case .scaleNotSupported:
            return "the scale must be 1, 2 or 3, not \(options.scale)"
        case .tooLarge(let limit):
            return "the size \(options.sizePoints) pt at \(options.scale)x is over \(limit) pixels a side"
        }
    }
}
