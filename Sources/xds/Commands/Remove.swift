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
                    diagnostics.report(try document.remove(sidecar: sidecar), for: file)
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
                var outputFailed = false
                // Values that do not parse: removed as `remove FILE` removes them (SPEC §5).
                var malformedRemoved = 0
                let counts = DocumentSourceTree(roots: [root], jobs: jobs).walk(archives: { archive in
                    progress.clear()
                    noteArchive(archive, limits: limits, diagnostics: &diagnostics)
                    return .proceed
                }) { event in
                    switch event {
                    case .progress(let counts):
                        progress.update(counts)
                    case .problem(let problem) where problem.isRemovableValue:
                        progress.clear()
                        let visible = problem.path.visible
                        malformedRemoved += 1
                        guard dryRun else {
                            do throws(DocumentSourceFileError) {
                                diagnostics.report(try problem.removeValue(), visible: visible)
                            } catch {
                                diagnostics.fail(visible: visible, error.message, status: ExitStatus(error))
                            }
                            return .proceed
                        }
                        do throws(Errno) {
                            try StandardOutput.write(visible + "\n")
                        } catch {
                            diagnostics.failedOutput(error)
                            outputFailed = true
                            return .stop
                        }
                    case .problem(let problem):
                        progress.clear()
                        diagnostics.report(problem)
                    case .found(let found):
                        progress.clear()
                        let visible = found.path.visible
                        guard dryRun else {
                            do throws(DocumentSourceFileError) {
                                diagnostics.report(try found.remove(sidecar: true), visible: visible)
                            } catch {
                                diagnostics.fail(visible: visible, error.message, status: ExitStatus(error))
                            }
                            return .proceed
                        }
                        do throws(Errno) {
                            try StandardOutput.write(visible + "\n")
                        } catch {
                            diagnostics.failedOutput(error)
                            outputFailed = true
                            return .stop
                        }
                    }
                    return .proceed
                }
                progress.clear()
                if outputFailed { break }
                if counts.tagged == 0 && malformedRemoved == 0 {
                    if Recursive.isFolder(root) {
                        diagnostics.fail(root, "no file or folder in it has an x-document-source attribute", status: .absent)
                    } else if counts.problems == 0 {
                        diagnostics.fail(root, "no x-document-source attribute", status: .absent)
                    }
                }
            }
            return diagnostics
        }
    }
}
