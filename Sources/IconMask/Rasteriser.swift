/// How much of each pixel a shape covers, 0…1, row-major.
public struct CoverageMask: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width × height` covered areas, rows top to bottom.
    public var values: [Float]

    /// The covered area of pixel (`x`, `y`).
    public subscript(x: Int, y: Int) -> Float { values[y * width + x] }

    /// The total covered area in square pixels (the shape's area inside the mask's bounds).
    public var area: Double {
        var sum = 0.0
        for v in values { sum += Double(v) }
        return sum
    }
}

/// Fills paths with exact area coverage: each pixel gets the area of it that the flattened
/// outline encloses (non-zero winding), by signed-area accumulation along a scanline per pixel
/// row (the method of font-rs and stb_truetype 2). There is no sampling: the only error is the
/// flattening, under 1/16384 px a unit of outline with the default tolerance (about 0.02/255 of
/// an edge pixel's alpha), and pixels wholly inside or outside come out exactly 1 or 0.
public enum CoverageRasteriser {
    /// Rasterises `path` into a `width × height` mask covering `[0, width] × [0, height]`.
    ///
    /// - Parameters:
    ///   - path: the outline; parts outside the mask are clipped.
    ///   - width: mask width in pixels (negative counts as 0).
    ///   - height: mask height in pixels (negative counts as 0).
    ///   - tolerance: flattening tolerance in pixels, see ``ShapePath/flattened(tolerance:)``.
    public static func rasterise(_ path: ShapePath, width: Int, height: Int,
                                 tolerance: Double = 1.0 / 16384) -> CoverageMask {
        rasterise(path.flattened(tolerance: tolerance), width: width, height: height, top: 0)
    }

    /// Rasterises already flattened polygons into the `width × height` band of rows that starts
    /// at row `top` of the full picture. Each row's coverage depends only on the edges crossing
    /// that row, so a band equals the same rows of the whole mask; masking in bands keeps the
    /// memory of large icons small.
    static func rasterise(_ polygons: [[PathPoint]], width: Int, height: Int, top: Int) -> CoverageMask {
        let w = max(width, 0), h = max(height, 0)
        var accumulator = Accumulator(width: w, height: h)
        let dy = Double(top)
        for polygon in polygons {
            var previous = polygon[polygon.count - 1]
            previous.y -= dy
            for var point in polygon {
                point.y -= dy
                accumulator.addClipped(previous, point)
                previous = point
            }
        }
        return accumulator.finish()
    }
}

/// Signed area and cover per cell; a row's prefix sum is the winding-weighted coverage.
struct Accumulator {
    let width: Int
    let height: Int
    /// Two spare cells a row: an edge at x = width writes cells `width` and `width + 1`.
    let stride: Int
    var cells: [Float]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        self.stride = width + 2
        self.cells = [Float](repeating: 0, count: stride * height)
    }

    /// Adds an edge, first clipping it to `0 ≤ x ≤ width`: a part left of the mask is moved
    /// onto x = 0 (it still covers every pixel to its right), a part right of it is dropped.
    mutating func addClipped(_ p0: PathPoint, _ p1: PathPoint) {
        let wd = Double(width)
        if p0.x >= 0, p0.x <= wd, p1.x >= 0, p1.x <= wd {
            addLine(p0.x, p0.y, p1.x, p1.y)
            return
        }
        // Split where the edge crosses x = 0 and x = width (at most two cuts).
        var ts: (Double, Double) = (2, 2)
        let dx = p1.x - p0.x
        if dx != 0 {
            let t0 = (0 - p0.x) / dx, t1 = (wd - p0.x) / dx
            let a = (t0 > 0 && t0 < 1) ? t0 : 2, b = (t1 > 0 && t1 < 1) ? t1 : 2
            ts = a < b ? (a, b) : (b, a)
        }
        var tStart = 0.0
        for tEnd in [ts.0, ts.1, 1.0] where tEnd <= 1 && tEnd > tStart {
            let ya = p0.y + (p1.y - p0.y) * tStart, yb = p0.y + (p1.y - p0.y) * tEnd
            let xa = p0.x + dx * tStart, xb = p0.x + dx * tEnd
            let mid = (xa + xb) / 2
            if mid < 0 {
                addLine(0, ya, 0, yb)
            } else if mid <= wd {
                addLine(min(max(xa, 0), wd), ya, min(max(xb, 0), wd), yb)
            }
            tStart = tEnd
            if tEnd == 1 { break }
        }
    }

    /// Adds an edge lying within `0 ≤ x ≤ width`.
    mutating func addLine(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        guard y0 != y1, y0.isFinite, y1.isFinite, x0.isFinite, x1.isFinite else { return }
        let dir: Double = y0 < y1 ? 1 : -1
        let (xa, ya, xb, yb) = y0 < y1 ? (x0, y0, x1, y1) : (x1, y1, x0, y0)
        let top = max(ya, 0), bottom = min(yb, Double(height))
        guard top < bottom else { return }
        let dxdy = (xb - xa) / (yb - ya)
        // Clamped so rounding can never step outside the row's cells.
        let wd = Double(width)
        var x = min(max(xa + (top - ya) * dxdy, 0), wd)
        let rowStart = Int(top.rounded(.down)), rowEnd = Int(bottom.rounded(.up))
        let stride = self.stride
        cells.withUnsafeMutableBufferPointer { a in
            for row in rowStart..<rowEnd {
                let base = row * stride
                let dy = min(Double(row + 1), bottom) - max(Double(row), top)
                let xNext = min(max(x + dxdy * dy, 0), wd)
                let d = dy * dir
                let (lo, hi) = x < xNext ? (x, xNext) : (xNext, x)
                let loFloor = lo.rounded(.down), hiCeil = hi.rounded(.up)
                let i0 = Int(loFloor), i1 = Int(hiCeil)
                if i1 <= i0 + 1 {
                    // Within one cell: the part right of the edge's mean x spills into the next.
                    let xm = 0.5 * (x + xNext) - loFloor
                    a[base + i0] += Float(d - d * xm)
                    a[base + i0 + 1] += Float(d * xm)
                } else {
                    // Across cells: a triangle in the first, trapezoids between, the rest after.
                    let s = 1 / (hi - lo)
                    let f0 = lo - loFloor
                    let a0 = 0.5 * s * (1 - f0) * (1 - f0)
                    let f1 = hi - hiCeil + 1
                    let am = 0.5 * s * f1 * f1
                    a[base + i0] += Float(d * a0)
                    if i1 == i0 + 2 {
                        a[base + i0 + 1] += Float(d * (1 - a0 - am))
                    } else {
                        let a1 = s * (1.5 - f0)
                        a[base + i0 + 1] += Float(d * (a1 - a0))
                        if i0 + 2 < i1 - 1 {
                            for i in (i0 + 2)..<(i1 - 1) { a[base + i] += Float(d * s) }
                        }
                        let a2 = a1 + Double(i1 - i0 - 3) * s
                        a[base + i1 - 1] += Float(d * (1 - a2 - am))
                    }
                    a[base + i1] += Float(d * am)
                }
                x = xNext
            }
        }
    }

    /// Turns the accumulated cells into coverage: prefix sum along each row, |winding| ≤ 1.
    func finish() -> CoverageMask {
        var out = [Float](repeating: 0, count: width * height)
        let (w, stride) = (width, self.stride)
        cells.withUnsafeBufferPointer { a in
            out.withUnsafeMutableBufferPointer { o in
                for row in 0..<height {
                    var sum: Float = 0
                    let base = row * stride, ob = row * w
                    for i in 0..<w {
                        sum += a[base + i]
                        // Snap the last ulps of cancellation so pixels wholly inside or outside
                        // are exactly 1 or 0 (callers skip those); 1e-6 is far below 1/255.
                        let v = abs(sum)
                        o[ob + i] = v < 1e-6 ? 0 : (v > 1 - 1e-6 ? 1 : v)
                    }
                }
            }
        }
        return CoverageMask(width: width, height: height, values: out)
    }
}
