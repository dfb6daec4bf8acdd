internal import CBuildInfo

/// What `xds --version` prints: the version and the commit it was built from.
enum BuildInfo {
    /// The release version; the Debian package (`make deb`) takes its version from this line.
    static let version = "0.2.0"

    /// The git commit the binary was built from (see `scripts/build-info.sh`), or "unknown".
    static var commit: String { String(cString: xds_build_commit()) }

    /// `0.2.0 (commit 1a2b3c4d5e6f)`.
    static var versionLine: String { "\(version) (commit \(commit))" }
}
