#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The reconstruction filter used by ``Resampler``.
public enum ResampleFilter: String, CaseIterable, Sendable {
    /// Lanczos with a = 3, stretched by the reduction factor when shrinking (the antialiasing
    /// form used by Pillow, libvips and ImageMagick), weights renormalised to sum to 1 at the
    /// borders. Sharp, good for both reduction and enlargement; the default.
    case lanczos3
    /// Exact area averaging (box filter): each output pixel is the mean of the input area it
    /// covers, partial pixels weighted by their overlap. Softer, never rings, fewer taps.
    case area
}

/// The taps of a one-dimensional resampling: output `i` is
/// `Σ weights[i * maxTaps + k] · input[first[i] + k]` for `k < count[i]`.
struct ResampleWeights {
    var first: [Int]
    var count: [Int]
    var weights: [Float]
    var maxTaps: Int
    /// The input range any output reads: `first.min() ..< (first + count).max()`.
    var inputRange: Range<Int>

    /// Weights mapping output pixel i (centre i + 0.5) to input position (i + 0.5) / scale − 0.5 + offset.
    /// - Parameters:
    ///   - scale: output pixels per input pixel.
    ///   - offset: input pixels cut off before the first output pixel (centre crop).
    init(inputCount: Int, outputCount: Int, scale: Double, offset: Double, filter: ResampleFilter) {
        var spans: [(Int, [Double])] = []
        spans.reserveCapacity(outputCount)
        let shrink = min(scale, 1)
        for i in 0..<outputCount {
            var lo = 0, taps: [Double] = []
            switch filter {
            case .area:
                let a = Double(i) / scale + offset, b = Double(i + 1) / scale + offset
                lo = max(0, Int(a.rounded(.down)))
                let hi = min(inputCount, Int(b.rounded(.up)))
                if lo < hi {
                    for j in lo..<hi { taps.append(max(0, min(Double(j + 1), b) - max(Double(j), a))) }
                }
            case .lanczos3:
                let c = (Double(i) + 0.5) / scale - 0.5 + offset
                let support = 3 / shrink
                lo = max(0, Int((c - support).rounded(.down)))
                let hi = min(inputCount, Int((c + support).rounded(.up)) + 1)
                if lo < hi {
                    for j in lo..<hi { taps.append(lanczos3((Double(j) - c) * shrink)) }
                }
            }
            // Drop zero taps at both ends so the inner loops stay short.
            while let last = taps.last, last == 0 { taps.removeLast() }
            while let firstTap = taps.first, firstTap == 0 { taps.removeFirst(); lo += 1 }
            var sum = 0.0
            for t in taps { sum += t }
            if taps.isEmpty || sum == 0 {
                // Degenerate (output far outside the input): take the nearest input pixel.
                lo = min(max(0, Int((Double(i) + 0.5) / scale + offset)), max(inputCount - 1, 0))
                taps = [1]
                sum = 1
            }
            spans.append((lo, taps.map { $0 / sum }))
        }
        let maxTaps = spans.map { $0.1.count }.max() ?? 0
        var weights = [Float](repeating: 0, count: maxTaps * outputCount)
        for (i, span) in spans.enumerated() {
            for (k, w) in span.1.enumerated() { weights[i * maxTaps + k] = Float(w) }
        }
        self.first = spans.map { $0.0 }
        self.count = spans.map { $0.1.count }
        self.weights = weights
        self.maxTaps = maxTaps
        let start = first.min() ?? 0
        let end = zip(first, count).map { $0 + $1 }.max() ?? 0
        self.inputRange = start..<max(start, end)
    }
}

/// sinc(x) · sinc(x / 3) for |x| < 3, else 0.
func lanczos3(_ x: Double) -> Double {
    let ax = abs(x)
    if ax >= 3 { return 0 }
    if ax < 1e-12 { return 1 }
    let px = Double.pi * x
    return 3 * sin(px) * sin(px / 3) / (px * px)
}
