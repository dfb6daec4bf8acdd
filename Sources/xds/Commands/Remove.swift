import ArgumentParser
import XDSSystem
import XDocSource
import XDocSourceArchive

extension XDS {
    /// `xds remove`: deletes the attribute.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove the x-document-source attribute from files.",
            discussion: """
                Removes the native attribute and Samba's stream copy \
                (user.DosStream.x-document-source:$DATA). An AppleDouble sidecar ._NAME is a \
                separate file and is left alone unless --sidecar is given: then the value is \
                removed from the sidecar too (every other entry in it kept byte for byte; a \
                sidecar left with nothing in it is deleted). Exits with status 1 when a file \
                had no attribute.

                -r walks each folder (as xds show -r does: symbolic links are not followed) and \
                removes the attribute from every file and folder under it that has one, from \
                every store it is found in, AppleDouble sidecars included (as with --sidecar: \
                someone publishing a tree does not want path values to leave with it): the \
                folder's own sidecar, sidecars ._NAME whose NAME is gone or is a symbolic link \
                (listed under their own path, DIR/._NAME), and values that do not parse (removed \
                unread, as remove FILE removes them). Afterwards nothing under the folder outside \
                archives holds a value (xds show -r exits 1). Files without it, other attributes \
                and the other entries of sidecars are not touched (byte for byte); a sidecar left \
                with nothing in it is deleted. A ._NAME that is not AppleDouble at all is left \
                as it is and reported (status 65). \
                With -n (--dry-run) nothing changes: the paths that would lose their value are \
                printed, one per line, as xds show -r names them, in walk order (the walk runs \
                on -j N threads, by default one per processor: pipe through sort for a stable \
                order; -j 1 keeps a fixed order). Status 1 when nothing under a \
                folder had the attribute. Archives are never rewritten: for an archive under the \
                folder (named as xds show --help lists) whose members carry a value, -r says \
                "xds: ARCHIVE: N members carry x-document-source; xds does not rewrite archives" \
                (status unchanged). Without -r, remove ARCHIVE removes the archive's own attribute only.

                Examples:
                  xds remove report.pdf
                  xds remove -r -n site/        # list what would go
                  xds remove -r site/
                """
        )

        @Argument(help: "The files or folders to clear.", completion: .file())
        var files: [String]

        @Flag(name: [.customShort("r"), .long], help: "Walk folders and remove the attribute from everything under them.")
        var recursive = false

        @Flag(name: [.customShort("n"), .long], help: "With -r: list what would be removed, change nothing.")
        var dryRun = false

        @OptionGroup var follow: FollowOptions

        @Flag(help: "Remove the value from the AppleDouble sidecar ._NAME too.")
        var sidecar = false

        @OptionGroup var archiveLimit: ArchiveLimitOptions

        @OptionGroup var jobs: JobsOptions

        /// Whether to act on a symbolic link itself (`--no-follow`).
        var noFollow: Bool { follow.noFollow }

        func validate() throws {
            if dryRun && !recursive { throw ValidationError("--dry-run goes with -r (--recursive).") }
        }

        func run() throws {
            if recursive {
                try Self.removeTree(files, dryRun: dryRun, limits: archiveLimit.limits, jobs: jobs.count).finish()
                return
            }
            var diagnostics = Diagnostics()
            for file in files {
                guard diagnostics.accepts(file) else { continue }
                do {
                    let document = DocumentSourceFile(path: file, followSymlinks: !noFollow)
                    diagnostics.report(try document.remove(sidecar: sidecar), visible: VisibleText.escaped(file), walked: false)
                } catch where error.kind == .notSupported && !sidecar {
                    diagnostics.fail(
                        file, error.message + "; --sidecar removes the value from an AppleDouble file ._NAME next to it",
                        status: ExitStatus(error))
                } catch {
                    diagnostics.fail(file, error)
                }
            }
            try diagnostics.finish()
        }

        /// `remove -r`: walks every folder root and clears each file and folder found (or, dry,
        /// lists it); a root that is not a folder is handled as by `remove` (`--dry-run`: listed
        /// when it has a value in a store `remove` clears).
        static func removeTree(_ roots: [String], dryRun: Bool, limits: ArchiveScanner.Limits = ArchiveScanner.Limits(),
                           jobs: Int = 1) -> Diagnostics {
            var diagnostics = Diagnostics()
            var progress = ProgressLine()
            for root in roots {
                guard diagnostics.accepts(root) else { continue }
                // Values that do not parse: removed as `remove FILE` removes them (SPEC §5).
                var malformedRemoved = 0, archives = 0
                let walked = Recursive.walk(root, jobs: jobs, progress: &progress, diagnostics: &diagnostics, onArchive: { archive, diagnostics in
                    if noteArchive(archive, limits: limits, diagnostics: &diagnostics) { archives += 1 }
                    return true
                }, onRemovable: { problem, diagnostics in
                    malformedRemoved += 1
                    return clear(problem.path, dryRun: dryRun, diagnostics: &diagnostics) { () throws(DocumentSourceFileError) in
                        try problem.removeValue()
                    }
                }) { found, diagnostics in
                    clear(found.path, dryRun: dryRun, diagnostics: &diagnostics) { () throws(DocumentSourceFileError) in
                        try found.remove(sidecar: true)
                    }
                }
                guard let counts = walked else { break }
                if counts.tagged == 0 && malformedRemoved == 0 {
                    if archives > 0 {
                        // Not "no file or folder has one" after naming archives that hold some.
                        let hold = archives == 1 ? "1 archive holds" : "\(archives) archives hold"
                        diagnostics.fail(root, "nothing to remove on disk; \(hold) x-document-source (xds strip ARCHIVE -o CLEAN --only x-document-source)",
                                         status: .absent)
                    } else if Recursive.isFolder(root) {
                        diagnostics.fail(root, "no file or folder in it has an x-document-source attribute", status: .absent)
                    } else if counts.problems == 0 {
                        diagnostics.fail(root, "no x-document-source attribute", status: .absent)
                    }
                }
            }
            return diagnostics
        }

        /// One entry of `remove -r`: removed and what is left reported, or with `dryRun` its
        /// path printed. False when standard output failed (reported).
        private static func clear(
            _ path: DocumentSourceTreePath, dryRun: Bool, diagnostics: inout Diagnostics,
            _ remove: () throws(DocumentSourceFileError) -> DocumentSourceRemoval
        ) -> Bool {
            let visible = path.visible
            guard dryRun else {
                do throws(DocumentSourceFileError) {
                    diagnostics.report(try remove(), visible: visible, walked: true)
                } catch {
                    diagnostics.fail(visible: visible, error.message, status: ExitStatus(error))
                }
                return true
            }
            return diagnostics.write(visible + "\n")
        }
    }
}

extension Diagnostics {
    /// Reports what a removal left on one file or folder, for `remove FILE` and each entry of
    /// `remove -r` alike: nothing to remove (1, "no x-document-source attribute"), or each place
    /// where `show` still finds a value: a store that refused the removal (that failure's
    /// status), or an AppleDouble sidecar left alone (a note, 0 when something was removed, 1
    /// when the sidecar is all there was).
    ///
    /// - Parameters:
    ///   - path: The file or folder, already made visible.
    ///   - walked: Whether the removal was `remove -r`'s, which clears sidecars already: the
    ///     notes then do not suggest `--sidecar`, and the sidecar's location is escaped as the
    ///     walk's paths are (`remove FILE` writes it as the library gives it).
    mutating func report(_ removal: DocumentSourceRemoval, visible path: String, walked: Bool) {
        guard !removal.remaining.isEmpty else {
            if removal.removed.isEmpty { fail(visible: path, "no x-document-source attribute", status: .absent) }
            return
        }
        let removed = removal.removed.map(\.description).joined(separator: " and ")
        for place in removal.remaining {
            let holder = place.store == .appleDouble
                ? "the AppleDouble sidecar \(walked ? VisibleText.escaped(place.location) : place.location)"
                : "the Samba stream \(place.location)"
            if let failure = place.failure {
                fail(visible: path, "removed from \(removed), but \(holder) could not be removed (\(failure.message)) and still holds a value",
                     status: ExitStatus(failure))
            } else if removal.removed.isEmpty {
                fail(visible: path, "the attribute is only in \(holder)" + (walked ? ", which xds remove leaves alone" : "; xds remove --sidecar removes it"),
                     status: .absent)
            } else {
                fail(visible: path, "removed from \(removed), but \(holder) still holds a value (xds show will find it"
                     + (walked ? ")" : "; xds remove --sidecar removes it too)"), status: .success)
            }
        }
    }
}
