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
                Scales IN.png to fill the square (centre-cropped), masks it to the icon shape with \
                anti-aliased edges and a 1 pt stroke of 10 % black, and writes an 8-bit RGBA PNG \
                to -o or to standard output.
                """
        )

        /// Input files are refused past this size before reading (an 8192 px PNG fits easily).
        static let inputLimit = 256 << 20

        @Argument(help: ArgumentHelp("The PNG to mask.", valueName: "in.png"))
        var input: String

        @OptionGroup var icon: IconOptions

        @Option(name: [.short, .customLong("output")],
                help: ArgumentHelp("Write the PNG here (default: standard output).", valueName: "out.png"))
        var output: String?

        func validate() throws {
            // An empty name would otherwise reach rename(2) and come back as a bare strerror.
            if output == "" {
                throw ValidationError("-o needs a file name (or - for standard output), not an empty string.")
            }
            if writesToStandardOutput && BinaryFile.standardOutputIsTerminal {
                throw ValidationError(
                    "refusing to write PNG data to a terminal; give -o OUT.png or redirect standard output.")
            }
        }

        private var writesToStandardOutput: Bool { output == nil || output == "-" }

        func run() throws {
            do throws(BinaryFileError) {
                // A repaired non-UTF-8 name would read or, worse, write another file.
                if let problem = FileArguments.problem(input) {
                    throw BinaryFileError(path: input, reason: problem, status: .noInput)
                }
                if let output, let problem = FileArguments.problem(output) {
                    throw BinaryFileError(path: output, reason: problem, status: .usage)
                }
                let bytes = try BinaryFile.readWhole(input, limit: Self.inputLimit)
                let png = try maskPNG(bytes)
                if writesToStandardOutput {
                    try BinaryFile.writeStandardOutput(png)
                } else if let output {
                    try BinaryFile.writeAtomically(png, to: output)
                }
            } catch {
                // Through Diagnostics so a file name with a newline or escape stays one safe line.
                var diagnostics = Diagnostics()
                diagnostics.fail(error.path, error.reason, status: error.status)
                try diagnostics.finish()
            }
        }

        /// Decode, mask, encode; a PNG the decoder refuses is bad data (65) about `input`.
        private func maskPNG(_ bytes: [UInt8]) throws(BinaryFileError) -> [UInt8] {
            do {
                let image = try PNGDecoder.decode(bytes, maxDimension: IconOptions.maxPixels)
                let masked = IconMasker.mask(image, options: icon.maskOptions)
                return try PNGEncoder.encode(masked)
            } catch {
                throw BinaryFileError(path: input, reason: error.description, status: .dataError)
            }
        }
    }
}
