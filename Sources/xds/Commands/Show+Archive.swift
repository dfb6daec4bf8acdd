#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import XDSSystem
import XDocSource
import XDocSourceArchive

/// What `xds show` did with one archive.
struct ArchiveShowing {
    /// Members written.
    var shown = 0
    /// Whether the archive was scanned to the end without an error.
    var failed = false
    /// Problems reported (an entry that could not be read: no "no member carries one" then).
    var problems = 0
    /// Whether standard output failed (the command stops).
    var outputFailed = false
    /// A `.textpack`'s `info.json`, as the scan found it (bounded), else nil.
    var textBundleInfo: [UInt8]?
    /// Why a `.textpack`'s `info.json` was not captured (a warning), else nil.
    var textBundleInfoProblem: String?
}

/// `--archive-limit SIZE`: how much of a compressed tar, or of a zip's entries, is
/// decompressed (SPEC §2).
struct ArchiveLimitOptions: ParsableArguments {
    @Option(name: .customLong("archive-limit"),
            help: ArgumentHelp("Decompress at most SIZE bytes of each compressed tar or zip (K, M, G, T: powers of 1024; default 1G).",
                               valueName: "SIZE"))
    var archiveLimit: ArchiveLimit?

    /// The limits of each archive scan.
    var limits: ArchiveScanner.Limits { Self.limits(archiveLimit?.bytes) }

    /// The limits of each archive scan for `--archive-limit bytes` (nil: not given).
    static func limits(_ bytes: Int64?) -> ArchiveScanner.Limits {
        ArchiveScanner.Limits(maximumDecompressedSize: bytes ?? ArchiveScanner.Limits.defaultDecompressedSize)
    }
}

/// A size such as `512M` or `2G` (``ArchiveScanner/Limits/parseSize(_:)``).
struct ArchiveLimit: ExpressibleByArgument {
    let bytes: Int64

    init?(argument: String) {
        guard let bytes = ArchiveScanner.Limits.parseSize(argument) else { return nil }
        self.bytes = bytes
    }
}

extension XDS.Show {
    /// Scans `archive` (a regular file whose name is an archive's) and writes each member that
    /// carries a value, as it is found, named `ARCHIVE!/MEMBER`; problems go to standard error
    /// (65), a missing archive is 66, an unreadable one 74, a corrupt one 65. `shown` counts
    /// everything written so far (for the blank line between human records).
    static func showArchive(
        _ archive: DocumentSourceTreePath, json: Bool, limits: ArchiveScanner.Limits, shown: inout Int,
        diagnostics: inout Diagnostics
    ) -> ArchiveShowing {
        var result = ArchiveShowing()
        guard let scanner = ArchiveScanner(path: archive, limits: limits) else { return result }
        do throws(ArchiveError) {
            let summary = try scanner.scan { event in
                switch event {
                case .problem(let problem):
                    result.problems += 1
                    diagnostics.fail(visible: archive.visible, problem.message, status: .dataError)
                case .member(let member):
                    guard write(FoundRecord(member, in: archive), json: json, shown: &shown, diagnostics: &diagnostics) else {
                        result.outputFailed = true
                        return .stop
                    }
                    result.shown += 1
                }
                return .proceed
            }
            result.textBundleInfo = summary.textBundleInfo
            result.textBundleInfoProblem = summary.textBundleInfoProblem
        } catch {
            diagnostics.fail(visible: archive.visible, message(error), status: ExitStatus(error))
            result.failed = true
        }
        return result
    }

    /// The line for an archive that could not be scanned to its end; the limit names the option
    /// that raises it (the library's words name no flag).
    static func message(_ error: ArchiveError) -> String {
        guard error.kind == .limitReached, let limit = error.limit else { return error.message }
        return "stopped after decompressing \(ArchiveScanner.Limits.sizeText(limit)) (the archive limit; --archive-limit to raise it)"
    }

    /// Whether `file` is read as an archive too: its name is an archive's and it is a regular
    /// file (with `followSymlinks` false, not a symbolic link to one: `--no-follow`).
    static func isArchive(_ file: DocumentSourceTreePath, followSymlinks: Bool = true) -> Bool {
        guard ArchiveKind(fileName: file.bytes) != nil else { return false }
        if !followSymlinks {
            var info = stat()
            guard let text = file.string, lstat(text, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        }
        return ArchiveScanner.isRegularFile(file)
    }
}

extension XDS.Show {
    /// The TextBundle record of a `.textpack` from the `info.json` bytes its scan found; a bad
    /// one is a warning, as for a folder.
    static func textPackInfo(_ archive: DocumentSourceTreePath, _ scanned: ArchiveShowing) -> TextBundleInfo? {
        if let problem = scanned.textBundleInfoProblem {
            Diagnostics.printError("xds: warning: \(archive.visible): \(VisibleText.escapedMessage(problem)) (ignored)")
        }
        guard let bytes = scanned.textBundleInfo else { return nil }
        do {
            return try TextBundleInfo.parse(bytes)
        } catch {
            Diagnostics.printError("xds: warning: \(archive.visible): \(VisibleText.escapedMessage(error.message)) (ignored)")
            return nil
        }
    }
}

extension XDS.Remove {
    /// `remove -r` meets an archive: archives are read-only, so only say how many members carry
    /// a value (status unchanged), for users publishing the tree. Problems inside the archive are
    /// not reported here (`xds show` reports them).
    static func noteArchive(_ archive: DocumentSourceTreePath, limits: ArchiveScanner.Limits, diagnostics: inout Diagnostics) {
        guard let scanner = ArchiveScanner(path: archive, limits: limits) else { return }
        var members = 0
        _ = try? scanner.scan { event in
            if case .member = event { members += 1 }
            return .proceed
        }
        guard members > 0 else { return }
        let carry = members == 1 ? "1 member carries" : "\(members) members carry"
        diagnostics.fail(visible: archive.visible, "\(carry) x-document-source; xds does not rewrite archives",
                         status: .success)
    }
}

extension ExitStatus {
    /// The SPEC §5 status for an archive that could not be scanned.
    init(_ error: ArchiveError) {
        switch error.kind {
        case .notFound: self = .noInput
        case .unreadable: self = .ioError
        case .malformed, .limitReached: self = .dataError
        }
    }
}
