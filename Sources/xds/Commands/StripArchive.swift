import ArgumentParser
import XDSProvenance
import XDSSystem
import XDocSource
import XDocSourceArchive

/// `xds strip ARCHIVE -o CLEAN|-` (SPEC §6): a clean copy of one zip or tar, written by
/// XDSProvenance's `ArchiveCleaner`; `strip`'s `-o` branch calls ``validate(output:dryRun:)``
/// from its `validate()` and ``run(archive:output:kinds:limits:)`` (or, with `-n`,
/// ``dryRun(archive:output:kinds:limits:)``) from its `run()` (`--archive-limit` bounds the
/// decompression as for `show`). Archives met without `-o` (named, or by `-r`) are read by
/// ``inspect(_:kinds:limits:list:diagnostics:)`` exactly as the copy reads them.
enum StripArchive {
    /// The usage checks before any work (64): an empty `-o`, and standard output (`-o -`) or a
    /// file that is a terminal (the copy is binary data; a dry run writes none).
    static func validate(output: String, dryRun: Bool = false) throws {
        if output.isEmpty {
            throw ValidationError("-o needs a file name (or - for standard output), not an empty string.")
        }
        if !dryRun, output == "-" ? BinaryFile.standardOutputIsTerminal : BinaryFile.isTerminal(output) {
            throw ValidationError("refusing to write an archive to a terminal; give -o CLEAN or redirect standard output.")
        }
    }

    /// The cleaner of `archive` for `-o`, or nil with the refusal reported (66 for a missing
    /// or unusable argument, 64 for an output that is no path or an archive not named as one).
    static func cleaner(archive: String, output: String, kinds: Swift.Set<ProvenanceKind>,
                        selection: MacMetadataSelection? = nil, limits: ArchiveScanner.Limits,
                        diagnostics: inout Diagnostics) -> ArchiveCleaner? {
        guard diagnostics.accepts(archive) else { return nil }
        if output != "-", let problem = FileArguments.problem(output) {
            diagnostics.fail(output, problem, status: .usage)
            return nil
        }
        let made = selection.map { ArchiveCleaner(archive: DocumentSourceTreePath(archive), macMetadata: $0, limits: limits) }
            ?? ArchiveCleaner(archive: archive, kinds: kinds, limits: limits)
        guard let cleaner = made else {
            let names = ArchiveKind.suffixes.map(\.suffix).joined(separator: " ")
            diagnostics.fail(archive, "not named as an archive; strip -o copies zip and tar archives (\(names))",
                             status: .usage)
            return nil
        }
        return cleaner
    }

    /// Writes the clean copy of `archive` to `output` (`-`: standard output) without the marks
    /// of `kinds`. Status 0 whether or not the archive held marks, each `._` entry left out
    /// unread named in one line (`xds: ARCHIVE: ENTRY cannot be read (REASON): dropped, and
    /// anything else it held with it`); 64 when `archive` is not named as an archive or
    /// `output` names it; 66, 74 or 65 when it cannot be read to its end (missing, unreadable
    /// or a library not loaded, damaged or past the archive limit: one line, and nothing is
    /// left at `output`); 74 when the copy cannot be written.
    /// With `selection` (`--mac-metadata`), the Mac metadata of it goes too.
    static func run(archive: String, output: String, kinds: Swift.Set<ProvenanceKind>, selection: MacMetadataSelection? = nil,
                    limits: ArchiveScanner.Limits) -> Diagnostics {
        var diagnostics = Diagnostics()
        guard let cleaner = cleaner(archive: archive, output: output, kinds: kinds, selection: selection, limits: limits,
                                    diagnostics: &diagnostics)
        else { return diagnostics }
        // Said once the copy is in place: when it fails, nothing was dropped from anything.
        var dropped: [String] = []
        let observe: (ArchiveCopy.Event) -> Void = { event in
            guard case .unreadable(let entry, let reason) = event else { return }
            dropped.append("\(entry.visible) cannot be read (\(reason)): dropped, and anything else it held with it")
        }
        do throws(ArchiveCleanerError) {
            if output == "-" {
                try cleaner.write(toDescriptor: 1, name: "standard output", observe: observe)
            } else {
                try cleaner.write(to: output, observe: observe)
            }
            for line in dropped { diagnostics.fail(visible: cleaner.archive.visible, line, status: .success) }
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

extension StripArchive {
    /// `strip -n ARCHIVE -o CLEAN`: reads the archive as the copy would and lists, on standard
    /// output, `ARCHIVE!/MEMBER: KIND (STORE)` per mark the copy would drop and
    /// `ARCHIVE!/ENTRY: cannot be read (REASON): would be dropped` per entry it would drop
    /// unread; writes nothing. Status 0 when something would go, 1 when nothing would (one
    /// line), else as ``run(archive:output:kinds:limits:)`` (64, 65, 66, 74).
    static func dryRun(archive: String, output: String, kinds: Swift.Set<ProvenanceKind>,
                       limits: ArchiveScanner.Limits) -> Diagnostics {
        var diagnostics = Diagnostics()
        guard let cleaner = cleaner(archive: archive, output: output, kinds: kinds, limits: limits, diagnostics: &diagnostics)
        else { return diagnostics }
        if output != "-", cleaner.isArchive(itself: output) {
            diagnostics.fail(output, "is the archive itself; archives are never rewritten in place (give another -o)", status: .usage)
            return diagnostics
        }
        guard let found = inspect(cleaner.archive, kinds: kinds, limits: limits, list: true, diagnostics: &diagnostics),
              !found.outputFailed else { return diagnostics }
        if found.isEmpty {
            diagnostics.fail(archive, "a clean copy would drop nothing: no member has a mark of "
                             + (kinds.count == ProvenanceKind.allCases.count ? "where it came from" : "the kinds asked"),
                             status: .absent)
        }
        return diagnostics
    }

    /// What reading an archive as the copy does found.
    struct Holdings {
        /// Members with marks the copy would drop.
        var members = 0
        /// `._` entries the copy would drop unread.
        var unreadable = 0
        /// Standard output failed (reported).
        var outputFailed = false

        var isEmpty: Bool { members == 0 && unreadable == 0 }

        /// "1 member carries marks of where it came from; 2 ._ entries cannot be read (a clean
        /// copy drops them)".
        var words: String {
            var parts: [String] = []
            if members > 0 {
                parts.append(members == 1 ? "1 member carries marks of where it came from"
                             : "\(members) members carry marks of where they came from")
            }
            if unreadable > 0 {
                parts.append(unreadable == 1 ? "1 ._ entry cannot be read (a clean copy drops it)"
                             : "\(unreadable) ._ entries cannot be read (a clean copy drops them)")
            }
            return parts.joined(separator: "; ")
        }
    }

    /// Reads `archive` exactly as `strip ARCHIVE -o` would (`ArchiveCleaner.dryRun`); with `list`,
    /// writes its lines (`ARCHIVE!/MEMBER: KIND (STORE)`, `ARCHIVE!/ENTRY: cannot be read
    /// (REASON): would be dropped`) to standard output, each member's in one write. Nil when it
    /// cannot be read (reported with its status: 65, 66, 74).
    static func inspect(_ archive: DocumentSourceTreePath, kinds: Swift.Set<ProvenanceKind>, limits: ArchiveScanner.Limits,
                        list: Bool, diagnostics: inout Diagnostics) -> Holdings? {
        guard let cleaner = ArchiveCleaner(archive: archive, kinds: kinds, limits: limits) else { return Holdings() }
        var holdings = Holdings()
        var lastMember: DocumentSourceTreePath?
        var text = ""
        func flush() {
            guard !text.isEmpty, !holdings.outputFailed else { return }
            if !diagnostics.write(text) { holdings.outputFailed = true }
            text = ""
        }
        do throws(ArchiveCleanerError) {
            try cleaner.dryRun { finding in
                switch finding {
                case .mark(let member, let kind, let store):
                    if member != lastMember {
                        flush()
                        holdings.members += 1
                        lastMember = member
                    }
                    if list {
                        let path = DocumentSourceTreePath(bytes: archive.bytes + Array("!/".utf8) + member.bytes)
                        text += path.visible + ": " + MarkRecord.heading(kind: kind, store: store) + "\n"
                    }
                case .unreadable(let entry, let reason):
                    flush()
                    lastMember = nil
                    holdings.unreadable += 1
                    if list {
                        let path = DocumentSourceTreePath(bytes: archive.bytes + Array("!/".utf8) + entry.bytes)
                        text += path.visible + ": cannot be read (\(reason)): would be dropped\n"
                    }
                }
            }
        } catch {
            flush()
            switch error {
            case .archive(let archiveError):
                diagnostics.fail(visible: archiveError.path.visible, XDS.Show.message(archiveError), status: ExitStatus(archiveError))
            case .sameFile(let name), .output(let name, _, _):
                diagnostics.fail(name, "\(error)", status: .ioError)
            }
            return nil
        }
        flush()
        return holdings
    }

    /// `strip [-n] ARCHIVE` (named, without `-o`): after its own marks (`stripped`, listed
    /// with `-n`), what it holds, read as the copy would (listed with `-n`), in one line
    /// `ARCHIVE: WHAT; archives are not rewritten in place (xds strip ARCHIVE -o CLEAN writes a
    /// clean copy)`: status 1 unless a mark of its own went. The same status and last line with
    /// and without `-n`. False when standard output failed.
    static func named(_ archive: DocumentSourceTreePath, stripped: [ProvenanceMarkLocation], kinds: Swift.Set<ProvenanceKind>,
                      dryRun: Bool, limits: ArchiveScanner.Limits, diagnostics: inout Diagnostics) -> Bool {
        if dryRun, !stripped.isEmpty {
            let text = stripped.map { archive.visible + ": " + MarkRecord.heading(kind: $0.kind, store: $0.store) + "\n" }.joined()
            guard diagnostics.write(text) else { return false }
        }
        guard let found = inspect(archive, kinds: kinds, limits: limits, list: dryRun, diagnostics: &diagnostics) else {
            return true  // reported: it could not be read, so it is not said to hold nothing
        }
        guard !found.outputFailed else { return false }
        if !found.isEmpty {
            diagnostics.fail(visible: archive.visible, found.words + "; " + notRewritten, status: stripped.isEmpty ? .absent : .success)
        } else if stripped.isEmpty {
            diagnostics.fail(visible: archive.visible, "no mark of "
                             + (kinds.count == ProvenanceKind.allCases.count ? "where it came from" : "the kinds asked")
                             + ", on the archive or any member", status: .absent)
        }
        return true
    }

    /// The end of every line about an archive that holds something to drop.
    static let notRewritten = "archives are not rewritten in place (xds strip ARCHIVE -o CLEAN writes a clean copy)"
}
