import ArgumentParser
import XDSProvenance
import XDSSystem
import XDocSource

extension XDS {
    /// `xds check`: what must not be published — marks and Mac metadata — listed with the
    /// commands that remove them (SPEC §6 "Before publishing").
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Find what should not be published: marks of where files came from, and Mac metadata.",
            discussion: """
                Prints exactly the lines xds strip -r -n --mac-metadata would, for each PATH \
                (default .): folders walked, archives looked into. A file that would be deleted \
                is named itself (DIR/._a.png: sidecar, DIR/a.png:Zone.Identifier: zone-file, \
                DIR/.DS_Store: ds-store, DIR/__MACOSX: macosx-folder, DIR/.AppleDouble: \
                appledouble-folder); an attribute under the file that holds it (PATH: KIND \
                (STORE) for a mark, PATH: apple-attribute NAME); ARCHIVE!/MEMBER: ... inside \
                archives. Then one last line: N found (COUNTS); to remove them: COMMAND; ... \
                Nothing found: nothing is printed, status 0.

                --names-only looks at names alone on disk (git stores no attributes: what a \
                commit hook asks); its command also runs git rm --cached. --allow WHAT (a kind \
                or \(MacMetadata.What.selectable.map(\.rawValue).joined(separator: ", "))) is \
                not reported and is carried into the commands as --keep. --json prints one \
                object per finding (file, archive, member, what, kind, store, name); --github \
                one ::error workflow command per finding, then the last line.

                Status 0 nothing found, 1 something found, 65 or 74 when something could not \
                be read, 66 when a PATH does not exist.

                Examples:
                  xds check
                  xds check --names-only --allow x-document-source
                  xds check --github dist/
                """
        )

        @Argument(help: "The files, folders and archives to check (default: the current folder).", completion: .file())
        var files: [String] = []

        @Flag(name: .customLong("names-only"), help: "On disk, look at names alone (no attributes): what git stores.")
        var namesOnly = false

        @Flag(name: .customLong("json"), help: "Print one JSON object per finding (JSON Lines).")
        var json = false

        @Flag(name: .customLong("github"), help: "Print GitHub Actions ::error commands, then the last line.")
        var github = false

        @Option(name: .customLong("allow"), parsing: .singleValue,
                help: ArgumentHelp("Do not report these (kinds or Mac metadata words; comma list, or repeat).",
                                   valueName: "WHAT,..."),
                completion: .list(ProvenanceKind.allCases.map(\.rawValue) + MacMetadata.What.selectable.map(\.rawValue)))
        var allow: [String] = []

        @OptionGroup var archiveLimit: ArchiveLimitOptions

        @OptionGroup var jobs: JobsOptions

        func validate() throws {
            if json && github { throw ValidationError("--json and --github cannot go together.") }
            do throws(MacMetadataSelection.WordError) {
                _ = try MacMetadataSelection(only: [], keep: allow)
            } catch {
                throw ValidationError("--allow: \(error).")
            }
        }

        func run() throws {
            let words = (try? MacMetadataSelection.words(allow)) ?? []
            let selection = (try? MacMetadataSelection(only: [], keep: allow)) ?? .everything
            let roots = files.isEmpty ? ["."] : files
            var diagnostics = Diagnostics()
            let existing = roots.filter { FileArguments.problem($0) == nil }
            var summary = CheckSummary(roots: existing, allow: words, namesOnly: namesOnly)
            let scan = MacMetadataScan(roots: roots, jobs: jobs.count, selection: selection, namesOnly: namesOnly,
                                       limits: archiveLimit.limits)
            // The findings are written in batches (StandardOutput.buffered), the last line with them.
            Recursive.boundHeap()
            StandardOutput.buffered(&diagnostics) { diagnostics in
                let tally = MacMetadataRun.run(scan, dryRun: true, github: github, diagnostics: &diagnostics) { finding, diagnostics in
                    summary.add(finding)
                    let text = json ? FindingRecord.json(finding) + "\n" : github ? FindingRecord.github(finding) : FindingRecord.line(finding)
                    return diagnostics.write(text)
                }
                if !tally.outputFailed, !json, let line = summary.line {
                    _ = diagnostics.write(line)
                }
            }
            if summary.total > 0 { diagnostics.record(.absent) }
            try diagnostics.finish()
        }
    }
}

extension XDS.Check: FileListCommand {}
