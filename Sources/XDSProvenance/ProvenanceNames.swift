internal import XDSSystem

/// The one table of the names marks go by, and how each road spells them (SPEC §6): the plain
/// names macOS, Windows and Linux give them, Linux's `user.` and HFS+'s `osx.` prefixes,
/// Netatalk's `user.com.apple.…`, Samba's `user.DosStream.NAME:$DATA` with U+F022 for `:`,
/// AppleDouble entry names, tar pax keywords (`SCHILY.xattr.NAME`, `LIBARCHIVE.xattr.NAME`,
/// NAME any of these, URL-encoded or not) and Explorer's `NAME:Zone.Identifier` files. Every reader, stripper and
/// archive cleaner asks here; nothing else knows a name.
public enum ProvenanceNames {
    /// What a name is: its kind, and for ``ProvenanceKind/xdg`` which field.
    public struct Match: Sendable, Hashable {
        /// The convention.
        public let kind: ProvenanceKind
        /// For ``ProvenanceKind/xdg``: the field the attribute holds.
        public let field: XDGOrigin.Field?
        /// Whether the name was Samba's stream form (`user.DosStream.…`): the store is then
        /// ``ProvenanceStore/sambaStream`` and the value ends in one NUL that is not part of it.
        public let isSambaStream: Bool

        /// Creates one.
        public init(kind: ProvenanceKind, field: XDGOrigin.Field?, isSambaStream: Bool) {
            self.kind = kind
            self.field = field
            self.isSambaStream = isSambaStream
        }
    }

    /// The names as their own system gives them (no Linux prefix but the freedesktop ones,
    /// which are `user.` names everywhere), with their kind and field.
    public static let table: [(name: String, kind: ProvenanceKind, field: XDGOrigin.Field?)] = [
        ("x-document-source", .xDocumentSource, nil),
        ("com.apple.quarantine", .quarantine, nil),
        ("com.apple.metadata:kMDItemWhereFroms", .whereFroms, nil),
        ("com.apple.metadata:kMDItemDownloadedDate", .downloadedDate, nil),
        ("com.apple.lastuseddate#PS", .lastUsedDate, nil),
        ("com.apple.provenance", .macOSProvenance, nil),
        ("user.xdg.origin.url", .xdg, .url),
        ("user.xdg.referrer.url", .xdg, .referrer),
        ("user.xdg.origin.email.subject", .xdg, .emailSubject),
        ("user.xdg.origin.email.from", .xdg, .emailFrom),
        ("user.xdg.origin.email.sender", .xdg, .emailSender),
        ("user.xdg.origin.email.message-id", .xdg, .emailMessageID),
        ("user.xdg.publisher", .xdg, .publisher),
        ("user.creator", .xdg, .creator),
        ("Zone.Identifier", .zoneIdentifier, nil),
    ]

    /// The byte sequence Samba's `fruit:encoding = private` (its default) puts for `:` in a
    /// stream name: U+F022 in UTF-8.
    public static let sambaColon: [UInt8] = [0xEF, 0x80, 0xA2]

    /// The suffix of Explorer's stream files, `NAME:Zone.Identifier`.
    public static let zoneFileSuffix: [UInt8] = Array(":Zone.Identifier".utf8)

    /// The table's names as bytes, in table order.
    private static let tableNames: [[UInt8]] = table.map { Array($0.name.utf8) }

    /// The kind of a plain name (as on the Mac, in an AppleDouble entry, or as Windows names a
    /// stream), trying the freedesktop `user.` names as they are; `Zone.Identifier` in any
    /// ASCII case (Windows stream names are not case-sensitive).
    public static func match(plainName name: some Collection<UInt8>) -> Match? {
        if let found = name.withContiguousStorageIfAvailable({ match(plain: $0) }) { return found }
        return Array(name).withUnsafeBufferPointer { match(plain: $0) }
    }

    /// The kind of an extended attribute as `listxattr` names it: on Linux with its namespace
    /// (`user.com.apple.quarantine` as Netatalk keeps it, `user.x-document-source`,
    /// `user.xdg.origin.url`, `user.Zone.Identifier` from ntfs-3g, `osx.com.apple.…` from an
    /// HFS+ disk, `user.DosStream.NAME:$DATA` or `user.DosStream.NAME` from Samba with U+F022
    /// or `:` inside NAME); on Darwin the plain names. Nil for every other attribute.
    public static func match(attributeName name: some Collection<UInt8>) -> Match? {
        if let found = name.withContiguousStorageIfAvailable({ match(attribute: $0) }) { return found }
        return Array(name).withUnsafeBufferPointer { match(attribute: $0) }
    }

    /// ``match(plainName:)`` on the bytes in place: the table compared by length, then byte by
    /// byte (a tree walk asks this of every mark's name twice: allocating a copy and hashing it
    /// was an eighth of `where -r`'s work a record, issue 35).
    private static func match(plain bytes: UnsafeBufferPointer<UInt8>) -> Match? {
        for (index, name) in tableNames.enumerated() where name.count == bytes.count {
            if name.withUnsafeBufferPointer({ $0.elementsEqual(bytes) }) {
                return Match(kind: table[index].kind, field: table[index].field, isSambaStream: false)
            }
        }
        if bytes.count == 15, zip(bytes, "zone.identifier".utf8).allSatisfy({ lowercased($0) == $1 }) {
            return Match(kind: .zoneIdentifier, field: nil, isSambaStream: false)
        }
        return nil
    }

    /// ``match(attributeName:)`` on the bytes in place (Samba's stream names aside, no copy).
    private static func match(attribute bytes: UnsafeBufferPointer<UInt8>) -> Match? {
        if let plain = match(plain: bytes) { return plain }
        if let rest = dropping("user.DosStream.", from: bytes) {
            var inner = Array(rest)
            if inner.count > 6, inner.suffix(6).elementsEqual(":$DATA".utf8) { inner.removeLast(6) }
            guard let found = match(plainName: replacingSambaColon(inner)) else { return nil }
            return Match(kind: found.kind, field: found.field, isSambaStream: true)
        }
        for prefix: StaticString in ["user.", "osx."] {
            if let rest = dropping(prefix, from: bytes), let found = match(plain: rest) { return found }
        }
        return nil
    }

    /// Whether `name` may be a mark's attribute name, told without allocating from its last
    /// four bytes (ASCII case ignored): false for nearly every other attribute
    /// (`security.selinux`, `user.mime_type`), so a tree walk asks ``match(attributeName:)``
    /// only about the few names that pass. Every name ``match(attributeName:)`` knows passes.
    public static func mayMatch(attributeName name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count >= 4 else { return false }
        var tail: UInt32 = 0
        for byte in name[(name.count - 4)...] { tail = tail << 8 | UInt32(lowercased(byte)) }
        return tails.contains(tail)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte + 32 : byte }

    /// The last four bytes (lowercased) of every table name and of `:$DATA`.
    private static let tails: Set<UInt32> = {
        var set: Set<UInt32> = []
        for name in table.map(\.name) + [":$DATA"] {
            let bytes = Array(name.utf8).suffix(4)
            set.insert(bytes.reduce(UInt32(0)) { $0 << 8 | UInt32(lowercased($1)) })
        }
        return set
    }()

    /// The kind of a tar pax keyword: `SCHILY.xattr.NAME` or `LIBARCHIVE.xattr.NAME`, NAME as
    /// macOS writes it, with `user.` as Linux does, or a Samba stream name
    /// (`user.DosStream.NAME:$DATA`, U+F022 for `:`) as `tar --xattrs` of a `streams_xattr`
    /// share writes it. Nil for every other keyword. (``paxAttribute(_:)`` gives the name too.)
    public static func match(paxKeyword keyword: some Collection<UInt8>) -> Match? {
        paxAttribute(keyword)?.match
    }

    /// The attribute a pax keyword names, URL-decoding undone, and its kind; nil for a keyword
    /// that is no mark. libarchive's writer URL-encodes NAME in both spellings
    /// (archive_write_set_format_pax.c: bytes outside `!`–`~`, `%` and `=`, so U+F022 arrives
    /// as `%EF%80%A2`), GNU tar stores it as it is: a `SCHILY.xattr.` NAME is matched as
    /// stored, then decoded. Two spellings of one attribute give the same name.
    public static func paxAttribute(_ keyword: some Collection<UInt8>) -> (name: [UInt8], match: Match)? {
        let bytes = Array(keyword)
        if let name = dropping("SCHILY.xattr.", from: bytes) {
            let decoded = Hex.percentDecoded(name) ?? name
            guard let found = match(attributeName: name) ?? match(attributeName: decoded) else { return nil }
            return (decoded, found)
        }
        if let encoded = dropping("LIBARCHIVE.xattr.", from: bytes), let name = Hex.percentDecoded(encoded),
           let found = match(attributeName: name) {
            return (name, found)
        }
        return nil
    }

    /// For a file named `NAME:Zone.Identifier`, NAME; else nil. NAME is never empty.
    ///
    /// The spelling is exact, as ``zoneFileName(for:)`` makes it: Explorer writes exactly
    /// `:Zone.Identifier`, and a file name (unlike an NTFS stream name) is case-sensitive here,
    /// so `where NAME` (which opens `NAME:Zone.Identifier`), `where -r` and `strip` all see
    /// the same files; `NAME:zone.identifier` is some other file. (Stream and attribute names,
    /// `user.Zone.Identifier` from ntfs-3g, stay matched in any case: NTFS keeps one stream
    /// whatever the case it is asked for.)
    public static func zoneFileOwner(_ fileName: some Collection<UInt8>) -> [UInt8]? {
        let bytes = Array(fileName)
        let suffix = zoneFileSuffix
        guard bytes.count > suffix.count, bytes.suffix(suffix.count).elementsEqual(suffix) else { return nil }
        return Array(bytes.prefix(bytes.count - suffix.count))
    }

    /// The file name of `name`'s zone file: `NAME:Zone.Identifier`.
    public static func zoneFileName(for name: some Collection<UInt8>) -> [UInt8] {
        Array(name) + zoneFileSuffix
    }

    /// The value without the NUL byte a store adds (SPEC §6): Samba's streams end in one NUL
    /// that is not part of the value; for the fixed-size kind (``ProvenanceKind/lastUsedDate``,
    /// 16 bytes) only a 17-byte value loses it. Other stores' values are returned as they are.
    public static func storedValue<C: BidirectionalCollection<UInt8>>(_ value: C, kind: ProvenanceKind, isSambaStream: Bool) -> C.SubSequence {
        guard isSambaStream, value.last == 0 else { return value[...] }
        if kind == .lastUsedDate && value.count != 17 { return value[...] }
        return value.dropLast()
    }

    private static func dropping(_ prefix: String, from bytes: [UInt8]) -> [UInt8]? {
        let prefixBytes = Array(prefix.utf8)
        guard bytes.count > prefixBytes.count, bytes.prefix(prefixBytes.count).elementsEqual(prefixBytes) else { return nil }
        return Array(bytes.dropFirst(prefixBytes.count))
    }

    /// `bytes` after `prefix`, in place; nil when they do not start with it or are nothing more.
    private static func dropping(_ prefix: StaticString, from bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        let prefixBytes = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        guard bytes.count > prefixBytes.count, bytes.prefix(prefixBytes.count).elementsEqual(prefixBytes) else { return nil }
        return UnsafeBufferPointer(rebasing: bytes[prefixBytes.count...])
    }

    private static func replacingSambaColon(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= 3 else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if index + 3 <= bytes.count, bytes[index] == 0xEF, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA2 {
                out.append(UInt8(ascii: ":"))
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }
}
