import XDocSource
import ArgumentParser

/// Where `xds mask` and `xds icon` write their PNG: `-o FILE` (whole or not at all, through
/// XDocSource's `AtomicFile`: links followed, an old file's mode and owner kept) or standard
/// output, never a terminal.
struct PNGDestination {
    /// The `-o` value; nil or `-` means standard output.
    let output: String?

    /// Whether the PNG goes to standard output.
    var isStandardOutput: Bool { output == nil || output == "-" }

    /// The usage checks both commands make before any work: an empty `-o`, and a terminal as
    /// the destination (binary data would garble it).
    func validate() throws {
        // An empty name would otherwise reach rename(2) and come back as a bare strerror.
        if output == "" {
            throw ValidationError("-o needs a file name (or - for standard output), not an empty string.")
        }
        if isStandardOutput ? BinaryFile.standardOutputIsTerminal : BinaryFile.isTerminal(output!) {
            throw ValidationError(
                "refusing to write PNG data to a terminal; give -o OUT.png or redirect standard output.")
        }
    }

    /// Opens the destination before any work: for `-o`, the temporary file beside the target,
    /// so a folder that cannot be written fails at once and an interrupted run leaves nothing
    /// behind (see `AtomicFile`).
    func open() throws(BinaryFileError) -> Opened {
        if let output, let problem = FileArguments.problem(output) {
            throw BinaryFileError(path: output, reason: problem, status: .usage)
        }
        if isStandardOutput { return Opened(file: nil) }
        do throws(AtomicFileError) { return Opened(file: try AtomicFile.begin(output!)) } catch {
            throw BinaryFileError(error)
        }
    }

    /// An opened destination: ``commit(_:)`` the PNG once it is made, or ``discard()`` it.
    struct Opened {
        /// The temporary file for `-o`; nil for standard output (or once committed).
        private var file: AtomicFile?

        fileprivate init(file: AtomicFile?) { self.file = file }

        /// Writes the PNG: renames the finished temporary file over the target, or writes to
        /// standard output. On failure the temporary file is gone and the old file untouched.
        mutating func commit(_ png: [UInt8]) throws(BinaryFileError) {
            if var target = file {
                file = nil
                do throws(AtomicFileError) { try target.commit(png) } catch { throw BinaryFileError(error) }
            } else {
                try BinaryFile.writeStandardOutput(png)
            }
        }

        /// Removes the temporary file (after a failure).
        mutating func discard() {
            file?.discard()
            file = nil
        }
    }
}
