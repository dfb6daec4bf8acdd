import XDocSource
import XDocSourceArchive

/// Every mark of where a file came from carried by the members of one zip or tar archive, read
/// without extracting (SPEC §6, stores `zip` and `tar`): what `xds where ARCHIVE` lists.
///
/// ```swift
/// let archive = ProvenanceArchive(path: "release.tar.gz")!
/// try archive.scan { event in
///     if case .member(let member) = event {
///         for mark in member.marks { print(member.name, mark.kind, mark.store) }
///     }
///     return .proceed
/// }
/// ```
///
/// Marks are found where `xds show ARCHIVE` finds `x-document-source`, under the same bounds
/// (`ArchiveScanner`, `ArchiveScanner/Limits`): a tar member's extended-attribute header (pax
/// `SCHILY.xattr.NAME` and `LIBARCHIVE.xattr.NAME`, NAME as a Mac writes it or with Linux's
/// `user.`), and AppleDouble entries (`__MACOSX/DIR/._NAME`, `DIR/._NAME`) in zips and tars.
/// Names are matched by ``ProvenanceNames`` only. A member is named as `show` names it,
/// `ARCHIVE!/MEMBER`; a `._NAME` entry whose NAME is not in the archive is still listed under
/// NAME. Each member has at most one mark per kind (its store is the archive's): the entries
/// that follow one another for one member (macOS bsdtar's `._NAME` entry then NAME with its
/// header) make one record, the first value of a kind winning and xdg fields gathered into one
/// mark. Nothing is kept across members, so memory stays flat in the member count.
public struct ProvenanceArchive: Sendable {
    /// One member and its marks.
    public struct Member: Sendable, Equatable {
        /// The member's name, exact bytes as the archive stores them (`DIR/NAME` for a
        /// `__MACOSX/DIR/._NAME` or `DIR/._NAME` entry).
        public let name: DocumentSourceTreePath
        /// The marks, in ``ProvenanceKind`` order (the order of ``ProvenanceNames/table``),
        /// with where each was read.
        public let found: [Found]

        /// Creates a record.
        public init(name: DocumentSourceTreePath, found: [Found]) {
            self.name = name
            self.found = found
        }

        /// The marks alone, in order. A mark's ``ProvenanceMark/names`` are the attribute names
        /// as stored (`user.com.apple.quarantine` in a tar from Linux, `com.apple.quarantine` in
        /// an AppleDouble entry or a tar from a Mac).
        public var marks: [ProvenanceMark] { found.map(\.mark) }

        /// The name `xds show` gives the member: `ARCHIVE!/MEMBER`, exact bytes.
        public func path(in archive: DocumentSourceTreePath) -> DocumentSourceTreePath {
            DocumentSourceTreePath(bytes: archive.bytes + Array("!/".utf8) + name.bytes)
        }
    }

    /// A mark and the archive entry it was read from.
    public struct Found: Sendable, Equatable {
        /// The mark; its store is ``ProvenanceStore/zip`` or ``ProvenanceStore/tar``.
        public let mark: ProvenanceMark
        /// The entry that held it, exact bytes: the `._NAME` entry, or the member itself for a
        /// tar extended-attribute header (for an xdg mark gathered from both: the first).
        public let entry: DocumentSourceTreePath
        /// Whether it came from a pax header or an AppleDouble entry (as ``entry``).
        public let origin: ArchiveAttributeOrigin

        /// Creates a record.
        public init(mark: ProvenanceMark, entry: DocumentSourceTreePath, origin: ArchiveAttributeOrigin) {
            self.mark = mark
            self.entry = entry
            self.origin = origin
        }
    }

    /// What a scan reports, in archive order.
    public enum Event: Sendable {
        /// A member with at least one mark.
        case member(Member)
        /// Something wrong with one member or entry (the scan goes on), a value over its bound,
        /// or the entry bound reached: bad data (SPEC §5: 65).
        case problem(ArchiveProblem)
    }

    /// The archive's path, exact bytes.
    public let path: DocumentSourceTreePath
    /// The bounds, as `show`'s (`--archive-limit`).
    public var limits: ArchiveScanner.Limits

    /// The marks of the archive at `path`, or nil when its name is not an archive's
    /// (`ArchiveKind(fileName:)`).
    public init?(path: DocumentSourceTreePath, limits: ArchiveScanner.Limits = ArchiveScanner.Limits()) {
        guard ArchiveKind(fileName: path.bytes) != nil else { return nil }
        self.path = path
        self.limits = limits
    }

    /// ``init(path:limits:)`` for a path given as text.
    public init?(path: String, limits: ArchiveScanner.Limits = ArchiveScanner.Limits()) {
        self.init(path: DocumentSourceTreePath(path), limits: limits)
    }

    /// Reads every header, calling `visit` with each member that carries a mark and each
    /// problem, as they are found (on the calling thread), until the end, the entry bound, or
    /// `DocumentSourceTree/Decision/stop`.
    ///
    /// - Returns: the scan's counts; ``ArchiveScanner/Summary/tagged`` counts the members
    ///   reported.
    /// - Throws: `ArchiveError` as `ArchiveScanner/scan(_:)` (missing 66, unreadable 74,
    ///   damaged or over the archive limit 65); members found before the damage stay reported.
    @discardableResult
    public func scan(_ visit: (Event) -> DocumentSourceTree.Decision) throws(ArchiveError) -> ArchiveScanner.Summary {
        guard let scanner = ArchiveScanner(path: path, limits: limits) else { return ArchiveScanner.Summary() }
        var gathering = MemberMarks(store: scanner.kind == .zip ? .zip : .tar)
        var reported = 0
        var stopped = false
        func flush() -> DocumentSourceTree.Decision {
            guard let member = gathering.take() else { return .proceed }
            reported += 1
            let decision = visit(.member(member))
            if decision == .stop { stopped = true }
            return decision
        }
        var summary: ArchiveScanner.Summary
        do throws(ArchiveError) {
            summary = try scanner.scanAttributes(named: Self.isMark) { event in
                switch event {
                case .attributes(let record):
                    if !gathering.isGathering(record.name), flush() == .stop { return .stop }
                    gathering.add(record)
                    return .proceed
                case .problem(let problem):
                    if flush() == .stop { return .stop }
                    return visit(.problem(problem))
                }
            }
        } catch {
            if !stopped { _ = flush() }
            throw error
        }
        if !stopped { _ = flush() }
        summary.tagged = reported
        if stopped { summary.stopped = true }
        return summary
    }

    /// Whether an attribute of a member is a mark, by the one name table: a pax header's name
    /// as its keyword (`SCHILY.xattr.` + name) says, an AppleDouble entry's as a plain name.
    static func isMark(_ origin: ArchiveAttributeOrigin, _ name: [UInt8]) -> Bool {
        match(origin, name) != nil
    }

    static func match(_ origin: ArchiveAttributeOrigin, _ name: [UInt8]) -> ProvenanceNames.Match? {
        switch origin {
        case .paxHeader: ProvenanceNames.match(paxKeyword: schilyPrefix + name)
        case .appleDouble: ProvenanceNames.match(plainName: name)
        }
    }

    private static let schilyPrefix = Array("SCHILY.xattr.".utf8)
}

/// The marks of one member, gathered from the entries that follow one another for it.
struct MemberMarks {
    let store: ProvenanceStore
    private var name: DocumentSourceTreePath?
    /// Per kind (not xdg): the first value, its attribute name and entry.
    private var values: [ProvenanceKind: (name: [UInt8], value: [UInt8], entry: DocumentSourceTreePath, origin: ArchiveAttributeOrigin)] = [:]
    /// The xdg attributes, in the order found, and the entry of the first.
    private var xdg: [(field: XDGOrigin.Field, name: [UInt8], value: [UInt8])] = []
    private var xdgEntry: (DocumentSourceTreePath, ArchiveAttributeOrigin)?

    init(store: ProvenanceStore) {
        self.store = store
    }

    /// Whether a member is being gathered under `member`'s name.
    func isGathering(_ member: DocumentSourceTreePath) -> Bool {
        name == member
    }

    mutating func add(_ record: ArchiveMemberAttributes) {
        name = record.name
        for attribute in record.attributes {
            guard let match = ProvenanceArchive.match(record.origin, attribute.name) else { continue }
            if match.kind == .xdg, let field = match.field {
                if xdgEntry == nil { xdgEntry = (record.entry, record.origin) }
                xdg.append((field, attribute.name, attribute.value))
            } else if values[match.kind] == nil {
                values[match.kind] = (attribute.name, attribute.value, record.entry, record.origin)
            }
        }
    }

    /// The member gathered, its marks in kind order, and a fresh start; nil when none.
    mutating func take() -> ProvenanceArchive.Member? {
        defer { self = MemberMarks(store: store) }
        guard let name, !values.isEmpty || !xdg.isEmpty else { return nil }
        var found: [ProvenanceArchive.Found] = []
        for kind in ProvenanceKind.allCases {
            if kind == .xdg, let (entry, origin) = xdgEntry {
                let content = ProvenanceDecoding.decodeXDG(xdg.map { ($0.field, $0.value) })
                var names: [String] = []
                for name in xdg.map({ Self.text($0.name) }) where !names.contains(name) { names.append(name) }
                let mark = ProvenanceMark(kind: .xdg, store: store, names: names, content: content)
                found.append(ProvenanceArchive.Found(mark: mark, entry: entry, origin: origin))
            } else if let value = values[kind] {
                let content = ProvenanceDecoding.decode(kind: kind, bytes: value.value)
                let mark = ProvenanceMark(kind: kind, store: store, names: [Self.text(value.name)], content: content)
                found.append(ProvenanceArchive.Found(mark: mark, entry: value.entry, origin: value.origin))
            }
        }
        return ProvenanceArchive.Member(name: name, found: found)
    }

    /// A name as text (lossy for bytes that are not UTF-8: a label, escaped when printed).
    private static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
