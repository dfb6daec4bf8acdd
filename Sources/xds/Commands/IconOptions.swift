import ArgumentParser
import IconMask

/// The flags that say how big an icon is and how it is shaped; shared by `xds mask` and
/// `xds icon` (SPEC §4, §5).
struct IconOptions: ParsableArguments {
    /// The largest image side we produce, in pixels (the decoder's default limit too).
    static let maxPixels = MaskOptions.maximumPixelSize

    // .unconditional: "--size -3" reaches validate() and gets the sentence below, instead of
    // ArgumentParser taking "-3" for a flag and reporting a missing value.
    @Option(parsing: .unconditional, help: "Icon size in points.")
    var size: Int = 29

    @Option(parsing: .unconditional, help: "Pixels per point: 1, 2 or 3 (--size 29 --scale 2 gives 58 px).")
    var scale: Int = 1

    @Option(help: "Corner shape: continuous (as iOS draws icons), circular or none (square).")
    var shape: ShapeOption = .continuous

    @Flag(name: .customLong("no-stroke"), help: "Leave out the 1 pt outline of 10 % black.")
    var noStroke = false

    mutating func validate() throws {
        guard size > 0 else {
            throw ValidationError("--size must be a positive number of points, not \(size).")
        }
        guard [1, 2, 3].contains(scale) else {
            throw ValidationError("--scale must be 1, 2 or 3, not \(scale).")
        }
        guard size <= Self.maxPixels / scale else {
            throw ValidationError("--size \(size) at --scale \(scale) would be \(size.multipliedReportingOverflow(by: scale).partialValue) px; "
                                  + "the largest icon is \(Self.maxPixels) px.")
        }
        // The library's own check, should it ever be stricter than the flags above.
        if let problem = maskOptions.problem { throw ValidationError("\(problem).") }
    }

    /// Side of the square result in pixels.
    var pixelSize: Int { size * scale }

    /// The options in the library's terms.
    var maskOptions: MaskOptions {
        MaskOptions(sizePoints: size, scale: scale, shape: shape.iconShape, stroke: !noStroke)
    }
}

/// The values of `--shape`, mapped onto ``IconShape`` (kept apart so the library type does not
/// depend on ArgumentParser).
enum ShapeOption: String, CaseIterable, ExpressibleByArgument {
    case continuous, circular, none

    /// The library's shape.
    var iconShape: IconShape {
        switch self {
        case .continuous: .continuous
        case .circular: .circular
        case .none: .none
        }
    }
}
