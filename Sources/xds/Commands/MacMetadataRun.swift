import XDSProvenance
import XDSSystem
import XDocSource
import XDocSourceArchive

/// What `xds check` and `xds strip --mac-metadata` share (SPEC §6 "Before publishing"): the one
/// producer, XDSProvenance's `MacMetadataScan`, run with the progress line kept, problems
/// reported (on standard error with their status; with `github` also as `::error` lines on
/// standard output) and each finding handed to the command's printer.
enum MacMetadataRun {
    /// What a run found, for the commands' statuses and last lines.
    struct Tally {
        /// Findings on disk, per root index.
        var diskByRoot: [Int: Int] = [:]
        /// Findings inside archives, per archive, in the order met.
        var archives: [(path: DocumentSourceTreePath, count: Int)] = []
        /// Whether the printer failed to write (reported): the run stopped.
        var outputFailed = false

        var diskTotal: Int { diskByRoot.values.reduce(0, +) }
        var archiveTotal: Int { archives.reduce(0) { $0 + $1.count } }
    }

    /// Runs `scan` over `roots` (those that exist: a missing one is 66 and skipped), calling
    /// `onFinding` (false: standard output failed, reported; the run stops) and `onStay` for a
    /// `__MACOSX` or `.AppleDouble` folder that stays (check: not reported).
    static func run(
        _ scan: MacMetadataScan, dryRun: Bool, github: Bool, diagnostics: inout Diagnostics,
        onStay: (MacMetadataFolderStay, inout Diagnostics) -> Void = { _, _ in },
        onFinding: (MacMetadataFinding, inout Diagnostics) -> Bool
    ) -> Tally {
        var tally = Tally()
        var progress = ProgressLine()
        var scan = scan
        scan.roots = scan.roots.filter { diagnostics.accepts($0) }
        guard !scan.roots.isEmpty else { return tally }
        let roots = scan.roots
        scan.run(dryRun: dryRun) { event in
            switch event {
            case .progress(let counts):
                progress.update(counts)
                return .proceed
            case .found(let finding):
                progress.clear()
                if finding.isInArchive {
                    if let index = tally.archives.firstIndex(where: { $0.path == finding.file }) {
                        tally.archives[index].count += 1
                    } else {
                        tally.archives.append((finding.file, 1))
                    }
                } else if let root = CheckSummary.root(of: finding.file, in: roots) {
                    tally.diskByRoot[root, default: 0] += 1
                }
                guard onFinding(finding, &diagnostics) else {
                    tally.outputFailed = true
                    return .stop
                }
            case .folderStays(let stay):
                progress.clear()
                onStay(stay, &diagnostics)
            case .problem(let problem):
                progress.clear()
                diagnostics.report(problem)
                if github, problem.error != nil,
                    !diagnostics.write(FindingRecord.githubUnreadable(problem.path, reason: problem.message))
                {
                    tally.outputFailed = true
                    return .stop
                }
            case .archiveProblem(let archive, let problem):
                progress.clear()
                diagnostics.fail(visible: archive.visible, problem.message, status: .dataError)
                if github, !diagnostics.write(FindingRecord.githubUnreadable(archive, reason: FindingRecord.reason(problem), in: problem.entry)) {
                    tally.outputFailed = true
                    return .stop
                }
            case .archiveFailed(let error):
                progress.clear()
                diagnostics.fail(visible: error.path.visible, XDS.Show.message(error), status: ExitStatus(error))
                if github, !diagnostics.write(FindingRecord.githubUnreadable(error.path, reason: "damaged")) {
                    tally.outputFailed = true
                    return .stop
                }
            }
            return .proceed
        }
        progress.clear()
        return tally
    }
}
