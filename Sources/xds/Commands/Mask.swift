import ArgumentParser
import IconMask

extension XDS {
    /// `xds mask IN.png`: masks a PNG to the app-icon shape and writes an N×N RGBA PNG.
    struct Mask: ParsableCommand {
        // An explicit name: otherwise ArgumentParser derives it from the type through
        // String(describing:), a reflection that costs ~0.5 ms of every start.
        static let configuration = CommandConfiguration(
            commandName: "mask",
            abstract: "Mask a PNG to the app-icon shape.",
            discussion: """
                Scales IN.png (- for standard input; at most \(Mask.maxInputPixels) px a side) \
                to fill the square (centre-cropped), masks it to the icon shape with anti-aliased \
                edges and a 1 pt stroke of 10 % black, and writes an 8-bit RGBA PNG of at most \
                \(IconOptions.maxPixels) px a side to -o or to standard output.

                Examples:
                  xds mask icon-1024.png --size 29 --scale 2 -o icon-58.png
                  xds mask icon-1024.png --size 60 --scale 3 --shape circular -o icon-180.png
                  curl -s https://example.com/icon.png | xds mask - -o icon.png
                """
        )

        /// Inputs are never read past this size (an 8192 px PNG fits easily); within it, no
        /// more is read than the PNG header can justify.
        static let inputLimit = 256 << 20

        /// The largest input side the decoder accepts (SPEC: 8192 px).
        static let maxInputPixels = PNGDecoder.defaultMaxDimension

        @Argument(help: ArgumentHelp("The PNG to mask (- for standard input).", valueName: "in.png"))
        var input: String

        @OptionGroup var icon: IconOptions

        @Option(name: [.short, .customLong("output")],
                help: ArgumentHelp("Write the PNG here (default: standard output).", valueName: "out.png"))
        var output: String?

        func validate() throws {
            try commandLine.validate()
        }

        func run() throws {
            try commandLine.run()
        }

        /// What was asked, as plain values (what the fast path builds too, ``XDS/Route``).
        var commandLine: MaskCommandLine {
            MaskCommandLine(input: input, options: icon.maskOptions, output: output)
        }

        /// The command's work, for ArgumentParser's route and the fast path alike.
        static func run(input: String, options: MaskOptions, output: String?) throws {
            let inputName = input == "-" ? BinaryFile.standardInputName : input
            var destination: PNGDestination.Opened?
            do throws(BinaryFileError) {
                // A repaired non-UTF-8 name would read or, worse, write another file.
                if input != "-", let problem = FileArguments.problem(input) {
                    throw BinaryFileError(path: input, reason: problem, status: .noInput)
                }
                // The output first: an unwritable folder fails before any work.
                destination = try PNGDestination(output: output).open()
                try destination!.commit(try maskPNG(input: input, name: inputName, options: options))
            } catch {
                destination?.discard()
                // Through Diagnostics so a file name with a newline or escape stays one safe line.
                var diagnostics = Diagnostics()
                diagnostics.fail(error.path, error.reason, status: error.status)
                try diagnostics.finish()
            }
        }

        /// Read, decode, mask, encode; a PNG the decoder refuses is bad data (65) about the input.
        /// Each stage's input is dropped when the stage is done, so the file bytes and the
        /// decoded input are not held while the next stages run.
        private static func maskPNG(input: String, name: String, options: MaskOptions) throws(BinaryFileError) -> [UInt8] {
            do {
                let masked = try IconMasker.mask(decode(input, name: name), options: options)
                return try PNGEncoder.encode(masked)
            } catch let error as BinaryFileError {
                throw error
            } catch let error as MaskOptionsError {
                throw BinaryFileError(path: name, reason: IconOptions.words(error), status: .usage)
            } catch {
                throw BinaryFileError(path: name, reason: "\(error)", status: ExitStatus(png: error))
            }
        }

        /// Reads the input, no further than its header can justify, and decodes it.
        private static func decode(_ input: String, name: String) throws -> RGBAImage {
            let bytes = try BinaryFile.readBounded(input, prefixCount: PNGHeader.prefixSize) { prefix throws(BinaryFileError) in
                do throws(PNGError) {
                    let header = try PNGDecoder.header(prefix)
                    // Refused from the header, before the image data is read.
                    if max(header.width, header.height) > Self.maxInputPixels {
                        throw PNGError(.tooLarge, "image is \(header.width)×\(header.height) px; the limit is \(Self.maxInputPixels) px on a side")
                    }
                    return min(header.largestPlausibleFileSize, Self.inputLimit)
                } catch {
                    throw BinaryFileError(path: name, reason: error.description, status: ExitStatus(png: error))
                }
            }
            return try PNGDecoder.decode(bytes, maxDimension: Self.maxInputPixels)
        }
    }
}

/// What `xds mask` was asked, as plain values: from ArgumentParser's parse of ``XDS/Mask`` or
/// from the plain command line of the fast path (``XDS/Route``); both check it with the one
/// ``validate()`` and run it with ``run()``.
struct MaskCommandLine: Equatable {
    var input: String
    var options = IconOptions.defaults
    var output: String?

    /// Every check of the command's values, in the order ArgumentParser makes them (the
    /// ``IconOptions`` group first): a check belongs here, not in ``XDS/Mask/validate()``, so
    /// that the fast path makes it too.
    func validate() throws {
        try IconOptions.validate(options)
        try PNGDestination(output: output).validate()
    }

    /// Masks the input and writes the PNG.
    func run() throws {
        try XDS.Mask.run(input: input, options: options, output: output)
    }
}
