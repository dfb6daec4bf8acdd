import XDocSource
import XDocSourceArchive
import XDSWalk

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
/// `SCHILY.xattr.NAME` and `LIBARCHIVE.xattr.NAME`, NAME as a Mac writes it, with Linux's
/// `user.`, or a Samba stream's `user.DosStream.NAME:$DATA` as `tar --xattrs` of a
/// `streams_xattr` share writes it), and AppleDouble entries (`__MACOSX/DIR/._NAME`,
/// `DIR/._NAME`) in zips and tars. Names are matched by ``ProvenanceNames`` only. A member is
/// named as `show` names it, `ARCHIVE!/MEMBER`; a `._NAME` entry whose NAME is not in the
/// archive is still listed under NAME. Each member has one mark per kind (its store is the
/// archive's): the entries that follow one another for one member (macOS bsdtar's `._NAME`
/// entry then NAME with its header) make one record, the first value of a kind winning and xdg
/// fields gathered into one mark. The one exception (SPEC §6): when the two pax spellings of
/// one attribute hold different values, each is a mark named by its keyword, and a
/// `LIBARCHIVE.xattr` value that is not valid base64 is an undecodable mark so named. Values
/// are decoded by ``ProvenanceDecoder``, as every store's. Nothing is kept across members, so
/// memory stays flat in the member count.
public struct ProvenanceArchive: Sendable {
    /// One member and its marks.
    public struct Member: Sendable, Equatable {
        /// The member's name, exact bytes as the archive stores them (`DIR/NAME` for a
        /// `__MACOSX/DIR/._NAME` or `DIR/._NAME` entry).
        public let name: TreePath
        /// The marks, in ``ProvenanceKind`` order (the order of ``ProvenanceNames/table``),
        /// with where each was read.
        public let found: [Found]

        /// Creates a record.
        public init(name: TreePath, found: [Found]) {
            self.name = name
            self.found = found
        }

        /// The marks alone, in order. A mark's ``ProvenanceMark/names`` are the attribute names
        /// as stored (`user.com.apple.quarantine` in a tar from Linux, `com.apple.quarantine` in
        /// an AppleDouble entry or a tar from a Mac).
        public var marks: [ProvenanceMark] { found.map(\.mark) }

        /// The name `xds show` gives the member: `ARCHIVE!/MEMBER`, exact bytes.
        public func path(in archive: TreePath) -> TreePath {
            TreePath(bytes: archive.bytes + Array("!/".utf8) + name.bytes)
        }
    }

    /// A mark and the archive entry it was read from.
    public struct Found: Sendable, Equatable {
        /// The mark; its store is ``ProvenanceStore/zip`` or ``ProvenanceStore/tar``.
        public let mark: ProvenanceMark
        /// The entry that held it, exact bytes: the `._NAME` entry, or the member itself for a
        /// tar extended-attribute header (for an xdg mark gathered from both: the first).
        public let entry: TreePath
        /// Whether it came from a pax header or an AppleDouble entry (as ``entry``).
        public let origin: ArchiveAttributeOrigin

        /// Creates a record.
        public init(mark: ProvenanceMark, entry: TreePath, origin: ArchiveAttributeOrigin) {
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
    public let path: TreePath
    /// The bounds, as `show`'s (`--archive-limit`).
    public var limits: ArchiveScanner.Limits

    /// The marks of the archive at `path`, or nil when its name is not an archive's
    /// (`ArchiveKind(fileName:)`).
    public init?(path: TreePath, limits: ArchiveScanner.Limits = ArchiveScanner.Limits()) {
        guard ArchiveKind(fileName: path.bytes) != nil else { return nil }
        self.path = path
        self.limits = limits
    }

    /// ``init(path:limits:)`` for a path given as text.
    public init?(path: String, limits: ArchiveScanner.Limits = ArchiveScanner.Limits()) {
        self.init(path: TreePath(path), limits: limits)
    }

    /// Reads every header, calling `visit` with each member that carries a mark and each
    /// problem, as they are found (on the calling thread), until the end, the entry bound, or
    /// `FileTree/Decision/stop`.
    ///
    /// - Returns: the scan's counts; `ArchiveScanner.Summary.tagged` counts the members
    ///   reported.
    /// - Throws: `ArchiveError` as `ArchiveScanner/scan(_:)` (missing 66, unreadable 74,
    ///   damaged or over the archive limit 65); members found before the damage stay reported.
    @discardableResult
    public func scan(_ visit: (Event) -> FileTree.Decision) throws(ArchiveError) -> ArchiveScanner.Summary {
        guard let scanner = ArchiveScanner(path: path, limits: limits) else { return ArchiveScanner.Summary() }
        var gathering = MemberMarks(store: scanner.kind == .zip ? .zip : .tar)
        var reported = 0
        var stopped = false
        func flush() -> FileTree.Decision {
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
        // The table's allocation-free prefilter first: most other attributes stop there.
        name.withUnsafeBufferPointer { ProvenanceNames.mayMatch(attributeName: $0) } && match(origin, name) != nil
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
    private var name: TreePath?
    /// The values kept, in the order found, with the entry each came from: the first of each
    /// kind, and every xdg attribute (one of each name), which make one mark.
    private var values: [(value: ProvenanceValue, entry: TreePath, origin: ArchiveAttributeOrigin)] = []
    /// The values shown apart, each named by its pax keyword (SPEC §6): the spellings of one
    /// attribute that disagree (`LIBARCHIVE.xattr.` and `SCHILY.xattr.`: neither can be taken
    /// for the other, and an extractor may set either), and a value whose spelling does not
    /// decode. `group` gathers xdg values into one mark per spelling; one that does not decode
    /// has a group of its own.
    private var apart: [(value: ProvenanceValue, entry: TreePath, origin: ArchiveAttributeOrigin, group: Int)] = []

    init(store: ProvenanceStore) {
        self.store = store
    }

    /// Whether a member is being gathered under `member`'s name.
    func isGathering(_ member: TreePath) -> Bool {
        name == member
    }

    mutating func add(_ record: ArchiveMemberAttributes) {
        name = record.name
        var matched: [(attribute: ArchiveAttribute, name: [UInt8], match: ProvenanceNames.Match)] = []
        var spellings: [[UInt8]: Int] = [:]
        for attribute in record.attributes {
            guard let (name, match) = Self.match(record.origin, attribute) else { continue }
            matched.append((attribute, name, match))
            spellings[name, default: 0] += 1
        }
        for (attribute, name, match) in matched {
            // The reader reports one spelling of equal values: two of one name disagree.
            if let keyword = attribute.keyword, attribute.valueIsNotBase64 || spellings[name, default: 0] > 1 {
                let value = ProvenanceValue(name: String(decoding: keyword, as: UTF8.self), match: match, bytes: attribute.value,
                                            encodingError: attribute.valueIsNotBase64 ? "not valid base64" : nil)
                let group = attribute.valueIsNotBase64 ? 2 + apart.count : (keyword.starts(with: Self.libarchivePrefix) ? 1 : 0)
                apart.append((value, record.entry, record.origin, group))
                continue
            }
            let text = String(decoding: attribute.name, as: UTF8.self)  // lossy: a label, escaped when printed
            let kept = match.kind == .xdg
                ? values.contains { $0.value.match.kind == .xdg && $0.value.name == text }
                : values.contains { $0.value.match.kind == match.kind }
            guard !kept else { continue }
            values.append((ProvenanceValue(name: text, match: match, bytes: attribute.value), record.entry, record.origin))
        }
    }

    /// An attribute's name (a pax one URL-decoded: two spellings give one) and kind.
    private static func match(_ origin: ArchiveAttributeOrigin, _ attribute: ArchiveAttribute) -> ([UInt8], ProvenanceNames.Match)? {
        if let keyword = attribute.keyword { return ProvenanceNames.paxAttribute(keyword) }
        return ProvenanceArchive.match(origin, attribute.name).map { (attribute.name, $0) }
    }

    private static let libarchivePrefix = Array("LIBARCHIVE.xattr.".utf8)

    /// The member gathered, its marks decoded as every store's (``ProvenanceDecoder``, in
    /// ``ProvenanceNames/table`` order; the values shown apart after the others of their
    /// kind, in the order found), and a fresh start; nil when none.
    mutating func take() -> ProvenanceArchive.Member? {
        defer { self = MemberMarks(store: store) }
        guard let name, !values.isEmpty || !apart.isEmpty else { return nil }
        var found: [ProvenanceArchive.Found] = []
        if !values.isEmpty {
            found = ProvenanceDecoder.marks(store: store, values: values.map(\.value)).map { mark in
                // The entry of the mark's first value (for xdg, of the first field found).
                let source = values.first { $0.value.match.kind == mark.kind } ?? values[0]
                return ProvenanceArchive.Found(mark: mark, entry: source.entry, origin: source.origin)
            }
        }
        var groups: [Int] = []
        for item in apart where !groups.contains(item.group) { groups.append(item.group) }
        for group in groups {
            let members = apart.filter { $0.group == group }
            for mark in ProvenanceDecoder.marks(store: store, values: members.map(\.value)) {
                let source = members.first { $0.value.match.kind == mark.kind } ?? members[0]
                found.append(ProvenanceArchive.Found(mark: mark, entry: source.entry, origin: source.origin))
            }
        }
        let order = { (kind: ProvenanceKind) in ProvenanceNames.table.firstIndex { $0.kind == kind } ?? 0 }
        found = found.enumerated().sorted { (order($0.element.mark.kind), $0.offset) < (order($1.element.mark.kind), $1.offset) }.map(\.element)
        return ProvenanceArchive.Member(name: name, found: found)
    }
}
