// libFuzzer entry for the archive scanner (libarchive underneath: zip, tar, pax, gzip, ...).
// Built by Fuzz/build.py from the modules imported below.
@testable import XDocSource
@testable import XDocSourceArchive
#if canImport(Glibc)
import Glibc
#endif

/// Where each input is written: the scanner reads a file by name (tmpfs when there is one).
let scratch: String = {
    let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    return "\(base)/xds-fuzz-archive-\(getpid())"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // The same bytes as a zip, a textpack and a tar (a tar's decoder, if any, is chosen by its
    // bytes whatever the name: TarCompression).
    for suffix in [".zip", ".textpack", ".tar"] {
        let path = scratch + suffix
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(fd >= 0, "cannot write \(path)")
        var written = 0
        while written < size {
            let n = write(fd, data + written, size - written)
            precondition(n > 0)
            written += n
        }
        close(fd)
        defer { unlink(path) }

        let limits = ArchiveScanner.Limits(maximumEntries: 5_000, maximumAppleDoubleSize: 1 << 20, maximumInfoJSONSize: 65_536,
                                           maximumDecompressedSize: 16 << 20)
        let scanner = ArchiveScanner(path: path, limits: limits)!
        var members = 0, problems = 0
        let store: DocumentSourceStore = suffix.hasPrefix(".t") && suffix != ".textpack" ? .tar : .zip
        do {
            let summary = try scanner.scan { event in
                switch event {
                case .member(let member):
                    members += 1
                    precondition(member.stored.store == store, "wrong store")
                    precondition(!member.name.visible.contains("\n"), "unescaped newline in a name")
                    _ = member.path(in: scanner.path).json
                case .problem(let problem):
                    problems += 1
                    precondition(!problem.message.contains("\n"), "a problem message spans lines")
                }
                return .proceed
            }
            precondition(summary.tagged == members && summary.problems == problems, "counts")
            precondition(summary.entries <= limits.maximumEntries, "entry bound")
            if let info = summary.textBundleInfo {
                precondition(suffix == ".textpack" && info.count <= limits.maximumInfoJSONSize, "info.json bound")
            }
        } catch {
            // Damage, or the archive limit (a zip's `._` entries inflated, a compressed tar).
            precondition(error.kind == .malformed || error.kind == .limitReached, "a readable file reported as \(error.kind)")
            precondition(error.kind != .limitReached || error.limit == limits.maximumDecompressedSize, "the limit")
            precondition(!error.message.contains("\n"), "an error message spans lines")
        }
    }
    return 0
}
