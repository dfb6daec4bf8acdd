import ArgumentParser
import IconMask

/// The flags that say how big an icon is and how it is shaped; shared by `xds mask` and
/// `xds icon` (SPEC §4, §5).
struct IconOptions: ParsableArguments {
    /// The largest icon side we produce, in pixels (``MaskOptions/maximumPixelSize``).
    static let maxPixels = MaskOptions.maximumPixelSize

    /// An icon without flags: the library's own defaults (29 pt at 1x, continuous corners, the
    /// stroke). The options below and the fast paths' ``PlainIconFlags`` both start from it.
    static let defaults = MaskOptions()

    // .unconditional: "--size -3" reaches validate() and gets the sentence below, instead of
    // ArgumentParser taking "-3" for a flag and reporting a missing value.
    @Option(parsing: .unconditional,
            help: "Icon size in points; --size × --scale is at most \(IconOptions.maxPixels) px.")
    var size: Int = IconOptions.defaults.sizePoints

    @Option(parsing: .unconditional, help: "Pixels per point: 1, 2 or 3 (--size 29 --scale 2 gives 58 px).")
    var scale: Int = IconOptions.defaults.scale

    @Option(help: "Corner shape: continuous (as iOS draws icons), circular or none (square).")
    var shape: IconShape = IconOptions.defaults.shape

    @Flag(name: .customLong("no-stroke"), help: "Leave out the 1 pt outline of 10 % black.")
    var noStroke = !IconOptions.defaults.stroke

    mutating func validate() throws {
        try Self.validate(maskOptions)
    }

    /// The check of these flags, for ArgumentParser's parse (``validate()``) and the commands'
    /// plain values (``MaskCommandLine/validate()``, ``IconCommandLine/validate()``) alike.
    static func validate(_ options: MaskOptions) throws {
        do throws(MaskOptionsError) {
            try options.validate()
        } catch {
            throw ValidationError(words(error))
        }
    }

    /// The library's problem worded with this command's flag names.
    static func words(_ error: MaskOptionsError) -> String {
        let o = error.options
        switch error.kind {
        case .sizeNotPositive:
            return "--size must be a positive number of points, not \(o.sizePoints)."
        case .scaleNotSupported:
            return "--scale must be 1, 2 or 3, not \(o.scale)."
        case .tooLarge(let limit):
            let (px, overflow) = o.sizePoints.multipliedReportingOverflow(by: o.scale)
            return "--size \(o.sizePoints) at --scale \(o.scale) would be "
                + (overflow ? "more than \(Int.max)" : "\(px)") + " px; the largest icon is \(limit) px."
        }
    }

    /// Side of the square result in pixels.
    var pixelSize: Int { size * scale }

    /// The options in the library's terms.
    var maskOptions: MaskOptions {
        MaskOptions(sizePoints: size, scale: scale, shape: shape, stroke: !noStroke)
    }
}

// The library's shape is parsed straight from its raw values (continuous, circular, none),
// (no @retroactive: IconShape is in the same package)
// and --help lists them; IconMask itself does not depend on ArgumentParser.
extension IconShape: ExpressibleByArgument {}
