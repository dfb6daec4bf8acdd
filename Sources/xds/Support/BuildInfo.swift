internal import CBuildInfo
import XDocSource
import XDocSourceArchive
import XDocSourceHTTP

/// What `xds --version` prints: the version and the commit it was built from, then the C
/// libraries it would load.
enum BuildInfo {
    /// The release version; the Debian package (`make deb`) takes its version from this line.
    static let version = "0.2.0"

    /// The git commit the binary was built from (see `scripts/build-info.sh`), or "unknown".
    static var commit: String { String(cString: xds_build_commit()) }

    /// `0.2.0 (commit 1a2b3c4d5e6f)`.
    static var versionLine: String { "\(version) (commit \(commit))" }

    /// The lines `xds --version` prints below ``versionLine`` (which scripts may parse, so it
    /// stays first and alone): which libplist, libcurl and libarchive xds would load, with their
    /// version or file, or why one cannot be, so that a bug report carries them. Loads the three
    /// libraries; nothing else does at start-up.
    static var libraryLines: String {
        [PropertyList.libraryDescription, CurlTransport.libraryDescription, ArchiveScanner.libarchiveDescription]
            .joined(separator: "\n")
    }
}
