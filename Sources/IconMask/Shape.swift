/// The outline an icon is masked to.
public enum IconShape: String, CaseIterable, Sendable {
    /// Apple's continuous-corner rounded rectangle, as iOS draws app icons and
    /// `UIBezierPath(roundedRect:cornerRadius:)` has drawn since iOS 7: each corner is three
    /// cubics and two short lines that start 1.52866483 × r from the corner, so the curvature
    /// grows smoothly instead of jumping at the tangent point.
    case continuous
    /// A rounded rectangle with quarter-circle corners.
    case circular
    /// The square itself (no corners cut).
    case none

    /// How far from the corner, in multiples of the radius, a continuous corner begins.
    public static let continuousCornerExtent = 1.52866483

    /// One continuous corner as drawn when leaving an edge, in multiples of the radius: (distance
    /// from the corner along the edge being left, distance along the next edge). Three cubics
    /// (control 1, control 2, end) with a short line before the second and third. Source:
    /// PaintCode's "iOS 7 rounded rectangle" code
    /// (http://www.paintcodeapp.com/news/code-for-ios-7-rounded-rectangles, its
    /// `UIBezierPath+IOS7RoundedRect`).
    static let continuousCorner: [(c1: (Double, Double), c2: (Double, Double), end: (Double, Double), lineTo: (Double, Double)?)] = [
        (c1: (1.08849323, 0), c2: (0.86840689, 0), end: (0.66993427, 0.06549600), lineTo: (0.63149399, 0.07491100)),
        (c1: (0.37282392, 0.16905899), c2: (0.16906013, 0.37282401), end: (0.07491100, 0.63149399),
         lineTo: (0.06549600, 0.66993427)),
        (c1: (0, 0.86840701), c2: (0, 1.08849299), end: (0, 1.52866483), lineTo: nil),
    ]

    /// The outline of this shape filling the rectangle `x…x+width × y…y+height`, with corner
    /// radius `radius` pixels, drawn clockwise on screen starting on the top edge.
    ///
    /// The radius is clamped as UIKit and PaintCode do: to half the shorter side for `circular`,
    /// and to half the shorter side ÷ 1.52866483 for `continuous`, so two corners never overlap.
    /// A radius of zero or less, or shape `none`, gives the plain rectangle.
    public func outline(x: Double, y: Double, width: Double, height: Double, radius: Double) -> ShapePath {
        var path = ShapePath()
        let w = max(width, 0), h = max(height, 0)
        let shortSide = min(w, h)
        switch self {
        case .none:
            path.addRectangle(x: x, y: y, width: w, height: h)
        case _ where !(radius > 0) || shortSide <= 0:
            path.addRectangle(x: x, y: y, width: w, height: h)
        case .circular:
            let r = min(radius, shortSide / 2)
            path.move(to: PathPoint(x: x + r, y: y))
            let quarter = Double.pi / 2
            path.arc(center: PathPoint(x: x + w - r, y: y + r), radius: r, startAngle: -quarter, endAngle: 0)
            path.arc(center: PathPoint(x: x + w - r, y: y + h - r), radius: r, startAngle: 0, endAngle: quarter)
            path.arc(center: PathPoint(x: x + r, y: y + h - r), radius: r, startAngle: quarter, endAngle: 2 * quarter)
            path.arc(center: PathPoint(x: x + r, y: y + r), radius: r, startAngle: 2 * quarter, endAngle: 3 * quarter)
            path.close()
        case .continuous:
            let e = IconShape.continuousCornerExtent
            let r = min(radius, shortSide / 2 / e)
            // Maps corner-frame (a, b) to pixels, one mapping per corner in drawing order.
            let corners: [(Double, Double) -> PathPoint] = [
                { a, b in PathPoint(x: x + w - a * r, y: y + b * r) },      // top right
                { a, b in PathPoint(x: x + w - b * r, y: y + h - a * r) },  // bottom right
                { a, b in PathPoint(x: x + a * r, y: y + h - b * r) },      // bottom left
                { a, b in PathPoint(x: x + b * r, y: y + a * r) },          // top left
            ]
            path.move(to: PathPoint(x: x + e * r, y: y))
            for map in corners {
                path.line(to: map(e, 0))
                for seg in IconShape.continuousCorner {
                    path.cubic(to: map(seg.end.0, seg.end.1), control1: map(seg.c1.0, seg.c1.1),
                               control2: map(seg.c2.0, seg.c2.1))
                    if let l = seg.lineTo { path.line(to: map(l.0, l.1)) }
                }
            }
            path.close()
        }
        return path
    }
}

extension ShapePath {
    /// Adds a closed rectangle, clockwise on screen from its top-left corner.
    public mutating func addRectangle(x: Double, y: Double, width: Double, height: Double) {
        move(to: PathPoint(x: x, y: y))
        line(to: PathPoint(x: x + width, y: y))
        line(to: PathPoint(x: x + width, y: y + height))
        line(to: PathPoint(x: x, y: y + height))
        close()
    }
}
