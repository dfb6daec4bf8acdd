import ArgumentParser

/// What `xds show` was asked, as plain values: from ArgumentParser's parse of ``XDS/Show`` or
/// from the plain command line of the fast path (``XDS/Route``); both check it with the one
/// ``validate()``. The defaults are what an absent flag means (as ArgumentParser's are).
struct ShowCommandLine: Equatable {
    var files: [String]
    var json = false
    var recursive = false
    var noFollow = false
    /// `--archive-limit` in bytes; nil when not given (``ArchiveLimitOptions/limits(_:)``).
    var archiveLimit: Int64?
    /// `-j`; nil when not given (``JobsOptions/count(_:)``).
    var jobs: Int?
    var icon = false
    var fetch = false

    /// Every check of the command's values, in the order ArgumentParser makes them (its option
    /// groups first): a check belongs here, not in ``XDS/Show/validate()``, so that the fast
    /// path makes it too.
    func validate() throws {
        try JobsOptions.validate(jobs)
        if json && icon { throw ValidationError("--icon draws beside the human output; it cannot go with --json.") }
        if fetch && !icon { throw ValidationError("--fetch fetches icons for --icon; give --icon too.") }
    }

    /// Shows the files (or walks the folders with -r) and returns what went wrong; the fast
    /// path exits with its worst status, ``run()`` throws it.
    func perform() -> Diagnostics {
        // Not even asked without --icon: the class's metadata costs `show FILE` ~24 000
        // instructions (callgrind, debug build).
        let icons = icon ? XDS.Show.IconDisplay(requested: icon, fetch: fetch) : nil
        let limits = ArchiveLimitOptions.limits(archiveLimit)
        if recursive {
            return XDS.Show.showTree(files, json: json, limits: limits, icons: icons, jobs: JobsOptions.count(jobs))
        }
        return XDS.Show.show(files, json: json, followSymlinks: !noFollow, limits: limits, icons: icons)
    }

    /// The command's work, as ArgumentParser runs it: the worst status thrown as an `ExitCode`.
    func run() throws {
        try perform().finish()
    }
}
