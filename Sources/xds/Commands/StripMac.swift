import XDSProvenance
import XDSSystem
import XDocSource
import XDocSourceArchive

/// `xds strip --mac-metadata` (SPEC §6 "Before publishing"): the marks and the Mac metadata
/// removed on disk by XDSProvenance's `MacMetadataScan` (files deleted, links unlinked never
/// followed, `__MACOSX` and `.AppleDouble` removed, Apple attributes removed, a `._` holding a
/// kept mark rewritten to hold only what is kept); `-n` lists them as `check` does. Strip's
/// `run()` calls ``run(files:recursive:dryRun:selection:output:jobs:limits:)`` when the flag is given.
enum StripMac {
    /// Removes (or, dry, lists) under `files`; `output`: the clean copy of one archive.
    /// Status 0 when something was removed (or would be), 1 when nothing was found (a root with
    /// nothing on disk is named; one whose archives hold something says so), 74/65 for what
    /// could not be read or removed, 66 for a missing file.
    static func run(files: [String], recursive: Bool, dryRun: Bool, selection: MacMetadataSelection, output: String?,
                    jobs: Int, limits: ArchiveScanner.Limits) -> Diagnostics {
        if let output, let archive = files.first {
            return dryRun ? listArchive(archive, output: output, selection: selection, limits: limits)
                : StripArchive.run(archive: archive, output: output, kinds: selection.kinds, selection: selection, limits: limits)
        }
        var diagnostics = Diagnostics()
        let scan = MacMetadataScan(roots: files, jobs: jobs, selection: selection, recursive: recursive, limits: limits)
        let roots = files.filter { FileArguments.problem($0) == nil }
        let tally = MacMetadataRun.run(scan, dryRun: dryRun, github: false, diagnostics: &diagnostics, onStay: { stay, diagnostics in
            diagnostics.fail(visible: stay.folder.visible, stays(stay, dryRun: dryRun), status: .success)
        }) { finding, diagnostics in
            // Removed quietly, as strip removes; -n lists (archive members too), as check does.
            guard dryRun else { return true }
            return diagnostics.write(FindingRecord.line(finding))
        }
        guard !tally.outputFailed else { return diagnostics }
        if !dryRun {
            for archive in tally.archives {
                let found = archive.count == 1 ? "1 mark or piece of Mac metadata inside" : "\(archive.count) marks or pieces of Mac metadata inside"
                diagnostics.fail(visible: archive.path.visible,
                                 "\(found); archives are not rewritten in place (xds strip --mac-metadata ARCHIVE -o CLEAN writes a clean copy)",
                                 status: .success)
            }
        }
        for (index, root) in roots.enumerated() where tally.diskByRoot[index, default: 0] == 0 {
            let inside = tally.archives.filter { CheckSummary.root(of: $0.path, in: [root]) != nil }.count
            if inside > 0 {
                let hold = inside == 1 ? "1 archive holds" : "\(inside) archives hold"
                diagnostics.fail(root, "nothing to remove on disk; \(hold) marks or Mac metadata (xds strip --mac-metadata ARCHIVE -o CLEAN)",
                                 status: .absent)
            } else {
                diagnostics.fail(root, "no mark of where it came from and no Mac metadata", status: .absent)
            }
        }
        return diagnostics
    }

    /// Why a `__MACOSX` or `.AppleDouble` folder is not removed (SPEC §6: "otherwise their Mac
    /// files go and the folder is reported"), for its line on standard error.
    static func stays(_ stay: MacMetadataFolderStay, dryRun: Bool) -> String {
        let why: String
        switch stay.reason {
        case .keptMark: why = "a ._ file in it holds a kept mark"
        case .keptSidecars: why = stay.what == .appleDoubleFolder ? "the AppleDouble files in it are kept (--keep sidecar)" : "the ._ files in it are kept (--keep sidecar)"
        }
        return dryRun ? "would stay: \(why); only the Mac metadata in it would be removed"
            : "stays: \(why); only the Mac metadata in it is removed"
    }

    /// `strip -n --mac-metadata ARCHIVE -o CLEAN`: the archive read as the copy reads it, its
    /// findings listed as `check` lists them (`ARCHIVE!/MEMBER: …`), an entry the copy would
    /// drop unread as `ARCHIVE!/ENTRY: cannot be read (REASON): would be dropped`; nothing
    /// written. Status 0 when something would go, 1 when nothing would, else as the copy.
    static func listArchive(_ archive: String, output: String, selection: MacMetadataSelection,
                            limits: ArchiveScanner.Limits) -> Diagnostics {
        var diagnostics = Diagnostics()
        guard let cleaner = StripArchive.cleaner(archive: archive, output: output, kinds: selection.kinds, selection: selection,
                                                 limits: limits, diagnostics: &diagnostics) else { return diagnostics }
        if output != "-", cleaner.isArchive(itself: output) {
            diagnostics.fail(output, "is the archive itself; archives are never rewritten in place (give another -o)", status: .usage)
            return diagnostics
        }
        var text = "", count = 0
        do throws(ArchiveCleanerError) {
            try cleaner.macMetadataDryRun { event in
                count += 1
                switch event {
                case .found(let finding):
                    text += FindingRecord.line(finding)
                case .unreadable(let entry, let reason):
                    let path = DocumentSourceTreePath(bytes: cleaner.archive.bytes + Array("!/".utf8) + entry.bytes)
                    text += path.visible + ": cannot be read (\(reason)): would be dropped\n"
                }
            }
        } catch {
            if !text.isEmpty { _ = diagnostics.write(text) }
            if case .archive(let archiveError) = error {
                diagnostics.fail(visible: archiveError.path.visible, XDS.Show.message(archiveError), status: ExitStatus(archiveError))
            } else {
                diagnostics.fail(archive, "\(error)", status: .ioError)
            }
            return diagnostics
        }
        guard text.isEmpty || diagnostics.write(text) else { return diagnostics }
        if count == 0 {
            diagnostics.fail(archive, "a clean copy would drop nothing: no mark of where it came from and no Mac metadata",
                             status: .absent)
        }
        return diagnostics
    }
}
