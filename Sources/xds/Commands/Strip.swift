import ArgumentParser
import XDSProvenance
import XDSSystem
import XDocSource
import XDocSourceArchive

extension XDS {
    /// `xds strip`: removes the marks of where files came from, from every store (SPEC §6).
    struct Strip: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "strip",
            abstract: "Remove the marks of where files came from, from every store.",
            discussion: """
                Removes every mark xds where shows (all kinds, or those of --only, minus those \
                of --keep; kinds: \(KindOptions.kindList); comma lists or repeated options) \
                from every store: native attributes, Samba streams, the entries of AppleDouble \
                sidecars ._NAME and NAME:Zone.Identifier files. Unlike xds remove, which clears \
                sidecars only with --sidecar, strip clears every store. A sidecar loses its marks \
                in one atomic write under the writers' lock, every other entry kept byte for \
                byte, and is deleted only when nothing else is left in it. Other attributes \
                (user.mime_type, Finder tags, ...) are kept.

                -n (--dry-run) changes nothing and prints FILE: KIND (STORE) for each mark that \
                would go; an archive (named, or met by -r) is read as -o reads it, with a line \
                ARCHIVE!/MEMBER: KIND (STORE) per mark a clean copy would drop and \
                ARCHIVE!/ENTRY: cannot be read (REASON): would be dropped per entry it would \
                drop unread; without -o, -n ends as the command without it does. -r walks \
                folders as xds where -r does (same walk, -j N threads); archives are never \
                rewritten in place: each archive under the folder that holds marks is named in \
                one line and the walk goes on. Afterwards xds where -r finds nothing under the \
                folder outside archives.

                strip ARCHIVE -o CLEAN writes a copy of a zip or tar without the marks (-o - to \
                standard output, refused on a terminal), whether or not it held any (status 0): \
                __MACOSX/ and ._ entries that hold only marks are dropped, one that also holds \
                something else is rewritten without them, pax records of marks are dropped in \
                both spellings (SCHILY.xattr., LIBARCHIVE.xattr.); every other member is kept as \
                it was (a zip's members copied compressed as they are, a tar's blocks copied, \
                the same compression). A ._ entry that cannot be read (compression method N, \
                encrypted, damaged, over 64 MiB) is not copied, with one line on standard error \
                (status 0). ARCHIVE is never written (CLEAN naming it is 64); CLEAN is replaced \
                atomically, a symbolic link there replaced, never followed. --archive-limit \
                reached is 65, a library that cannot be loaded (zlib, libarchive) 74: no copy \
                then.

                --mac-metadata also removes Mac metadata, a closed list: ._ files (whatever they \
                hold), .DS_Store, __MACOSX and .AppleDouble folders, NAME:Zone.Identifier files, \
                every com.apple.* attribute that is not a mark (Samba's AFP_AfpInfo and \
                AFP_Resource streams and Netatalk's attributes included). Files are deleted, a \
                link is unlinked and never followed. --keep and --only then also take \
                \(MacMetadata.What.selectable.map(\.rawValue).joined(separator: ", ")). IT DELETES \
                WHAT MACS USE: resource forks, Finder tags and comments, code signatures kept in \
                attributes. Meant for what is published (a release folder, a build context, an \
                archive copy), never for a share that Macs work on. xds check lists the same. \
                A ._ file holding a kept mark (--keep KIND) is rewritten to hold only it, named \
                directly too; a __MACOSX or .AppleDouble folder that keeps something is named on \
                standard error, only its Mac metadata removed. \
                In a clean copy (ARCHIVE -o CLEAN) the same entries are dropped (__MACOSX/ \
                whole, ._ entries, .DS_Store, .AppleDouble/), and in tars the pax records GNU \
                tar does not read (LIBARCHIVE.creationtime, LIBARCHIVE.symlinktype, \
                SCHILY.fflags, SCHILY.dev, SCHILY.ino, SCHILY.nlink, Apple attributes); a \
                LIBARCHIVE.xattr.NAME record of another attribute is rewritten as \
                SCHILY.xattr.NAME, so the attribute stays and GNU tar is quiet. -n with -o lists \
                them as xds check does.

                Status 0 when a mark was removed (or would be, with -n), 1 when none was found, \
                74 when a store refuses.

                Examples:
                  xds strip -n report.pdf
                  xds strip -r --only quarantine,macos-provenance release/
                  xds strip -r --keep x-document-source share/
                  xds strip -r --mac-metadata release/
                """
        )

        @Argument(help: "The files or folders to clear.", completion: .file())
        var files: [String]

        @Flag(name: [.customShort("r"), .long], help: "Walk folders and strip every file and folder under them.")
        var recursive = false

        @Flag(name: [.customShort("n"), .long], help: "List the marks that would go (FILE: KIND (STORE)), change nothing.")
        var dryRun = false

        @OptionGroup var kindOptions: KindOptions

        @Option(name: [.short, .customLong("output")],
                help: ArgumentHelp("Write a copy of the archive without the marks to CLEAN (- for standard output).",
                                   valueName: "CLEAN"),
                completion: .file())
        var output: String?

        @OptionGroup var archiveLimit: ArchiveLimitOptions

        @OptionGroup var jobs: JobsOptions

        @OptionGroup var follow: FollowOptions

        func validate() throws {
            if let output {
                if recursive { throw ValidationError("-o writes a clean copy of one archive; it cannot go with -r.") }
                if files.count != 1 { throw ValidationError("-o writes a clean copy of one archive: give one ARCHIVE.") }
                try StripArchive.validate(output: output, dryRun: dryRun)
            }
        }

        func run() throws {
            if kindOptions.macMetadata {
                try StripMac.run(files: files, recursive: recursive, dryRun: dryRun, selection: kindOptions.selection,
                                 output: output, jobs: jobs.count, limits: archiveLimit.limits).finish()
                return
            }
            let kinds = kindOptions.kinds
            if let output, let archive = files.first {
                try (dryRun ? StripArchive.dryRun(archive: archive, output: output, kinds: kinds, limits: archiveLimit.limits)
                     : StripArchive.run(archive: archive, output: output, kinds: kinds, limits: archiveLimit.limits)).finish()
                return
            }
            let diagnostics = recursive
                ? Self.stripTree(files, kinds: kinds, dryRun: dryRun, jobs: jobs.count, limits: archiveLimit.limits)
                : Self.strip(files, kinds: kinds, dryRun: dryRun, followSymlinks: follow.followSymlinks, limits: archiveLimit.limits)
            try diagnostics.finish()
        }

        /// `strip FILE...`: each file's marks of `kinds` removed (or, dry, listed); an archive's
        /// members are read as `strip ARCHIVE -o` reads them and what they hold is named
        /// (``StripArchive/named(_:stripped:kinds:dryRun:limits:diagnostics:)``).
        static func strip(_ files: [String], kinds: Swift.Set<ProvenanceKind>, dryRun: Bool,
                          followSymlinks: Bool, limits: ArchiveScanner.Limits = ArchiveScanner.Limits()) -> Diagnostics {
            var diagnostics = Diagnostics()
            for file in files {
                guard diagnostics.accepts(file) else { continue }
                let stripped: [ProvenanceMarkLocation]
                do throws(DocumentSourceFileError) {
                    stripped = try ProvenanceFile(path: file, followSymlinks: followSymlinks).strip(kinds, dryRun: dryRun)
                } catch {
                    diagnostics.fail(file, error)
                    continue
                }
                let path = DocumentSourceTreePath(file)
                if XDS.Show.isArchive(path, followSymlinks: followSymlinks) {
                    guard StripArchive.named(path, stripped: stripped, kinds: kinds, dryRun: dryRun, limits: limits,
                                             diagnostics: &diagnostics) else { break }
                    continue
                }
                guard report(stripped, path: path, kinds: kinds, dryRun: dryRun,
                             diagnostics: &diagnostics) else { break }
            }
            return diagnostics
        }

        /// `strip -r`: walks every folder root and strips (or, dry, lists) every entry with
        /// marks on the walk's threads; archives are named, never rewritten; a root that is not
        /// a folder is stripped as by ``strip(_:kinds:dryRun:followSymlinks:)``.
        static func stripTree(_ roots: [String], kinds: Swift.Set<ProvenanceKind>, dryRun: Bool, jobs: Int,
                              limits: ArchiveScanner.Limits = ArchiveScanner.Limits()) -> Diagnostics {
            var diagnostics = Diagnostics()
            var progress = ProgressLine()
            for root in roots {
                guard diagnostics.accepts(root) else { continue }
                guard Recursive.isFolder(root) else {
                    diagnostics.record(strip([root], kinds: kinds, dryRun: dryRun, followSymlinks: true, limits: limits).worst)
                    continue
                }
                var stripped = 0, archives = 0, failures = 0
                var outputFailed = false
                ProvenanceTree(roots: [root], jobs: jobs).strip(kinds, dryRun: dryRun, archives: { archive in
                    progress.clear()
                    if noteArchive(archive, kinds: kinds, limits: limits, dryRun: dryRun, diagnostics: &diagnostics) { archives += 1 }
                    return .proceed
                }) { event in
                    switch event {
                    case .progress(let counts):
                        progress.update(counts)
                    case .problem(let problem):
                        progress.clear()
                        diagnostics.report(problem)
                        if problem.error != nil { failures += 1 }
                    case .found(let entry):
                        progress.clear()
                        guard !entry.locations.isEmpty else { return .proceed }
                        stripped += 1
                        guard report(entry.locations, path: entry.path, kinds: kinds, dryRun: dryRun, diagnostics: &diagnostics) else {
                            outputFailed = true
                            return .stop
                        }
                    }
                    return .proceed
                }
                progress.clear()
                if outputFailed { break }
                // After a store that refused (its mark is still there) or a folder that could not
                // be read, neither "no mark" nor "nothing to remove" holds: the failures are the end.
                if stripped == 0 && failures == 0 {
                    if archives > 0 {
                        // SPEC §6: not "no mark" after naming archives that hold some.
                        let hold = archives == 1 ? "1 archive holds" : "\(archives) archives hold"
                        diagnostics.fail(root, "nothing to remove on disk; \(hold) marks (xds strip ARCHIVE -o CLEAN)", status: .absent)
                    } else {
                        diagnostics.fail(root, "no file or folder in it has a mark of "
                                         + (kinds.count == ProvenanceKind.allCases.count ? "where it came from" : "the kinds asked"), status: .absent)
                    }
                }
            }
            return diagnostics
        }

        /// `strip -r` meets an archive: archives are not rewritten in place, so only name what
        /// `strip ARCHIVE -o` would drop (status unchanged), read as it reads them; with
        /// `dryRun` its lines too (`ARCHIVE!/MEMBER: KIND (STORE)`, `ARCHIVE!/ENTRY: cannot be
        /// read (REASON): would be dropped`). An archive that cannot be read is `where`'s to
        /// report. True when it holds something to drop.
        @discardableResult
        static func noteArchive(_ archive: DocumentSourceTreePath, kinds: Swift.Set<ProvenanceKind>, limits: ArchiveScanner.Limits,
                                dryRun: Bool = false, diagnostics: inout Diagnostics) -> Bool {
            var quiet = Diagnostics()  // read failures are not reported here
            guard let found = StripArchive.inspect(archive, kinds: kinds, limits: limits, list: dryRun, diagnostics: &quiet)
            else { return false }
            if found.outputFailed { diagnostics.record(.ioError) }  // said by `quiet`
            guard !found.isEmpty else { return false }
            diagnostics.fail(visible: archive.visible, found.words + "; " + StripArchive.notRewritten, status: .success)
            return true
        }

        /// What one file lost (or, dry, would lose): with `dryRun` a line `FILE: KIND (STORE)`
        /// per mark, all in one write; nothing found is status 1. False when standard output
        /// failed (reported).
        static func report(_ stripped: [ProvenanceMarkLocation], path: DocumentSourceTreePath, kinds: Swift.Set<ProvenanceKind>,
                           dryRun: Bool, diagnostics: inout Diagnostics) -> Bool {
            guard !stripped.isEmpty else {
                let reason = kinds.count == ProvenanceKind.allCases.count ? "no mark of where it came from" : "no mark of the kinds asked"
                diagnostics.fail(visible: path.visible, reason, status: .absent)
                return true
            }
            guard dryRun else { return true }
            let visible = path.visible
            let text = stripped.map { visible + ": " + MarkRecord.heading(kind: $0.kind, store: $0.store) + "\n" }.joined()
            return diagnostics.write(text)
        }
    }
}
