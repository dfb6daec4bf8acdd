#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A point in pixel space: `x` grows to the right, `y` grows downwards, and pixel (i, j) is the
/// unit square `[i, i + 1] × [j, j + 1]`.
public struct PathPoint: Sendable, Equatable, Hashable {
    /// Horizontal position in pixels.
    public var x: Double
    /// Vertical position in pixels (downwards).
    public var y: Double

    /// Makes a point from its two coordinates.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A closed outline made of straight lines, cubic Bézier curves and circular arcs, for
/// ``CoverageRasteriser`` to fill.
///
/// Arcs are kept exact (not approximated by cubics, whose radial error of 0.027 % would be up to
/// 15/255 of coverage on a 1024 px icon's corners) and are flattened with the same tolerance as
/// the curves.
public struct ShapePath: Sendable, Equatable {
    /// One drawing step of a path.
    public enum Element: Sendable, Equatable {
        /// Starts a new sub-path at a point.
        case move(PathPoint)
        /// A straight line from the current point.
        case line(PathPoint)
        /// A cubic Bézier curve from the current point through two control points to `to`.
        case cubic(control1: PathPoint, control2: PathPoint, to: PathPoint)
        /// A straight line from the current point to the arc's start, then the arc of the circle
        /// around `center` from `startAngle` to `endAngle` (radians; with `y` downwards a growing
        /// angle turns clockwise on screen).
        case arc(center: PathPoint, radius: Double, startAngle: Double, endAngle: Double)
        /// Closes the current sub-path with a straight line back to its start.
        case close
    }

    /// The drawing steps, in order.
    public private(set) var elements: [Element] = []

    /// Makes an empty path.
    public init() {}

    /// Starts a new sub-path at `point`.
    public mutating func move(to point: PathPoint) { elements.append(.move(point)) }

    /// Adds a straight line from the current point to `point`.
    public mutating func line(to point: PathPoint) { elements.append(.line(point)) }

    /// Adds a cubic Bézier curve from the current point to `point`.
    public mutating func cubic(to point: PathPoint, control1: PathPoint, control2: PathPoint) {
        elements.append(.cubic(control1: control1, control2: control2, to: point))
    }

    /// Adds a line to the start of an arc and the arc itself; see ``Element/arc(center:radius:startAngle:endAngle:)``.
    public mutating func arc(center: PathPoint, radius: Double, startAngle: Double, endAngle: Double) {
        elements.append(.arc(center: center, radius: radius, startAngle: startAngle, endAngle: endAngle))
    }

    /// Closes the current sub-path.
    public mutating func close() { elements.append(.close) }

    /// Flattens the path into closed polygons whose edges stay within `tolerance` pixels of the
    /// true outline (chord height for arcs, the standard second-difference bound for cubics).
    ///
    /// - Parameter tolerance: the largest distance between a polygon edge and the curve it
    ///   replaces, in pixels. The default keeps the coverage error of an edge pixel at about
    ///   0.02/255 (a chord loses about ⅔ × tolerance of area per pixel of outline it spans).
    /// - Returns: one point list per sub-path; the closing edge from the last point back to the
    ///   first is implied.
    public func flattened(tolerance: Double = 1.0 / 16384) -> [[PathPoint]] {
        let tol = max(tolerance, 1e-9)
        var polygons: [[PathPoint]] = []
        var current: [PathPoint] = []
        func finish() {
            if current.count > 2 { polygons.append(current) }
            current = []
        }
        for element in elements {
            switch element {
            case .move(let p):
                finish()
                current.append(p)
            case .line(let p):
                current.append(p)
            case .cubic(let c1, let c2, let p3):
                guard let p0 = current.last else { current.append(p3); continue }
                // Uniform steps: the deviation is at most max|B''| / (8 n²) and
                // max|B''| ≤ 6 · max(|p0 − 2c1 + c2|, |c1 − 2c2 + p3|).
                let ddx = max(abs(p0.x - 2 * c1.x + c2.x), abs(c1.x - 2 * c2.x + p3.x))
                let ddy = max(abs(p0.y - 2 * c1.y + c2.y), abs(c1.y - 2 * c2.y + p3.y))
                let dd = (ddx * ddx + ddy * ddy).squareRoot()
                let n = ShapePath.steps((0.75 * dd / tol).squareRoot())
                for i in 1...n {
                    let t = Double(i) / Double(n), u = 1 - t
                    let b0 = u * u * u, b1 = 3 * u * u * t, b2 = 3 * u * t * t, b3 = t * t * t
                    current.append(PathPoint(x: b0 * p0.x + b1 * c1.x + b2 * c2.x + b3 * p3.x,
                                             y: b0 * p0.y + b1 * c1.y + b2 * c2.y + b3 * p3.y))
                }
            case .arc(let c, let r, let a0, let a1):
                let start = PathPoint(x: c.x + r * cos(a0), y: c.y + r * sin(a0))
                current.append(start)
                guard r > 0, r.isFinite, a1 != a0 else { continue }
                // Chord height r(1 − cos(θ/2)) ≤ tol.
                let step = 2 * acos(max(-1, 1 - tol / r))
                let n = ShapePath.steps(abs(a1 - a0) / step)
                for i in 1...n {
                    let a = a0 + (a1 - a0) * Double(i) / Double(n)
                    current.append(PathPoint(x: c.x + r * cos(a), y: c.y + r * sin(a)))
                }
            case .close:
                finish()
            }
        }
        finish()
        return polygons
    }

    /// A segment count for `x` rounded up, kept to 1…100 000 (NaN and infinities included) so
    /// junk coordinates cannot trap or exhaust memory.
    static func steps(_ x: Double) -> Int {
        guard x.isFinite else { return 1 }
        return max(1, min(100_000, Int(x.rounded(.up).clamped(to: 0...1e6))))
    }
}

fileprivate extension Double {
    func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
