internal import XDSSystem

/// The closed list of Mac metadata (SPEC §6 "Before publishing"): what `xds check` reports and
/// `xds strip --mac-metadata` removes besides the marks, as ONE table beside ``ProvenanceNames``
/// (which names the marks; an attribute that is a mark is a mark only, never Mac metadata).
///
/// In the list:
/// - every attribute named `com.apple.*` that is not a mark, whatever its prefix (`user.`,
///   `osx.`) and store (attribute, Samba stream, AppleDouble entry, pax record): the *Apple
///   attributes*;
/// - Samba's `AFP_AfpInfo` and `AFP_Resource` streams (vfs_fruit(8): `fruit:metadata = stream`,
///   `fruit:resource = stream`), stored by `streams_xattr` as `user.DosStream.AFP_AfpInfo:$DATA`;
/// - Netatalk's `user.org.netatalk.Metadata` and `user.org.netatalk.ResourceFork` (Netatalk 3's
///   `ea = sys` and vfs_fruit's `fruit:metadata = netatalk`, `fruit:resource = xattr`);
/// - AppleDouble `._NAME` files and entries, whatever they hold; Netatalk 2's `.AppleDouble/`
///   folders; the `__MACOSX/` folder macOS Archive Utility writes into zips; Finder's `.DS_Store`;
///   Explorer's `NAME:Zone.Identifier` files (the zone-identifier kind in store zone-file);
/// - in tars, the pax keywords macOS bsdtar (libarchive) writes and GNU tar 1.34 does not read
///   (GNU tar manual, "Extended Header Keywords"): `LIBARCHIVE.creationtime`,
///   `LIBARCHIVE.symlinktype`, `SCHILY.fflags`, `SCHILY.dev`, `SCHILY.ino`, `SCHILY.nlink`; and
///   `LIBARCHIVE.xattr.NAME` of any other attribute, rewritten as `SCHILY.xattr.NAME`.
///
/// Out (Spotlight and Finder's volume-level folders, and the custom-icon file, are no part of
/// a published tree's content and are left to their owners): ``notMacMetadata``.
public enum MacMetadata {
    /// What a finding is: the words `xds check --json` prints as `what` and
    /// `--keep`/`--only`/`--allow` take (all but ``mark``).
    public enum What: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// A mark of where a file came from (SPEC §6 kinds); selected by its kind.
        case mark = "mark"
        /// An AppleDouble `._NAME` file or archive entry.
        case sidecar = "sidecar"
        /// Explorer's `NAME:Zone.Identifier` file (kind zone-identifier, store zone-file).
        case zoneFile = "zone-file"
        /// Finder's `.DS_Store`.
        case dsStore = "ds-store"
        /// A `__MACOSX` folder (or the `__MACOSX/` entries of a zip).
        case macOSXFolder = "macosx-folder"
        /// Netatalk 2's `.AppleDouble` folder.
        case appleDoubleFolder = "appledouble-folder"
        /// An Apple attribute that is not a mark, Samba's `AFP_*` streams, Netatalk's attributes.
        case appleAttribute = "apple-attribute"
        /// A tar pax record GNU tar does not read (or a `LIBARCHIVE.xattr.` one rewritten).
        case paxRecord = "pax-record"

        /// The word as printed and taken.
        public var description: String { rawValue }

        /// The words `--keep`, `--only` and `--allow` take besides the kinds: all but ``mark``.
        public static var selectable: [What] { allCases.filter { $0 != .mark } }
    }

    /// How an entry of ``table`` matches.
    public enum Rule: Sendable, Hashable {
        /// An attribute whose name, without its road's prefix (`user.`, `osx.`, Samba's
        /// `user.DosStream.…:$DATA`), starts with the pattern (`com.apple.`).
        case attributePrefix
        /// A Samba stream named exactly the pattern (`user.DosStream.PATTERN:$DATA`).
        case sambaStream
        /// An attribute named exactly the pattern, as `listxattr` gives it.
        case attribute
        /// A file or archive entry whose name starts with the pattern (`._`), longer than it.
        case fileNamePrefix
        /// A file whose name ends with the pattern (`:Zone.Identifier`), longer than it.
        case fileNameSuffix
        /// A file or folder named exactly the pattern.
        case fileName
        /// A pax keyword exactly the pattern.
        case paxKeyword
        /// A pax keyword starting with the pattern.
        case paxKeywordPrefix
    }

    /// The closed list, one row per name or pattern: what it is, and the primary source that
    /// says who writes it.
    public static let table: [(pattern: String, rule: Rule, what: What, source: String)] = [
        ("com.apple.", .attributePrefix, .appleAttribute, "macOS extended attributes"),
        ("AFP_AfpInfo", .sambaStream, .appleAttribute, "Samba vfs_fruit(8) fruit:metadata = stream"),
        ("AFP_Resource", .sambaStream, .appleAttribute, "Samba vfs_fruit(8) fruit:resource = stream"),
        ("user.org.netatalk.Metadata", .attribute, .appleAttribute, "Netatalk 3 ea = sys; vfs_fruit fruit:metadata = netatalk"),
        ("user.org.netatalk.ResourceFork", .attribute, .appleAttribute, "Netatalk 3; vfs_fruit fruit:resource = xattr"),
        ("._", .fileNamePrefix, .sidecar, "AppleDouble (RFC 1740), written by macOS on foreign filesystems"),
        (":Zone.Identifier", .fileNameSuffix, .zoneFile, "Windows Explorer on WSL and NFS folders"),
        (".DS_Store", .fileName, .dsStore, "macOS Finder"),
        ("__MACOSX", .fileName, .macOSXFolder, "macOS Archive Utility zips"),
        (".AppleDouble", .fileName, .appleDoubleFolder, "Netatalk 2 adouble:v2"),
        ("LIBARCHIVE.creationtime", .paxKeyword, .paxRecord, "macOS bsdtar; not read by GNU tar"),
        ("LIBARCHIVE.symlinktype", .paxKeyword, .paxRecord, "macOS bsdtar; not read by GNU tar"),
        ("SCHILY.fflags", .paxKeyword, .paxRecord, "macOS bsdtar; GNU tar 1.34 warns"),
        ("SCHILY.dev", .paxKeyword, .paxRecord, "macOS bsdtar; GNU tar 1.34 warns"),
        ("SCHILY.ino", .paxKeyword, .paxRecord, "macOS bsdtar; GNU tar 1.34 warns"),
        ("SCHILY.nlink", .paxKeyword, .paxRecord, "macOS bsdtar; GNU tar 1.34 warns"),
        ("LIBARCHIVE.xattr.", .paxKeywordPrefix, .paxRecord, "bsdtar's spelling, rewritten as SCHILY.xattr."),
    ]

    /// Names that look like Mac metadata but are out of the list: left alone.
    public static let notMacMetadata: [String] = [".Spotlight-V100", ".Trashes", ".fseventsd", ".TemporaryItems", "Icon\r"]

    // MARK: - Attributes

    private static let applePrefix = Array("com.apple.".utf8)
    private static let sambaPrefix = Array("user.DosStream.".utf8)
    private static let dataSuffix = Array(":$DATA".utf8)
    private static let exactAttributes: Set<[UInt8]> = Set(table.filter { $0.rule == .attribute }.map { Array($0.pattern.utf8) })
    private static let sambaStreams: Set<[UInt8]> = Set(table.filter { $0.rule == .sambaStream }.map { Array($0.pattern.utf8) })

    /// Whether `name` (as `listxattr` gives it) may be Mac metadata, told without allocating:
    /// true for every name ``isAppleAttribute(attributeName:)`` accepts (and a few more), false
    /// for nearly every other (`security.selinux`, `user.mime_type`).
    public static func mayBeAppleAttribute(attributeName name: UnsafeBufferPointer<UInt8>) -> Bool {
        func has(_ pattern: [UInt8], at offset: Int) -> Bool {
            guard name.count >= offset + pattern.count else { return false }
            for index in 0..<pattern.count where name[offset + index] != pattern[index] { return false }
            return true
        }
        // Plain (Darwin), osx., user., user.DosStream.: com.apple. at 0, 4, 5 or 15.
        if has(applePrefix, at: 0) || has(applePrefix, at: 4) || has(applePrefix, at: 5) || has(applePrefix, at: 15) {
            return true
        }
        guard name.count > 5, name[0] == UInt8(ascii: "u") else { return false }
        return has(netatalkPrefix, at: 0) || has(sambaAFPPrefix, at: 0)
    }

    private static let netatalkPrefix = Array("user.org.netatalk.".utf8)
    private static let sambaAFPPrefix = Array("user.DosStream.AFP_".utf8)

    /// Whether the attribute `name` (as `listxattr` gives it: `user.com.apple.FinderInfo`,
    /// `osx.com.apple.ResourceFork`, `user.DosStream.com.apple.lastuseddate#PS:$DATA` with
    /// U+F022 for `:`, `user.DosStream.AFP_AfpInfo:$DATA`, `user.org.netatalk.Metadata`; plain
    /// names on Darwin) is an Apple attribute: in the list and not a mark.
    public static func isAppleAttribute(attributeName name: some Collection<UInt8>) -> Bool {
        let bytes = Array(name)
        guard ProvenanceNames.match(attributeName: bytes) == nil else { return false }
        if exactAttributes.contains(bytes) { return true }
        if bytes.starts(with: sambaPrefix) {
            var inner = Array(bytes.dropFirst(sambaPrefix.count))
            if inner.count > dataSuffix.count, inner.suffix(dataSuffix.count).elementsEqual(dataSuffix) {
                inner.removeLast(dataSuffix.count)
            }
            return sambaStreams.contains(inner) || isApple(inner)
        }
        for prefix in [Array("user.".utf8), Array("osx.".utf8)] where bytes.starts(with: prefix) {
            if isApple(Array(bytes.dropFirst(prefix.count))) { return true }
        }
        return isApple(bytes)
    }

    /// Whether a plain attribute name (an AppleDouble entry's, a pax `SCHILY.xattr.` NAME as a
    /// Mac writes it) is an Apple attribute: `com.apple.*` and not a mark. A Linux-written
    /// name (`user.com.apple.…`) is told by ``isAppleAttribute(attributeName:)``.
    public static func isAppleAttribute(plainName name: some Collection<UInt8>) -> Bool {
        let bytes = Array(name)
        return ProvenanceNames.match(plainName: bytes) == nil && isApple(bytes)
    }

    private static func isApple(_ bytes: [UInt8]) -> Bool {
        bytes.count > applePrefix.count && bytes.starts(with: applePrefix)
    }

    // MARK: - Names

    /// What a file, link or folder named `name` is by its name alone (`._NAME` sidecar,
    /// `NAME:Zone.Identifier`, `.DS_Store`, `__MACOSX`, `.AppleDouble`), or nil: what
    /// `check --names-only` asks about every entry, and what an archive cleaner asks of an
    /// entry's last component.
    public static func what(fileName name: some Collection<UInt8>) -> What? {
        let bytes = Array(name)
        for (pattern, rule, what) in nameRows {
            switch rule {
            case .fileName where bytes == pattern:
                return what
            case .fileNamePrefix where bytes.count > pattern.count && bytes.starts(with: pattern):
                return what
            case .fileNameSuffix where bytes.count > pattern.count && bytes.suffix(pattern.count).elementsEqual(pattern):
                return what
            default:
                continue
            }
        }
        return nil
    }

    /// The table's name rows, their patterns as bytes.
    private static let nameRows: [(pattern: [UInt8], rule: Rule, what: What)] = table
        .filter { [.fileName, .fileNamePrefix, .fileNameSuffix].contains($0.rule) }
        .map { (Array($0.pattern.utf8), $0.rule, $0.what) }

    /// Whether `name` may be named by ``what(fileName:)``, without allocating: its first byte
    /// is `.` or `_`, or it holds a `:`. A walk asks this of every name.
    public static func mayBeMacName(_ name: some Collection<UInt8>) -> Bool {
        guard let first = name.first else { return false }
        return first == UInt8(ascii: ".") || first == UInt8(ascii: "_") || name.contains(UInt8(ascii: ":"))
    }

    /// What an archive entry named `path` (`DIR/._NAME`, `__MACOSX/DIR/._NAME`, `DIR/.DS_Store`)
    /// is by its name: ``What/macOSXFolder`` for anything under a `__MACOSX/` folder, else
    /// ``what(fileName:)`` of any of its components.
    public static func what(entryPath path: some Collection<UInt8>) -> What? {
        let components = Array(path).split(separator: UInt8(ascii: "/"))
        if components.contains(where: { $0.elementsEqual("__MACOSX".utf8) }) { return .macOSXFolder }
        for component in components.reversed() {
            if let found = what(fileName: component) { return found }
        }
        return nil
    }

    // MARK: - Pax keywords

    private static let paxKeywords: Set<[UInt8]> = Set(table.filter { $0.rule == .paxKeyword }.map { Array($0.pattern.utf8) })
    private static let libarchiveXattr = Array("LIBARCHIVE.xattr.".utf8)

    /// Whether a pax keyword is one of those macOS bsdtar writes and GNU tar does not read
    /// (`LIBARCHIVE.creationtime`, `LIBARCHIVE.symlinktype`, `SCHILY.fflags`, `SCHILY.dev`,
    /// `SCHILY.ino`, `SCHILY.nlink`): a clean copy drops it.
    public static func isMacPaxKeyword(_ keyword: some Collection<UInt8>) -> Bool {
        paxKeywords.contains(Array(keyword))
    }

    /// What a pax keyword is: ``What/mark`` for a mark's attribute (either spelling),
    /// ``What/appleAttribute`` for an Apple attribute's, ``What/paxRecord`` for a keyword of
    /// ``isMacPaxKeyword(_:)`` or a `LIBARCHIVE.xattr.NAME` of any other attribute (rewritten
    /// as `SCHILY.xattr.NAME`); nil for every other keyword (kept as it is).
    public static func what(paxKeyword keyword: some Collection<UInt8>) -> What? {
        let bytes = Array(keyword)
        if ProvenanceNames.match(paxKeyword: bytes) != nil { return .mark }
        if isMacPaxKeyword(bytes) { return .paxRecord }
        if let name = schilyAttributeName(paxKeyword: bytes) {
            if isAppleAttribute(attributeName: name) { return .appleAttribute }
            return bytes.starts(with: libarchiveXattr) ? .paxRecord : nil
        }
        // A `LIBARCHIVE.xattr.` name with a malformed escape: libarchive skips it, GNU tar warns.
        if bytes.count > libarchiveXattr.count, bytes.starts(with: libarchiveXattr) { return .paxRecord }
        return nil
    }

    /// The `SCHILY.xattr.NAME` a `LIBARCHIVE.xattr.NAME` keyword (NAME URL-encoded) is
    /// rewritten as; nil for any other keyword or a malformed escape.
    public static func schilyKeyword(forLibarchive keyword: some Collection<UInt8>) -> [UInt8]? {
        let bytes = Array(keyword)
        guard bytes.count > libarchiveXattr.count, bytes.starts(with: libarchiveXattr),
            let name = Hex.percentDecoded(Array(bytes.dropFirst(libarchiveXattr.count)))
        else { return nil }
        return Array("SCHILY.xattr.".utf8) + name
    }

    /// The attribute name a `SCHILY.xattr.NAME` or `LIBARCHIVE.xattr.NAME` keyword carries
    /// (URL-decoding undone); nil for any other keyword.
    public static func schilyAttributeName(paxKeyword keyword: [UInt8]) -> [UInt8]? {
        let schily = Array("SCHILY.xattr.".utf8)
        if keyword.count > schily.count, keyword.starts(with: schily) { return Array(keyword.dropFirst(schily.count)) }
        return schilyKeyword(forLibarchive: keyword).map { Array($0.dropFirst(schily.count)) }
    }
}
