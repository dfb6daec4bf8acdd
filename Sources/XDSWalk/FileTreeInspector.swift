#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// A reader of the entries a walk meets (``FileTree/walk(inspecting:_:)``): it says which
/// attribute names it wants (``wantsAttribute(named:)``), which files beside an entry belong to
/// it (``companionSuffix``), and reads what it wants of each entry handed to it
/// (``inspect(_:)``), on the worker threads. XDocSource's `x-document-source` reader
/// (`xds show -r`, `remove -r`), XDSProvenance's marks (`where -r`, `strip -r`) and its Mac
/// metadata (`check`) are each one; the walk itself knows no name of any store.
///
/// The walk lists each entry's attributes once (one `listxattr`), asks
/// ``wantsAttribute(named:)`` about each name, and calls ``inspect(_:)`` on the worker thread
/// only for an entry that has a wanted name, an AppleDouble sidecar `._NAME` or a companion
/// (``companionSuffix``) in its folder's listing: an entry with none of these costs the one
/// `listxattr`. The record ``inspect(_:)`` returns reaches the caller's callback as
/// ``FileTree/InspectionEvent/inspected(_:)``, in the order ``FileTree/jobs`` describes.
///
/// Every method may run on several threads at once (one per worker): keep them free of
/// shared mutable state.
public protocol FileTreeInspector: Sendable {
    /// What an inspection finds, sent to the calling thread.
    associatedtype Record: Sendable

    /// Whether an attribute named `name` (as `listxattr` gives it: `user.…` on Linux, exact
    /// bytes) is worth an ``inspect(_:)`` call. Called for the names of every listed entry
    /// until one is wanted, so it should be cheap (no allocation). Default: every name is.
    func wantsAttribute(named name: UnsafeBufferPointer<UInt8>) -> Bool

    /// The suffix that makes a file `NAME` + suffix the companion of NAME (XDSProvenance's
    /// `:Zone.Identifier`, as Windows Explorer leaves `NAME:Zone.Identifier` beside files on WSL
    /// and NFS folders), compared exactly; nil (the default) for none, and then the listing is
    /// not even scanned for them. Such a file, when it is a regular file and NAME is not empty,
    /// is not a document of its own: not counted, not inspected as an entry; its NAME gets it
    /// as ``FileTree/InspectedEntry/companion``, and one whose NAME is not a regular file or
    /// folder in the listing is inspected under its own path as an orphan. For a root, its
    /// folder is asked for that one name.
    ///
    /// The walk does not spell the name itself: the name table is the reader's.
    var companionSuffix: [UInt8]? { get }

    /// Looks at one entry, on the worker thread that listed it (its folder open, its
    /// descriptor valid until this returns), and returns what it found, or nil for nothing
    /// worth reporting.
    ///
    /// - Throws: a ``FileAccessError``, reported as a
    ///   ``FileTree/Problem`` (``FileTree/Problem/Kind/vanished`` for
    ///   ``FileAccessError/Kind/notFound``, else ``FileTree/Problem/Kind/failed``
    ///   with the error, and ``FileTree/Problem/entry`` only when ``failuresNameTheEntry``);
    ///   the walk goes on.
    func inspect(_ entry: FileTree.InspectedEntry) throws(FileAccessError) -> Record?

    /// Whether a failure ``inspect(_:)`` throws names the entry in its problem
    /// (``FileTree/Problem/entry``), so that the caller can still act on it: XDocSource's
    /// reader does (`remove -r` removes a value that does not parse), the marks' readers do
    /// not. Default: false.
    var failuresNameTheEntry: Bool { get }

    /// Whether this inspector may claim entries by name (``claimsEntry(named:)``); false (the
    /// default) spares the walk the question for every name.
    var claimsEntries: Bool { get }

    /// Whether an entry named `name` may be the inspector's whole (``inspect(claimed:)``),
    /// told by the name alone, cheaply: asked of every name of every listing (and of each
    /// root's last component) when ``claimsEntries``. Default: false.
    func claimsEntry(named name: ArraySlice<UInt8>) -> Bool

    /// Looks at an entry ``claimsEntry(named:)`` accepted, before the walk looks at it any
    /// other way (a `._NAME` regular file is still handed over with NAME's entry when this
    /// declines it). Default: declined.
    /// - Throws: a ``FileAccessError``, reported as ``inspect(_:)``'s are (the entry is
    ///   then taken).
    func inspect(claimed entry: FileTree.ClaimedEntry) throws(FileAccessError) -> FileTree.Claim<Record>

    /// Whether folder roots are walked (the default); false: each root is inspected alone, as
    /// a command without `-r` looks at the paths it is given.
    var walksFolders: Bool { get }
}

extension FileTreeInspector {
    /// Every name is wanted.
    public func wantsAttribute(named name: UnsafeBufferPointer<UInt8>) -> Bool { true }
    /// No companions.
    public var companionSuffix: [UInt8]? { nil }
    /// Failures name no entry.
    public var failuresNameTheEntry: Bool { false }
    /// No entry is claimed.
    public var claimsEntries: Bool { false }
    /// No entry is claimed.
    public func claimsEntry(named name: ArraySlice<UInt8>) -> Bool { false }
    /// Declined.
    public func inspect(claimed entry: FileTree.ClaimedEntry) throws(FileAccessError) -> FileTree.Claim<Record> {
        .declined
    }
    /// Folder roots are walked.
    public var walksFolders: Bool { true }
}

extension FileTree {
    /// What a walk with an inspector reports, in the order it finds things.
    public enum InspectionEvent<Record: Sendable>: Sendable {
        /// What ``FileTreeInspector/inspect(_:)`` returned for an entry.
        case inspected(Record)
        /// Something that could not be read, vanished, or was not walked (the walk goes on);
        /// an inspection that threw is one too.
        case problem(Problem)
        /// The counts so far (``Counts/tagged`` counts the records), sent every
        /// ``FileTree/progressInterval`` entries (for a progress line; the last counts are also
        /// what the walk returns).
        case progress(Counts)
    }

    /// Walks every root in order, handing each entry worth looking at to `inspector` on the
    /// worker threads (see ``FileTreeInspector``) and calling `visit` on the calling thread
    /// with the records, problems and progress, until the end or until `visit` returns
    /// ``Decision/stop``. ``Counts/tagged`` counts the records.
    ///
    /// Each root is inspected too (a file root as a file; a folder root before what is in it),
    /// its attributes listed following a symbolic link (it was named on purpose), its sidecar
    /// and companion looked for in its folder.
    /// - Returns: the final counts.
    @discardableResult
    public func walk<Inspector: FileTreeInspector>(
        inspecting inspector: Inspector, _ visit: (InspectionEvent<Inspector.Record>) -> Decision
    ) -> Counts {
        withoutActuallyEscaping(visit) { visit in
            walk(archive: nil, inspecting: inspector, visit)
        }
    }

    /// ``walk(inspecting:_:)``, also handing over every regular file whose name is an
    /// archive's (`ArchiveKind(fileName:)`; a root file too) to `archive`, right after
    /// its inspection, for the caller to scan (`XDocSourceArchive`'s `ArchiveScanner`) or note.
    /// Files are chosen by name from the listing the walk has anyway: no file is opened or
    /// sniffed.
    @discardableResult
    public func walk<Inspector: FileTreeInspector>(
        inspecting inspector: Inspector, archives archive: (TreePath) -> Decision,
        _ visit: (InspectionEvent<Inspector.Record>) -> Decision
    ) -> Counts {
        withoutActuallyEscaping(visit) { visit in
            withoutActuallyEscaping(archive) { archive in
                walk(archive: archive, inspecting: inspector, visit)
            }
        }
    }

    private func walk<Inspector: FileTreeInspector>(
        archive: ((TreePath) -> Decision)?, inspecting inspector: Inspector,
        _ visit: @escaping (InspectionEvent<Inspector.Record>) -> Decision
    ) -> Counts {
        let inspection = TreeInspection(inspector)
        let events: (Event) -> Decision = { event in
            switch event {
            case .problem(let problem): return visit(.problem(problem))
            case .progress(let counts): return visit(.progress(counts))
            }
        }
        let records: (any Sendable) -> Decision = { record in
            // Only the inspector's records travel this way.
            visit(.inspected(record as! Inspector.Record))
        }
        return walk(archive: archive, events, inspection: (inspection, records))
    }

    /// The attribute names of one entry, exactly as the one `listxattr` call returned them
    /// (each name's bytes, without the NUL that ends it in the list).
    public struct AttributeNameList: Sendable, Sequence, Equatable {
        /// The list as the kernel returns it: names each followed by a NUL byte.
        public let bytes: [UInt8]

        /// A list of NUL-ended names (`bytes` as `listxattr` fills its buffer).
        public init(bytes: [UInt8]) { self.bytes = bytes }

        /// Whether there is no name.
        public var isEmpty: Bool { bytes.isEmpty }

        /// Whether `name` (exact bytes) is one of the names.
        public func contains(_ name: ArraySlice<UInt8>) -> Bool {
            // Concrete and by memcmp: a generic comparison across the module boundary cost
            // more than the attribute read itself (callgrind, issue 26).
            name.withUnsafeBufferPointer { wanted in
                bytes.withUnsafeBufferPointer { all in
                    var start = 0
                    while start < all.count {
                        let end = all[start...].firstIndex(of: 0) ?? all.count
                        if end - start == wanted.count
                            && (wanted.isEmpty || memcmp(all.baseAddress! + start, wanted.baseAddress!, wanted.count) == 0)
                        {
                            return true
                        }
                        start = end + 1
                    }
                    return false
                }
            }
        }

        /// Whether `name` (exact bytes) is one of the names.
        public func contains(_ name: [UInt8]) -> Bool { contains(name[...]) }

        /// Whether `name` (its UTF-8 bytes) is one of the names.
        public func contains(_ name: String) -> Bool { contains(Array(name.utf8)[...]) }

        /// The names in list order.
        public func makeIterator() -> Iterator { Iterator(bytes: bytes) }

        /// Walks the names of the list.
        public struct Iterator: IteratorProtocol {
            let bytes: [UInt8]
            var start = 0

            /// The next name (without its NUL), or nil at the end.
            public mutating func next() -> ArraySlice<UInt8>? {
                guard start < bytes.count else { return nil }
                var end = start
                while end < bytes.count && bytes[end] != 0 { end += 1 }
                defer { start = end + 1 }
                return bytes[start..<end]
            }
        }
    }
}
