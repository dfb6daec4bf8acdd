/// Where an `x-document-source` value was found (SPEC §2), in the order readers look.
public enum DocumentSourceStore: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The native extended attribute: `user.x-document-source` on Linux,
    /// `x-document-source` on Darwin. The store `xds` writes (a sidecar only when asked).
    case xattr = "xattr"
    /// Samba's `streams_xattr` form, left when a Mac or iPad saves onto a Samba share:
    /// `user.DosStream.x-document-source:$DATA`, whose value may end in one extra NUL byte.
    case sambaStream = "samba-stream"
    /// An AppleDouble sidecar `._NAME` next to the file, as macOS writes on filesystems
    /// without extended attributes.
    case appleDouble = "appledouble"
    /// A zip (or `.textpack`) archive member's AppleDouble entry, `__MACOSX/DIR/._NAME` or
    /// `DIR/._NAME`, read without extracting (`XDocSourceArchive`'s `ArchiveScanner`).
    case zip = "zip"
    /// A tar or pax archive member's extended-attribute header (`SCHILY.xattr.…`,
    /// `LIBARCHIVE.xattr.…`) or its `._NAME` AppleDouble entry, read without extracting.
    case tar = "tar"

    /// The store's name as `xds show` prints it: `xattr`, `samba-stream`, `appledouble`,
    /// `zip`, `tar`.
    public var description: String { rawValue }
}
