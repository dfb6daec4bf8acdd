import ArgumentParser
import XDSSystem
import XDocSource
import XDocSourceArchive

extension XDS {
    /// `xds show`: prints the attribute.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show which app files came from (read the x-document-source attribute).",
            discussion: """
                Looks in the native attribute, then Samba's stream attribute \
                (user.DosStream.x-document-source:$DATA), then an AppleDouble sidecar ._NAME, \
                and says which store the value came from. Binary and XML property lists are read.

                Human output: the file name, then the fields aligned under it, the store, other \
                keys and warnings about keys of the wrong type (which are ignored, but kept when \
                the value is rewritten).

                --json prints JSON Lines: one object per file that has the attribute, with \
                "file", the keys "identifier", "name", "path", "appInfoURL" when present, "store" \
                ("xattr", "samba-stream", "appledouble", "zip" or "tar"), "other" (an object of the other keys) \
                and "warnings" (an array, only when there are any). In "other", property-list \
                data becomes a base64 string, dates ISO-8601 strings exact to the microsecond (e.g. \
                "2024-05-01T12:30:00Z", "2024-05-01T12:30:00.25Z"), UIDs {"CF$UID": n}, and \
                non-finite reals the strings "NaN", "Infinity", "-Infinity"; keys are sorted. \
                A date outside years 0001-9999 is written as its number of seconds since \
                2001-01-01, like a real (a JSON number), and in human output as \
                "SECONDS s since 2001-01-01".

                A file without the attribute gets "xds: FILE: no x-document-source attribute" on \
                standard error (no JSON line) and the exit status is 1.

                Archives are read too, without extracting anything: a regular file named *.zip, \
                *.textpack, *.tar, *.tgz, *.tar.gz, *.tbz, *.tbz2, *.tar.bz2, *.txz, *.tar.xz, \
                *.tzst, *.tar.zst, *.tlz, *.tar.lzma, *.tar.lz, *.taz, *.tar.Z or *.tar.lz4 (any \
                case) is shown with its own attribute, then every member \
                that carries a value, each named ARCHIVE!/MEMBER. Zip members carry it in \
                AppleDouble entries __MACOSX/DIR/._NAME or DIR/._NAME (Finder, ditto), store \
                "zip"; tar members in extended-attribute headers (GNU tar --xattrs, bsdtar) or \
                ._NAME entries (macOS), store "tar"; the store line names the entry that held \
                the value. JSON adds "archive" and "member" after "file". Member names are only \
                names (nothing is written; absolute and ../ names are shown as they are, escaped), \
                and are the bytes the archive stores (no Unicode normalisation). \
                An archive is hostile input: at most 1000000 entries are read; a zip is read \
                through its central directory (members are skipped, never inflated; a \
                self-extracting zip with bytes in front lists like any other; the ._NAME entries \
                read are inflated up to the limit below, in all; entries whose data overlap, or \
                run into the directory, are damage; padding in extra fields, as zipalign writes, \
                is skipped, and a zip whose classic end record is invalid is read through its \
                zip64 end record); a tar's compression is recognised by its magic bytes whatever \
                its name says, as tar and bsdtar do (gzip, bzip2, xz, lzip, zstd past skippable \
                frames, lz4, compress, lzma by its header, or none), it is decompressed once (one \
                decoder, never one inside another; an empty compressed stream is an empty \
                archive), and at \
                most --archive-limit SIZE bytes of it (default 1G; K, M, G, T are powers of 1024, \
                e.g. 512M, 2G): reaching the limit is one line naming the archive and the limit, \
                status 65, and the walk goes on. A ._NAME entry over 1 MiB, encrypted or not \
                AppleDouble is reported with its name (status 65), as is a malformed value, and \
                the listing goes on; a file that is not a readable archive, or is damaged (a zip \
                cut short has no end record), is 65. Status 1 when neither the archive nor any \
                member has a value.

                -r walks each folder and lists every file and folder under it that carries the \
                attribute in any store, as it finds them (the same output per file; a FILE that \
                is not a folder is shown as without -r). Symbolic links met in the walk are not \
                followed and not listed; ._NAME sidecars and .DS_Store are not documents, but a \
                sidecar ._NAME whose NAME is gone (deleted or renamed, common on shares) or is a \
                symbolic link, and that holds a value, is listed under its own path DIR/._NAME \
                (store appledouble), as xds remove -r clears it. Paths \
                are the folder as given joined with the names below it; archives met in the \
                walk (by name, as above) are listed member by member; bytes that are not UTF-8 \
                are written \\x{ff} in human output and as the escape \\udcff in JSON (Python's \
                os.fsencode gives the exact name back). A folder that cannot be read is reported \
                (status 74) and the walk goes on; entries that vanish during the walk and bind-mount \
                loops are reported without changing the status. Status 1 when nothing under a \
                folder has the attribute. When standard error is a terminal, a progress line \
                shows the counts. The walk runs on -j N (--jobs N) threads, by default one per \
                processor, and records arrive in walk order, which changes from run to run \
                (pipe through sort for a stable order); -j 1 walks on one thread in a fixed \
                order (depth first, a folder's files before its subfolders).

                A TextBundle (a NAME.textbundle folder, or a NAME.textpack zip, whose record comes \
                after its members) also gets its own record of where it came \
                from, read from its info.json: creatorIdentifier, creatorURL, sourceURL, type, \
                transient and version, as a "textbundle (info.json)" section in human output and a \
                "textbundle" object in JSON (keys of the wrong type are left out and listed in its \
                "warnings"). A bundle without the attribute still shows that record (JSON: "file" \
                and "textbundle" only), with status 1. An info.json that cannot be read or parsed \
                is a warning on standard error, not a failure.

                Only x-document-source is shown here. Where a file was downloaded from (the \
                quarantine, WhereFroms and dates a Mac sets, user.xdg.origin.url from wget and \
                curl, Windows' Zone.Identifier) is shown by xds where, beside this attribute, \
                and removed by xds strip.

                Examples:
                  xds show report.pdf
                  xds show --json *.pdf | jq -r .name
                  xds show -r --json /srv/share | sort
                """
        )

        @Argument(help: "The files or folders to read.", completion: .file())
        var files: [String]

        @Flag(help: "Print JSON Lines, one object per file.")
        var json = false

        @Flag(name: [.customShort("r"), .long], help: "Walk folders and list every file and folder that has the attribute.")
        var recursive = false

        @OptionGroup var follow: FollowOptions

        @OptionGroup var archiveLimit: ArchiveLimitOptions

        @OptionGroup var jobs: JobsOptions

        @Flag(help: ArgumentHelp("In a terminal that shows images (kitty, iTerm2), draw each app's masked icon above its fields, from the cache.",
                                 discussion: "Nothing is drawn when standard output is not such a terminal."))
        var icon = false

        @Flag(help: "With --icon, fetch icons that are not cached (https only).")
        var fetch = false

        func validate() throws {
            try commandLine.validate()
        }

        func run() throws {
            try commandLine.run()
        }

        /// What was asked, as plain values (what the fast path builds too, ``XDS/Route``).
        var commandLine: ShowCommandLine {
            ShowCommandLine(files: files, json: json, recursive: recursive, noFollow: follow.noFollow,
                            archiveLimit: archiveLimit.archiveLimit?.bytes, jobs: jobs.jobs, icon: icon, fetch: fetch)
        }

        /// Writes every file's attribute to standard output as soon as it is read (one write per
        /// file) and returns the diagnostics (shared with the fast path). Stops at the first
        /// failed write: the rest could not be shown either.
        static func show(_ files: [String], json: Bool, followSymlinks: Bool,
                         limits: ArchiveScanner.Limits = ArchiveScanner.Limits(), icons: IconDisplay? = nil) -> Diagnostics {
            var diagnostics = Diagnostics()
            var shown = 0
            for file in files {
                guard diagnostics.accepts(file) else { continue }
                let found: StoredDocumentSource?
                do {
                    found = try DocumentSourceFile(path: file, followSymlinks: followSymlinks).read()
                } catch {
                    diagnostics.fail(file, error)
                    continue
                }
                let path = DocumentSourceTreePath(file)
                let archive = isArchive(path, followSymlinks: followSymlinks)
                // A .textpack's info.json is met in its scan: its own record follows its members.
                let textPack = archive && ArchiveKind.isTextPack(path.bytes)
                var bundle: TextBundleInfo?
                if !textPack {
                    bundle = textBundleInfo(path, isFolder: Recursive.isFolder(file))
                    guard writeOwnRecord(file, found, bundle, json: json, icons: icons, shown: &shown,
                                         diagnostics: &diagnostics) else { break }
                }
                guard archive else {
                    if found == nil {
                        diagnostics.fail(file, bundle == nil ? "no x-document-source attribute"
                                         : "no x-document-source attribute (the TextBundle's info.json is shown)", status: .absent)
                    }
                    continue
                }
                // An archive's members too (zip, tar: by name), after its own attribute.
                let scanned = showArchive(path, json: json, limits: limits, shown: &shown, diagnostics: &diagnostics)
                if scanned.outputFailed { break }
                if textPack {
                    bundle = textPackInfo(path, scanned)
                    guard writeOwnRecord(file, found, bundle, json: json, shown: &shown, diagnostics: &diagnostics) else { break }
                }
                // Not after an entry that could not be read: it may carry one.
                if found == nil && scanned.shown == 0 && !scanned.failed && scanned.problems == 0 {
                    diagnostics.fail(file, bundle == nil ? "no x-document-source attribute, and no member of the archive carries one"
                                     : "no x-document-source attribute, and no member of the archive carries one (the TextBundle's info.json is shown)",
                                     status: .absent)
                }
            }
            return diagnostics
        }

        /// Writes a file's own record: its attribute with the TextBundle record under it, or the
        /// TextBundle record alone; nothing when it has neither. False when the output failed.
        static func writeOwnRecord(
            _ file: String, _ found: StoredDocumentSource?, _ bundle: TextBundleInfo?, json: Bool,
            icons: IconDisplay? = nil, shown: inout Int, diagnostics: inout Diagnostics
        ) -> Bool {
            // No attribute, but the bundle's own record is worth showing; the status still says
            // the attribute is absent.
            guard found != nil || bundle != nil else { return true }
            return write(FoundRecord(file: DocumentSourceTreePath(file), found, textBundle: bundle), json: json,
                         icons: icons, shown: &shown, diagnostics: &diagnostics)
        }

        /// Writes one record in one write: a JSON line, or the human text after a blank line
        /// (when something was shown before) with the app's icon over a value's fields. False
        /// (reported) when the output failed.
        static func write(
            _ record: FoundRecord, json: Bool, icons: IconDisplay? = nil, shown: inout Int, diagnostics: inout Diagnostics
        ) -> Bool {
            if json {
                guard diagnostics.write({ record.appendJSONLine(to: &$0) }) else { return false }
                shown += 1
                return true
            }
            let text = (shown > 0 ? "\n" : "") + (record.stored.flatMap { icons?.sequence(for: $0.source) } ?? "") + record.text
            guard diagnostics.write(text) else { return false }
            shown += 1
            return true
        }

        /// `show -r`: walks every folder root and writes each file and folder found as soon as it
        /// is found (one write each); a root that is not a folder goes through ``show(_:json:followSymlinks:)``.
        static func showTree(_ roots: [String], json: Bool, limits: ArchiveScanner.Limits, icons: IconDisplay? = nil,
                             jobs: Int = 1) -> Diagnostics {
            var diagnostics = Diagnostics()
            var progress = ProgressLine()
            var shown = 0
            Recursive.boundHeap()
            StandardOutput.buffered(&diagnostics) { diagnostics in
            for root in roots {
                guard diagnostics.accepts(root) else { continue }
                guard Recursive.isFolder(root) else {
                    let single = show([root], json: json, followSymlinks: true, limits: limits, icons: icons)
                    diagnostics.record(single.worst)
                    if single.worst == .success { shown += 1 }
                    continue
                }
                var members = 0, unsure = false
                let walked = Recursive.walk(root, jobs: jobs, progress: &progress, diagnostics: &diagnostics,
                                            onArchive: { archive, diagnostics in
                    let scanned = showArchive(archive, json: json, limits: limits, shown: &shown, diagnostics: &diagnostics)
                    members += scanned.shown
                    if scanned.failed || scanned.problems > 0 { unsure = true }
                    guard !scanned.outputFailed else { return false }
                    // A .textpack that carries values: its info.json record after its members.
                    guard scanned.shown > 0, ArchiveKind.isTextPack(archive.bytes),
                          let bundle = textPackInfo(archive, scanned)
                    else { return true }
                    return write(FoundRecord(file: archive, nil, textBundle: bundle), json: json, shown: &shown,
                                 diagnostics: &diagnostics)
                }) { found, diagnostics in
                    let bundle = textBundleInfo(found.path, isFolder: found.isFolder)
                    return write(FoundRecord(found, textBundle: bundle), json: json, icons: icons, shown: &shown,
                                 diagnostics: &diagnostics)
                }
                guard let counts = walked else { break }
                // Not after an archive that could not be read whole (its error above says so).
                if counts.tagged == 0 && members == 0 && !unsure {
                    diagnostics.fail(root, "no file or folder in it has an x-document-source attribute", status: .absent)
                }
            }
            }
            return diagnostics
        }
    }
}
