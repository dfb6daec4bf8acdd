/// Where a mark was found (SPEC §6), by the names `xds where` prints.
public enum ProvenanceStore: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A native extended attribute, whatever its prefix: `user.NAME` on Linux (Netatalk also
    /// keeps Apple names as `user.com.apple.…`), `osx.NAME` on an HFS+ disk, ntfs-3g's
    /// `user.Zone.Identifier`; the plain name on Darwin.
    case xattr = "xattr"
    /// Samba's `streams_xattr` form of an alternate data stream, `user.DosStream.NAME:$DATA`
    /// (a `:` inside NAME arrives as U+F022 under `fruit:encoding = private`); the value ends in
    /// one NUL byte that is not part of it.
    case sambaStream = "samba-stream"
    /// An attribute entry of an AppleDouble sidecar `._NAME`.
    case appleDouble = "appledouble"
    /// A `NAME:Zone.Identifier` file beside NAME, as Windows Explorer leaves on WSL and NFS folders.
    case zoneFile = "zone-file"
    /// Inside a zip (or `.textpack`) archive: a `__MACOSX/DIR/._NAME` or `DIR/._NAME` entry.
    case zip = "zip"
    /// Inside a tar archive: a pax `SCHILY.xattr.NAME` or `LIBARCHIVE.xattr.NAME` record, or a
    /// `._NAME` entry.
    case tar = "tar"

    /// The store's name as `xds where` prints it.
    public var description: String { rawValue }
}
