/// The archive formats `xds` reads members of, chosen by file name (never by sniffing the
/// contents of every file met in a walk).
public enum ArchiveKind: String, Sendable, Hashable, CaseIterable {
    /// A zip archive: `.zip`, and `.textpack` (a zipped TextBundle). Members carry a value in
    /// AppleDouble entries `__MACOSX/DIR/._NAME` or `DIR/._NAME`.
    case zip
    /// A tar, pax or GNU tar archive, plain or compressed: `.tar`, `.tgz`, `.tar.gz`, `.tbz`,
    /// `.tbz2`, `.tar.bz2`, `.txz`, `.tar.xz`, `.tzst`, `.tar.zst`, `.tlz`, `.tar.lzma`,
    /// `.tar.lz`, `.taz`, `.tar.Z`, `.tar.lz4`. The name only says that the file is a tar: the
    /// compression inside is recognised by its magic bytes whatever the name says (a gzip tar
    /// saved as `x.tar` is read), as GNU tar and bsdtar do. Members carry a value in
    /// extended-attribute headers, or in `._NAME` AppleDouble entries (macOS bsdtar).
    case tar

    /// The file name endings of each kind, lower case (`.tar.z` is `.tar.Z`; names compare
    /// case-insensitively), in the order `--help` lists them.
    public static let suffixes: [(suffix: String, kind: ArchiveKind)] = [
        (".zip", .zip), (".textpack", .zip),
        (".tar", .tar), (".tgz", .tar), (".tar.gz", .tar), (".tbz", .tar), (".tbz2", .tar),
        (".tar.bz2", .tar), (".txz", .tar), (".tar.xz", .tar), (".tzst", .tar), (".tar.zst", .tar),
        (".tlz", .tar), (".tar.lzma", .tar), (".tar.lz", .tar), (".taz", .tar), (".tar.z", .tar),
        (".tar.lz4", .tar),
    ]

    /// The kind of archive a file name (or path) names, compared case-insensitively (ASCII), or
    /// nil for any other name. A name that is only a suffix (`.zip`) counts too.
    public init?(fileName: some Collection<UInt8>) {
        // Asked of every file in a walk: most names end in two letters no suffix ends in, and
        // checking that first spares the eighteen comparisons.
        let end = Array(fileName.suffix(2))
        guard end.count == 2, Self.lastPairs.contains(UInt16(end[0] | 0x20) << 8 | UInt16(end[1] | 0x20)) else { return nil }
        guard let found = Self.suffixes.first(where: { Self.hasSuffix(fileName, $0.suffix) }) else { return nil }
        self = found.kind
    }

    /// The last two bytes of each suffix, lower case (`| 0x20` folds an ASCII letter and leaves
    /// digits as they are), as one number.
    private static let lastPairs: Set<UInt16> = Set(suffixes.map {
        let bytes = Array($0.suffix.utf8.suffix(2))
        return UInt16(bytes[0] | 0x20) << 8 | UInt16(bytes[1] | 0x20)
    })

    /// `init(fileName:)` for a name given as text.
    public init?(fileName: String) {
        self.init(fileName: Array(fileName.utf8))
    }

    /// Whether the name is a `.textpack` (a zipped TextBundle, whose `info.json` is captured).
    public static func isTextPack(_ fileName: some Collection<UInt8>) -> Bool {
        hasSuffix(fileName, ".textpack")
    }

    private static func hasSuffix(_ name: some Collection<UInt8>, _ suffix: String) -> Bool {
        let tail = name.suffix(suffix.utf8.count)
        guard tail.count == suffix.utf8.count else { return false }
        // Folding ASCII upper case only: the suffixes are ASCII.
        return Swift.zip(tail, suffix.utf8).allSatisfy { (byte, wanted) in
            (byte >= 65 && byte <= 90 ? byte + 32 : byte) == wanted
        }
    }
}
