import Testing
@testable import IconMask

@Suite("Shapes and coverage")
struct ShapeTests {
    @Test("corner radius is round(0.225 × size_pt) × scale, half up",
          arguments: [(29, 1, 7), (29, 2, 14), (29, 3, 21), (58, 1, 13), (60, 3, 42), (180, 1, 41),
                      (20, 1, 5), (40, 2, 18), (1024, 1, 230), (1, 1, 0), (2, 1, 0), (3, 1, 1)])
    func radius(pt: Int, scale: Int, expected: Int) {
        #expect(MaskOptions(sizePoints: pt, scale: scale).cornerRadiusPixels == expected)
        #expect(MaskOptions(sizePoints: pt, scale: scale).pixelSize == pt * scale)
    }

    @Test("sizes and scales that overflow Int give 0 px and 0 radius instead of trapping")
    func overflowingOptions() {
        let huge = MaskOptions(sizePoints: Int.max / 2 + 1, scale: 2)
        #expect(huge.pixelSize == 0)
        #expect(throws: MaskOptionsError(.tooLarge(limit: MaskOptions.maximumPixelSize), huge)) { try huge.validate() }
        let wideScale = MaskOptions(sizePoints: Int.max / 1000, scale: Int.max)
        #expect(wideScale.pixelSize == 0 && wideScale.cornerRadiusPixels == 0)
        #expect(throws: MaskOptionsError(.scaleNotSupported, wideScale)) { try wideScale.validate() }
        // The masker throws for such options rather than trapping.
        var empty = PremultipliedImage(width: 0, height: 0, pixels: [])
        IconMasker.apply(huge, to: &empty)
        #expect(throws: MaskOptionsError.self) {
            try IconMasker.mask(RGBAImage(width: 1, height: 1, pixels: [1, 2, 3, 255]), options: huge)
        }
    }

    @Test("defaults are 29 pt, 1x, continuous, stroked")
    func defaults() {
        let o = MaskOptions()
        #expect(o.sizePoints == 29 && o.scale == 1 && o.shape == .continuous && o.stroke && o.filter == .lanczos3)
        #expect(IconShape(rawValue: "circular") == .circular && IconShape.allCases.count == 3)
    }

    @Test("options with a bad size or scale throw a typed error")
    func problems() throws {
        try MaskOptions().validate()
        try MaskOptions(sizePoints: 1024, scale: 2).validate()
        try MaskOptions(sizePoints: 682, scale: 3).validate()
        #expect(MaskOptions.maximumPixelSize == 2048)
        func kind(_ o: MaskOptions) -> MaskOptionsError.Kind? {
            do { try o.validate() } catch { return error.kind }
            return nil
        }
        #expect(kind(MaskOptions(sizePoints: 0)) == .sizeNotPositive)
        #expect(kind(MaskOptions(sizePoints: -3)) == .sizeNotPositive)
        #expect(kind(MaskOptions(scale: 4)) == .scaleNotSupported)
        #expect(kind(MaskOptions(scale: 0)) == .scaleNotSupported)
        #expect(kind(MaskOptions(sizePoints: 683, scale: 3)) == .tooLarge(limit: 2048))
        #expect(kind(MaskOptions(sizePoints: 2049)) == .tooLarge(limit: 2048))
        #expect(kind(MaskOptions(sizePoints: Int.max, scale: 2)) == .tooLarge(limit: 2048))
        // The library's words name the values, never a command-line flag.
        for o in [MaskOptions(sizePoints: 0), MaskOptions(scale: 4), MaskOptions(sizePoints: 4000)] {
            do { try o.validate() } catch {
                #expect(!error.description.contains("--") && !error.description.isEmpty)
            }
        }
    }

    @Test("circular coverage sums to N² − (4 − π) r²", arguments: [(29, 7.0), (58, 13.0), (180, 41.0), (100, 50.0), (180, 40.5)])
    func circularArea(n: Int, r: Double) {
        let mask = CoverageRasteriser.rasterise(IconShape.circular.outline(x: 0, y: 0, width: Double(n), height: Double(n), radius: r),
                                                width: n, height: n)
        let expected = Double(n * n) - (4 - Double.pi) * r * r
        // Chords lie inside the arcs: the flattened area falls short by ≈ ⅔ · tolerance · arc length.
        let bias = 2.0 / 3 * (1.0 / 16384) * 2 * Double.pi * r
        #expect(abs(expected - bias - mask.area) < 2e-3, "area \(mask.area) vs \(expected) − \(bias)")
    }

    /// The area of the continuous outline by Green's theorem on the exact Bézier curves
    /// (3-point Gauss–Legendre is exact for the degree-5 integrand), independent of flattening.
    static func bezierArea(_ path: ShapePath) -> Double {
        var area = 0.0, cur = PathPoint(x: 0, y: 0), start = cur
        let gx = [-0.7745966692414834, 0.0, 0.7745966692414834], gw = [5.0 / 9, 8.0 / 9, 5.0 / 9]
        func seg(_ a: PathPoint, _ b: PathPoint) { area += (a.x * b.y - b.x * a.y) / 2 }
        for e in path.elements {
            switch e {
            case .move(let p): cur = p; start = p
            case .line(let p): seg(cur, p); cur = p
            case .cubic(let c1, let c2, let p3):
                let p0 = cur
                for (x, w) in zip(gx, gw) {
                    let t = (x + 1) / 2, u = 1 - t
                    let px = u * u * u * p0.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * p3.x
                    let py = u * u * u * p0.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * p3.y
                    let dx = 3 * (u * u * (c1.x - p0.x) + 2 * u * t * (c2.x - c1.x) + t * t * (p3.x - c2.x))
                    let dy = 3 * (u * u * (c1.y - p0.y) + 2 * u * t * (c2.y - c1.y) + t * t * (p3.y - c2.y))
                    area += w / 2 * (px * dy - py * dx) / 2
                }
                cur = p3
            case .close: seg(cur, start); cur = start
            case .arc: Issue.record("no arcs expected")
            }
        }
        return abs(area)
    }

    @Test("continuous coverage sums to the exact area of the Bézier outline", arguments: [(29, 7.0), (58, 14.0), (180, 41.0), (1024, 230.0), (50, 30.0)])
    func continuousArea(n: Int, r: Double) {
        let path = IconShape.continuous.outline(x: 0, y: 0, width: Double(n), height: Double(n), radius: r)
        let mask = CoverageRasteriser.rasterise(path, width: n, height: n)
        let expected = Self.bezierArea(path)
        // Flattening can only fall short, by at most ⅔ · tolerance · curve length (≤ 4 · 3.06 r).
        let bound = 2.0 / 3 * (1.0 / 16384) * 4 * 3.06 * r + 1e-3
        #expect(expected - mask.area > -1e-3 && expected - mask.area < bound, "area \(mask.area) vs \(expected)")
        // The continuous corner cuts more than a circular one of the same radius.
        #expect(expected < Double(n * n) - (4 - Double.pi) * min(r, Double(n) / 2 / 1.52866483) * min(r, Double(n) / 2 / 1.52866483))
    }

    @Test("the continuous corner starts 1.52866483 r from the corner and the radius is clamped")
    func continuousGeometry() {
        let p = IconShape.continuous.outline(x: 0, y: 0, width: 100, height: 100, radius: 10)
        guard case .move(let start) = p.elements.first else { Issue.record(); return }
        #expect(abs(start.x - 15.2866483) < 1e-12 && start.y == 0)
        #expect(p.elements.count == 1 + 4 * 6 + 1)
        // r = 40 is more than 100 / 2 / 1.5287 ≈ 32.7: the curves meet in the middle of each side.
        let big = IconShape.continuous.outline(x: 0, y: 0, width: 100, height: 100, radius: 40)
        guard case .move(let s) = big.elements[0], case .line(let e) = big.elements[1] else { Issue.record(); return }
        #expect(abs(s.x - 50) < 1e-9 && abs(e.x - 50) < 1e-9)
    }

    @Test("coverage is symmetric under both mirrors and the diagonal", arguments: IconShape.allCases, [29, 58, 87])
    func symmetry(shape: IconShape, n: Int) {
        let r = Double(MaskOptions(sizePoints: n).cornerRadiusPixels)
        let m = CoverageRasteriser.rasterise(shape.outline(x: 0, y: 0, width: Double(n), height: Double(n), radius: r), width: n, height: n)
        var worst: Float = 0
        for y in 0..<n {
            for x in 0..<n {
                let v = m[x, y]
                worst = max(worst, abs(v - m[n - 1 - x, y]), abs(v - m[x, n - 1 - y]), abs(v - m[y, x]))
            }
        }
        #expect(worst < 1e-4)
    }

    @Test("interior pixels are exactly 1 and pixels outside exactly 0")
    func exactInsideOutside() {
        let n = 58, r = 13.0
        let m = CoverageRasteriser.rasterise(IconShape.circular.outline(x: 0, y: 0, width: 58, height: 58, radius: r), width: n, height: n)
        #expect(m[29, 29] == 1 && m[0, 29] == 1 && m[29, 0] == 1)
        #expect(m[0, 0] == 0 && m[57, 57] == 0 && m[1, 0] == 0)
        #expect(IconShape.none.outline(x: 0, y: 0, width: 58, height: 58, radius: r).elements.count == 5)
        let square = CoverageRasteriser.rasterise(IconShape.none.outline(x: 0, y: 0, width: 58, height: 58, radius: r), width: n, height: n)
        #expect(square.values.allSatisfy { $0 == 1 })
    }

    @Test("each edge pixel of a circular corner is its exact covered area (≪ 1/255)")
    func exactCornerPixels() {
        // Quarter circle of radius 7 in the top-left corner of a 29 px rounded square; the area
        // of pixel (i, j) inside the circle is integrated in x with 4096 midpoint samples, exact in y.
        let n = 29, r = 7.0
        let m = CoverageRasteriser.rasterise(IconShape.circular.outline(x: 0, y: 0, width: 29, height: 29, radius: r), width: n, height: n)
        var worst = 0.0
        for j in 0..<8 {
            for i in 0..<8 {
                var sum = 0.0
                let samples = 4096
                for s in 0..<samples {
                    let x = Double(i) + (Double(s) + 0.5) / Double(samples)
                    let d = max(0, r - x)
                    let top = x < r ? r - (r * r - d * d).squareRoot() : 0
                    sum += max(0, min(Double(j + 1), 29) - max(Double(j), top))
                }
                worst = max(worst, abs(sum / Double(samples) - Double(m[i, j])))
            }
        }
        #expect(worst < 0.1 / 255, "worst error \(worst * 255)/255")
    }

    @Test("paths are clipped to the mask: a square half outside covers exactly its inside part")
    func clipping() {
        var p = ShapePath()
        p.addRectangle(x: -5.5, y: -3.25, width: 12, height: 8)  // spans x −5.5…6.5, y −3.25…4.75
        let m = CoverageRasteriser.rasterise(p, width: 5, height: 10)
        #expect(abs(m.area - 5 * 4.75) < 1e-5)
        #expect(m[4, 0] == 1 && abs(m[2, 4] - 0.75) < 1e-6 && m[2, 5] == 0)
        // Reversed winding gives the same coverage (non-zero rule with |winding|).
        var q = ShapePath()
        q.move(to: PathPoint(x: 1, y: 1)); q.line(to: PathPoint(x: 1, y: 3)); q.line(to: PathPoint(x: 3.5, y: 3)); q.line(to: PathPoint(x: 3.5, y: 1)); q.close()
        let mq = CoverageRasteriser.rasterise(q, width: 5, height: 5)
        #expect(abs(mq.area - 5) < 1e-6 && abs(mq[3, 1] - 0.5) < 1e-6)
    }

    @Test("junk coordinates (NaN, infinities, huge, hairline edges at the borders) never trap")
    func junk() {
        var p = ShapePath()
        p.move(to: PathPoint(x: -1e-300, y: 0)); p.line(to: PathPoint(x: .nan, y: 3)); p.line(to: PathPoint(x: .infinity, y: 5))
        p.line(to: PathPoint(x: -.infinity, y: -.infinity)); p.line(to: PathPoint(x: 1e308, y: 2)); p.line(to: PathPoint(x: 5 + 1e-15, y: 4.9999999999))
        p.line(to: PathPoint(x: -1e-15, y: 1e-15))
        p.cubic(to: PathPoint(x: 1, y: .nan), control1: PathPoint(x: .infinity, y: 0), control2: PathPoint(x: 1e300, y: -1e300))
        p.arc(center: PathPoint(x: 2, y: 2), radius: .nan, startAngle: 0, endAngle: .infinity)
        p.arc(center: PathPoint(x: 2, y: 2), radius: 1, startAngle: 0, endAngle: .nan)
        p.arc(center: PathPoint(x: 2, y: 2), radius: 1e300, startAngle: 0, endAngle: 1e300)
        p.close()
        let m = CoverageRasteriser.rasterise(p, width: 5, height: 5)
        #expect(m.values.allSatisfy { $0 >= 0 && $0 <= 1 })
        #expect(CoverageRasteriser.rasterise(p, width: 0, height: 3).values.isEmpty)
    }

    @Test("a diagonal edge gives exact triangle areas")
    func diagonal() {
        var p = ShapePath()
        p.move(to: PathPoint(x: 0, y: 0)); p.line(to: PathPoint(x: 4, y: 4)); p.line(to: PathPoint(x: 0, y: 4)); p.close()
        let m = CoverageRasteriser.rasterise(p, width: 4, height: 4)
        for k in 0..<4 { #expect(abs(m[k, k] - 0.5) < 1e-6) }
        #expect(m[0, 3] == 1 && m[3, 0] == 0 && abs(m.area - 8) < 1e-5)
    }
}
