import ArgumentParser
import XDSProvenance
import XDSSystem
import XDocSource
import XDocSourceArchive

/// `xds strip ARCHIVE -o CLEAN|-` (SPEC §6): a clean copy of one zip or tar, written by
/// XDSProvenance's `ArchiveCleaner`; `strip`'s `-o` branch calls ``validate(output:)`` from its
/// `validate()` and ``run(archive:output:kinds:limits:)`` from its `run()` (`--archive-limit`
/// bounds the decompression as for `show`).
enum StripArchive {
    /// The usage checks before any work (64): an empty `-o`, and standard output (`-o -`) or a
    /// file that is a terminal (the copy is binary data).
    static func validate(output: String) throws {
        if output.isEmpty {
            throw ValidationError("-o needs a file name (or - for standard output), not an empty string.")
        }
        if output == "-" ? BinaryFile.standardOutputIsTerminal : BinaryFile.isTerminal(output) {
            throw ValidationError("refusing to write an archive to a terminal; give -o CLEAN or redirect standard output.")
        }
    }

    /// Writes the clean copy of `archive` to `output` (`-`: standard output) without the marks
    /// of `kinds`. Status 0 whether or not the archive held marks; 64 when `archive` is not
    /// named as an archive or `output` names it; 66, 74 or 65 when it cannot be read to its end
    /// (missing, unreadable, damaged or past the archive limit: one line, and nothing is left at
    /// `output`); 74 when the copy cannot be written.
    static func run(archive: String, output: String, kinds: Swift.Set<ProvenanceKind>,
                    limits: ArchiveScanner.Limits) -> Diagnostics {
        var diagnostics = Diagnostics()
        guard diagnostics.accepts(archive) else { return diagnostics }
        if output != "-", let problem = FileArguments.problem(output) {
            diagnostics.fail(output, problem, status: .usage)
            return diagnostics
        }
        guard let cleaner = ArchiveCleaner(archive: archive, kinds: kinds, limits: limits) else {
            let names = ArchiveKind.suffixes.map(\.suffix).joined(separator: " ")
            diagnostics.fail(archive, "not named as an archive; strip -o copies zip and tar archives (\(names))",
                             status: .usage)
            return diagnostics
        }
        do throws(ArchiveCleanerError) {
            if output == "-" {
                try cleaner.write(toDescriptor: 1, name: "standard output")
            } else {
                try cleaner.write(to: output)
            }
        } catch {
            switch error {
            case .sameFile:
                diagnostics.fail(output, "is the archive itself; archives are never rewritten in place (give another -o)",
                                 status: .usage)
            case .archive(let archiveError):
                diagnostics.fail(visible: archiveError.path.visible, XDS.Show.message(archiveError), status: ExitStatus(archiveError))
            case .output(let path, let message, _):
                diagnostics.fail(path, message, status: .ioError)
            }
        }
        return diagnostics
    }
}
