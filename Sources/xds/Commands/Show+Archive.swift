#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDSSystem
import XDocSource

/// What `xds show` did with one archive.
struct ArchiveShowing {
    /// Members written.
    var shown = 0
    /// Whether the archive was scanned to the end without an error.
    var failed = false
    /// Whether standard output failed (the command stops).
    var outputFailed = false
    /// A `.textpack`'s `info.json`, as the scan found it (bounded), else nil.
    var textBundleInfo: [UInt8]?
}

extension XDS.Show {
    /// Scans `archive` (a regular file whose name is an archive's) and writes each member that
    /// carries a value, as it is found, named `ARCHIVE!/MEMBER`; problems go to standard error
    /// (65), a missing archive is 66, an unreadable one 74, a corrupt one 65. `shown` counts
    /// everything written so far (for the blank line between human records).
    static func showArchive(
        _ archive: DocumentSourceTreePath, json: Bool, shown: inout Int, diagnostics: inout Diagnostics
    ) -> ArchiveShowing {
        var result = ArchiveShowing()
        guard let scanner = ArchiveScanner(path: archive) else { return result }
        ArchiveTimeZone.settle()
        do throws(ArchiveError) {
            result.textBundleInfo = try scanner.scan { event in
                switch event {
                case .problem(let problem):
                    diagnostics.fail(visible: archive.visible, problem.message, status: .dataError)
                case .member(let member):
                    let text = json
                        ? member.jsonLine(archive: archive) + "\n"
                        : (shown > 0 ? "\n" : "") + humanText(heading: member.path(in: archive).visible, member.stored)
                    do throws(Errno) {
                        try StandardOutput.write(text)
                    } catch {
                        diagnostics.failedOutput(error)
                        result.outputFailed = true
                        return .stop
                    }
                    shown += 1
                    result.shown += 1
                }
                return .proceed
            }.textBundleInfo
        } catch {
            diagnostics.fail(visible: archive.visible, error.message, status: ExitStatus(error))
            result.failed = true
        }
        return result
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
    static func textPackInfo(_ archive: DocumentSourceTreePath, _ bytes: [UInt8]?) -> TextBundleInfo? {
        guard let bytes else { return nil }
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
    static func noteArchive(_ archive: DocumentSourceTreePath, diagnostics: inout Diagnostics) {
        guard let scanner = ArchiveScanner(path: archive) else { return }
        ArchiveTimeZone.settle()
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
        case .malformed: self = .dataError
        }
    }
}

/// libarchive converts every zip entry's DOS time with `mktime`, and glibc's `mktime` stats
/// /etc/localtime on every call while TZ is unset (to notice a changed zone): one `stat` per
/// member, half the time of listing a zip. Naming the same zone in TZ (":/etc/localtime", what
/// an unset TZ means) lets glibc skip that check. Set once, before the first scan, while the
/// command is single-threaded; a TZ the user set is left alone.
enum ArchiveTimeZone {
    static func settle() {
        #if os(Linux)
        if getenv("TZ") == nil { setenv("TZ", ":/etc/localtime", 0) }
        #endif
    }
}
