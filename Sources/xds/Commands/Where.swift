import ArgumentParser
import XDSProvenance
import XDSSystem
import XDocSource
import XDocSourceArchive

extension XDS {
    /// `xds where`: every mark of where files came from, decoded (SPEC §6).
    struct Where: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "where",
            abstract: "Show where files came from: every download and origin mark, in every store.",
            discussion: """
                Reads every mark of where a file came from, decoded, side by side: \
                x-document-source (as xds show prints it), macOS's com.apple.quarantine \
                (kind quarantine: flags with their names, the time in UTC, the agent that \
                downloaded it, the event id), com.apple.metadata:kMDItemWhereFroms (where-froms: \
                the download URL and the page, or Mail's From, Subject and Message-ID), \
                kMDItemDownloadedDate (downloaded-date), com.apple.lastuseddate#PS \
                (last-used-date), com.apple.provenance (macos-provenance, as hex), freedesktop's \
                user.xdg.origin.url and its companions (xdg: url, referrer, emailSubject, \
                emailFrom, emailSender, emailMessageID, publisher, creator; what wget --xattr and curl \
                --xattr write) and Windows' Zone.Identifier stream (zone-identifier: zone, \
                zoneName, hostURL, referrerURL).

                Stores: the native attribute whatever its prefix (user., osx., Netatalk's \
                user.com.apple.*, ntfs-3g's user.Zone.Identifier: store xattr), Samba's \
                streams (user.DosStream.NAME:$DATA, store samba-stream), an AppleDouble \
                sidecar ._NAME (appledouble), a NAME:Zone.Identifier file beside NAME, as \
                Windows Explorer leaves on WSL and NFS folders (zone-file), and inside zip and \
                tar archives (zip, tar). The same kind in two stores is two marks. Other \
                attributes (user.mime_type, Finder tags, ...) are not marks and are not shown.

                Human output: the file name, then per mark a line KIND (STORE) and its fields \
                under it, last the attribute (or file) it was read from. Times are ISO 8601 in \
                UTC. --json prints JSON Lines, one object per file with a mark: \
                {"file": ..., "marks": [{"kind": ..., "store": ..., "name": ..., fields...}]} with \
                the fields flags, flagNames, time, agent, eventID (quarantine), urls \
                (where-froms), time (downloaded-date, last-used-date), hex (macos-provenance), \
                url, referrer, emailSubject, emailFrom, emailSender, emailMessageID, publisher, creator \
                (xdg), zone, zoneName, hostURL, referrerURL (zone-identifier); an \
                x-document-source mark has show's keys in "documentSource". Archive members \
                are named ARCHIVE!/MEMBER, and JSON adds "archive" and "member", as in show.

                URL fields (url, referrer, urls, hostURL, referrerURL, appInfoURL), whether or \
                not they parse, are never printed with the credentials they may carry \
                (user:password@ is written ***@); --redact also drops their query and fragment \
                (signed download tokens). A value that does not decode is shown as hex with the error, with a \
                warning on standard error, and the status is 65 at the end; values are bounded \
                before they are read, and never reach the terminal with control characters in \
                them.

                -r walks folders as xds show -r does (same walk, -j N threads, archives by \
                name, --archive-limit); a sidecar ._NAME or a NAME:Zone.Identifier whose NAME is \
                gone is listed under its own path. --summary (with -r) prints counts instead: \
                files with a mark, marks per kind and per store, URLs per host, marks per agent \
                (quarantine agent, xdg publisher and creator), one line COUNT  WHAT  VALUE each, \
                most first (at most 1000 distinct hosts and agents; the rest are counted as \
                (other)); with --json, one object.

                --files-from LIST reads more names from LIST (- for standard input), \
                NUL-separated as find -print0 writes them, after any FILE (empty names are \
                skipped; an empty list is status 0). Its names need not be UTF-8: such a name is \
                read by its bytes and shown as -r shows one (\\x{XX}; in JSON \\udcXX). \
                --no-archives reads archives as plain files: their own marks only. Together \
                they serve programs that show files (a file manager asking about a folder's \
                entries at once).

                Status 0 when every file named has a mark, 1 when one has none (with -r: when \
                nothing under a folder has one). xds strip removes them.

                Examples:
                  xds where ~/Downloads/setup.zip
                  xds where --json --redact report.pdf
                  xds where -r --summary /srv/share
                  find . -maxdepth 1 -print0 | xds where --json --no-archives --files-from -
                """
        )

        @Argument(help: "The files or folders to read (none needed with --files-from).", completion: .file())
        var files: [String] = []

        @Flag(help: "Print JSON Lines, one object per file.")
        var json = false

        @Flag(name: [.customShort("r"), .long], help: "Walk folders and list every file and folder that has a mark.")
        var recursive = false

        @Flag(help: "Drop the query and fragment of URLs (credentials are never shown).")
        var redact = false

        @Flag(help: "With -r: print counts per kind, store, host and agent instead of records.")
        var summary = false

        @OptionGroup var jobs: JobsOptions

        @OptionGroup var follow: FollowOptions

        @OptionGroup var archiveLimit: ArchiveLimitOptions

        @Flag(name: .customLong("no-archives"),
              help: "Read archives as plain files: their own marks only, members not looked into.")
        var noArchives = false

        @Option(name: .customLong("files-from"),
                help: ArgumentHelp("Also read the files named in this list (- for standard input), NUL-separated, after any FILE.",
                                   valueName: "file"),
                completion: .file())
        var filesFrom: String?

        func validate() throws {
            if files.isEmpty && filesFrom == nil {
                throw ValidationError("Missing expected argument '<files> ...' (or --files-from)")
            }
            if filesFrom == "" { throw ValidationError("--files-from needs a file, or - for standard input.") }
            if summary && !recursive { throw ValidationError("--summary goes with -r (--recursive).") }
        }

        func run() throws {
            var output = WhereOutput(json: json, redact: redact, summary: summary)
            var diagnostics = Diagnostics()
            var names = files
            // The list's names that are not UTF-8, by their place in `names` (see whereExact).
            var exact: [Int: DocumentSourceTreePath] = [:]
            if let filesFrom {
                do throws(BinaryFileError) {
                    for name in try FileList.read(filesFrom) {
                        if let text = String(validatingUTF8Bytes: name) {
                            names.append(text)
                        } else {
                            exact[names.count] = DocumentSourceTreePath(bytes: name)
                            names.append("")
                        }
                    }
                } catch {
                    diagnostics.fail(error.path, error.reason, status: error.status)
                    try diagnostics.finish()
                }
            }
            let limits = archiveLimit.limits
            // Runs of text names as before; each exact name in its place among them.
            var start = 0
            while start < names.count {
                if let path = exact[start] {
                    diagnostics.record(Self.whereExact(path, recursive: recursive, followSymlinks: follow.followSymlinks,
                                                       output: &output, limits: limits, jobs: jobs.count,
                                                       archives: !noArchives).worst)
                    start += 1
                    continue
                }
                var end = start
                while end < names.count && exact[end] == nil { end += 1 }
                let run = Array(names[start..<end])
                start = end
                let found = recursive
                    ? Self.whereTree(run, output: &output, limits: limits, jobs: jobs.count, archives: !noArchives)
                    : Self.where(run, followSymlinks: follow.followSymlinks, output: &output, limits: limits, archives: !noArchives)
                diagnostics.record(found.worst)
            }
            output.finish(&diagnostics)
            try diagnostics.finish()
        }

        /// `where FILE...`: each file's marks, written as soon as they are read; an archive's
        /// members after its own marks, as `show` lists them (unless `archives` is false:
        /// `--no-archives` reads an archive as a plain file).
        static func `where`(_ files: [String], followSymlinks: Bool, output: inout WhereOutput,
                            limits: ArchiveScanner.Limits, archives: Bool = true) -> Diagnostics {
            var diagnostics = Diagnostics()
            for file in files {
                guard diagnostics.accepts(file) else { continue }
                let marks: [ProvenanceMark]
                do throws(DocumentSourceFileError) {
                    marks = try ProvenanceFile(path: file, followSymlinks: followSymlinks).read()
                } catch {
                    diagnostics.fail(file, error)
                    continue
                }
                let path = DocumentSourceTreePath(file)
                guard output.emit(MarkRecord(file: path, marks: marks), diagnostics: &diagnostics) else { break }
                var members = 0
                let archive = archives && XDS.Show.isArchive(path, followSymlinks: followSymlinks)
                if archive {
                    let scanned = whereArchive(path, output: &output, limits: limits, diagnostics: &diagnostics)
                    if scanned.outputFailed { break }
                    // An entry that could not be read may hold a mark: "no mark" would contradict it.
                    if scanned.failed || scanned.problems > 0 { continue }
                    members = scanned.members
                }
                if marks.isEmpty && members == 0 {
                    diagnostics.fail(file, archive
                                     ? "no mark of where it came from, on the archive or any member"
                                     : "no mark of where it came from", status: .absent)
                }
            }
            return diagnostics
        }

        /// `where -r`: walks every folder root and writes each file, folder, orphan sidecar or
        /// zone file with marks as soon as it is found, and the members of archives met; a root
        /// that is not a folder is read as by ``where(_:followSymlinks:output:limits:archives:)``.
        /// Without `archives` (`--no-archives`) an archive is a plain file: its own marks only.
        static func whereTree(_ roots: [String], output: inout WhereOutput, limits: ArchiveScanner.Limits,
                              jobs: Int, archives: Bool = true) -> Diagnostics {
            var diagnostics = Diagnostics()
            var progress = ProgressLine()
            Recursive.boundHeap()
            StandardOutput.buffered(&diagnostics) { diagnostics in
            for root in roots {
                guard diagnostics.accepts(root) else { continue }
                guard Recursive.isFolder(root) else {
                    let single = `where`([root], followSymlinks: true, output: &output, limits: limits, archives: archives)
                    diagnostics.record(single.worst)
                    continue
                }
                let walked = walkMarks(ProvenanceTree(roots: [root], jobs: jobs), output: &output, limits: limits,
                                       archives: archives, progress: &progress, diagnostics: &diagnostics)
                progress.clear()
                if walked.outputFailed { break }
                // Not after an archive that could not be read whole (its error above says so).
                if walked.counts.tagged == 0 && walked.members == 0 && !walked.archiveUnsure {
                    diagnostics.fail(root, "no file or folder in it has a mark of where it came from", status: .absent)
                }
            }
            }
            return diagnostics
        }

        /// A name of `--files-from` that is not valid UTF-8 (Linux names are bytes; such a name
        /// has no exact Swift `String`): read by its exact bytes as `where -r` reads every entry,
        /// through the walk's root (XDSWalk's `FileTree`, ``ProvenanceTree`` with
        /// `walksFolders` false without `-r`), links followed as a root's are; named in records
        /// and messages as `where -r` names such entries (`\udcXX` in JSON, `\x{XX}` for people).
        /// An archive is recognised by its name, as `-r` recognises it. With `--no-follow` it
        /// is refused (66): a root's link is always followed.
        static func whereExact(_ path: DocumentSourceTreePath, recursive: Bool, followSymlinks: Bool,
                               output: inout WhereOutput, limits: ArchiveScanner.Limits, jobs: Int,
                               archives: Bool) -> Diagnostics {
            var diagnostics = Diagnostics()
            guard followSymlinks else {
                diagnostics.fail(visible: path.visible, "with --no-follow, a name that is not valid UTF-8 cannot be read",
                                 status: .noInput)
                return diagnostics
            }
            let tree = ProvenanceTree(rootPaths: [path], jobs: recursive ? jobs : 1, walksFolders: recursive)
            var progress = ProgressLine()
            // A walk's records are gathered and written together (whereTree); one file's need not be.
            func walk(_ diagnostics: inout Diagnostics) -> WalkedTree {
                walkMarks(tree, output: &output, limits: limits, archives: archives, progress: &progress, diagnostics: &diagnostics)
            }
            let walked = recursive ? StandardOutput.buffered(&diagnostics) { walk(&$0) } : walk(&diagnostics)
            progress.clear()
            let counts = walked.counts
            if !walked.outputFailed && !walked.archiveUnsure && walked.problems == 0 && counts.tagged == 0 && walked.members == 0 {
                let reason = recursive && counts.folders > 0 ? "no file or folder in it has a mark of where it came from"
                    : walked.archiveMet ? "no mark of where it came from, on the archive or any member" : "no mark of where it came from"
                diagnostics.fail(visible: path.visible, reason, status: .absent)
            }
            return diagnostics
        }

        /// What one walk of ``walkMarks(_:output:limits:archives:progress:diagnostics:)`` met, for
        /// the line about its root.
        struct WalkedTree {
            var counts = DocumentSourceTree.Counts()
            /// Archive members with marks written.
            var members = 0
            /// Whether an archive met could not be read whole ("no mark" would contradict it).
            var archiveUnsure = false
            /// Problems the walk reported (entries it could not read).
            var problems = 0
            var outputFailed = false
            /// Whether an archive was met (and read, not `--no-archives`).
            var archiveMet = false
        }

        /// Walks `tree`, writing each entry with marks as it is found and the members of the
        /// archives met (plain files with `archives` false, `--no-archives`); problems go to
        /// standard error. `where -r`'s walk and a `--files-from` name read by its bytes.
        static func walkMarks(_ tree: ProvenanceTree, output: inout WhereOutput, limits: ArchiveScanner.Limits,
                              archives: Bool, progress: inout ProgressLine, diagnostics: inout Diagnostics) -> WalkedTree {
            var walked = WalkedTree()
            walked.counts = tree.walk(archives: { archive in
                guard archives else { return .proceed }
                walked.archiveMet = true
                progress.clear()
                let scanned = whereArchive(archive, output: &output, limits: limits, diagnostics: &diagnostics)
                walked.members += scanned.members
                if scanned.failed || scanned.problems > 0 { walked.archiveUnsure = true }
                walked.outputFailed = scanned.outputFailed
                return walked.outputFailed ? .stop : .proceed
            }) { event in
                switch event {
                case .progress(let counts):
                    progress.update(counts)
                case .problem(let problem):
                    progress.clear()
                    walked.problems += 1
                    diagnostics.report(problem)
                case .found(let found):
                    progress.clear()
                    guard output.emit(MarkRecord(file: found.path, marks: found.marks), diagnostics: &diagnostics) else {
                        walked.outputFailed = true
                        return .stop
                    }
                    // A store that could not be read beside those that could (a malformed sidecar).
                    if let problem = found.problem {
                        diagnostics.fail(visible: found.path.visible, problem.message, status: ExitStatus(problem))
                    }
                }
                return .proceed
            }
            return walked
        }

        /// Scans `archive` and writes (or counts) each member with marks, named
        /// `ARCHIVE!/MEMBER`; problems go to standard error as `show`'s do (and are counted).
        static func whereArchive(_ archive: DocumentSourceTreePath, output: inout WhereOutput, limits: ArchiveScanner.Limits,
                                 diagnostics: inout Diagnostics) -> (members: Int, problems: Int, failed: Bool, outputFailed: Bool) {
            guard let scanner = ProvenanceArchive(path: archive, limits: limits) else { return (0, 0, false, false) }
            var members = 0, problems = 0, outputFailed = false
            do throws(ArchiveError) {
                try scanner.scan { event in
                    switch event {
                    case .problem(let problem):
                        problems += 1
                        diagnostics.fail(visible: archive.visible, problem.message, status: .dataError)
                    case .member(let member):
                        let record = MarkRecord(file: member.path(in: archive),
                                                member: .init(archive: archive, name: member.name), marks: member.marks)
                        guard output.emit(record, diagnostics: &diagnostics) else {
                            outputFailed = true
                            return .stop
                        }
                        members += 1
                    }
                    return .proceed
                }
            } catch {
                diagnostics.fail(visible: archive.visible, XDS.Show.message(error), status: ExitStatus(error))
                return (members, problems, true, outputFailed)
            }
            return (members, problems, false, outputFailed)
        }
    }
}

/// Where `xds where` sends each record: standard output as text or JSON Lines (one write per
/// record), or the ``MarkSummary`` printed at the end; warnings for values that do not decode.
struct WhereOutput {
    let json: Bool
    let redact: Bool
    private(set) var summary: MarkSummary?
    /// Records written (for the blank line between human records).
    private var shown = 0

    init(json: Bool, redact: Bool, summary: Bool) {
        self.json = json
        self.redact = redact
        self.summary = summary ? MarkSummary() : nil
    }

    /// The text of a URL field as printed (SPEC §6's rule, parsed or not): never its
    /// credentials; with `--redact`, neither its query nor its fragment.
    func urlText(_ url: String) -> String {
        redact ? ProvenanceURL.redacted(url) : ProvenanceURL.withoutCredentials(url)
    }

    /// The bytes of a URL field that is not UTF-8, before they are shown as hex: the library
    /// has hidden its credentials (``UndecodableValue/isURL``); `--redact` also cuts the query.
    func urlBytes(_ bytes: [UInt8]) -> [UInt8] {
        redact ? ProvenanceURL.redacted(bytes: bytes) : ProvenanceURL.withoutCredentials(bytes: bytes)
    }

    /// Writes (or counts) one record, then warns about each value that does not decode (status
    /// 65). A record without marks is neither. False (reported) when standard output failed.
    mutating func emit(_ record: MarkRecord, diagnostics: inout Diagnostics) -> Bool {
        guard !record.marks.isEmpty else { return true }
        if summary != nil {
            summary!.add(record.marks)
        } else {
            if json {
                guard diagnostics.write({ record.appendJSONLine(to: &$0, urls: urlText, urlBytes: urlBytes) }) else { return false }
            } else {
                guard diagnostics.write((shown > 0 ? "\n" : "") + record.text(urls: urlText, urlBytes: urlBytes)) else { return false }
            }
            shown += 1
        }
        for (mark, value) in record.undecodable {
            diagnostics.fail(visible: record.file.visible,
                             "\(MarkRecord.heading(kind: mark.kind, store: mark.store)) does not decode: \(value.reason)",
                             status: .dataError)
        }
        return true
    }

    /// Prints the summary, when one was asked for (even of nothing: the counts are the answer).
    mutating func finish(_ diagnostics: inout Diagnostics) {
        guard let summary else { return }
        _ = diagnostics.write(json ? summary.json + "\n" : summary.text)
    }
}
