import XDocSource
import XDSWalk

/// What `strip --mac-metadata` removes and `check` reports (SPEC §6): the mark kinds, and the
/// words of ``MacMetadata/What`` but ``MacMetadata/What/mark``, chosen by `--only` (all when
/// not given) minus `--keep` (`check --allow`). `zone-file` is kind `zone-identifier` in store
/// zone-file: keeping (or choosing only) the kind keeps (chooses) the files too.
public struct MacMetadataSelection: Sendable, Equatable {
    /// The kinds of marks that go.
    public var kinds: Set<ProvenanceKind>
    /// The Mac metadata that goes (never ``MacMetadata/What/mark``).
    public var whats: Set<MacMetadata.What>

    /// Everything: every kind and every word.
    public static let everything = MacMetadataSelection(
        kinds: Set(ProvenanceKind.allCases), whats: Set(MacMetadata.What.selectable))

    /// The names `check --names-only` looks at on disk, in the order its fix command lists them.
    public static let nameWords: [MacMetadata.What] = [.sidecar, .dsStore, .macOSXFolder, .appleDoubleFolder, .zoneFile]

    /// A selection of these kinds and words.
    public init(kinds: Set<ProvenanceKind>, whats: Set<MacMetadata.What>) {
        self.kinds = kinds
        self.whats = whats.subtracting([.mark])
    }

    /// A word `--keep`, `--only` or `--allow` does not take, or one given to both.
    public enum WordError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A word that is neither a kind nor a selectable word (or `mark`, or empty).
        case unknown(String)
        /// A word given to both `--only` and `--keep`.
        case both(String)

        /// In words, without the option's name.
        public var description: String {
            switch self {
            case .unknown(let word):
                let shown = word.isEmpty ? "an empty word" : "unknown word '\(word)'"
                return "\(shown); the words are \(MacMetadataSelection.wordList)"
            case .both(let word):
                return "\(word) is given to both --only and --keep"
            }
        }
    }

    /// Every word taken, comma-separated: the kinds, then the Mac metadata words.
    public static var wordList: String {
        (ProvenanceKind.allCases.map(\.rawValue) + MacMetadata.What.selectable.map(\.rawValue)).joined(separator: ", ")
    }

    /// The words of `values` (each a comma list), checked: kinds and selectable words.
    public static func words(_ values: [String]) throws(WordError) -> [String] {
        var words: [String] = []
        for value in values {
            for word in value.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                guard ProvenanceKind(name: word) != nil || MacMetadata.What.selectable.contains(where: { $0.rawValue == word })
                else { throw .unknown(word) }
                if !words.contains(word) { words.append(word) }
            }
        }
        return words
    }

    /// The selection of `--only` (every kind and word when empty) minus `--keep`.
    public init(only: [String], keep: [String]) throws(WordError) {
        let onlyWords = try Self.words(only)
        let keptWords = try Self.words(keep)
        if let both = onlyWords.first(where: { keptWords.contains($0) }) { throw .both(both) }
        var selection = onlyWords.isEmpty ? Self.everything : Self.of(onlyWords)
        let kept = Self.of(keptWords)
        selection.kinds.subtract(kept.kinds)
        selection.whats.subtract(kept.whats)
        self = selection
    }

    /// The kinds and words named (a kind `zone-identifier` brings `zone-file` with it).
    private static func of(_ words: [String]) -> MacMetadataSelection {
        var selection = MacMetadataSelection(kinds: [], whats: [])
        for word in words {
            if let kind = ProvenanceKind(name: word) {
                selection.kinds.insert(kind)
                if kind == .zoneIdentifier { selection.whats.insert(.zoneFile) }
            } else if let what = MacMetadata.What(rawValue: word) {
                selection.whats.insert(what)
            }
        }
        return selection
    }

    /// Whether a mark of `kind` goes.
    public func removes(_ kind: ProvenanceKind) -> Bool { kinds.contains(kind) }

    /// Whether Mac metadata of `what` goes (a mark: whether any kind does).
    public func removes(_ what: MacMetadata.What) -> Bool { what == .mark ? !kinds.isEmpty : whats.contains(what) }

    /// Whether every kind goes (no mark is kept, so no `._` needs reading to know).
    public var removesEveryKind: Bool { kinds.count == ProvenanceKind.allCases.count }
}

/// One thing `check` reports and `strip --mac-metadata -n` lists (SPEC §6): a mark, an Apple
/// attribute, or a file, folder, entry or pax record that is Mac metadata. Both print it as
/// `PATH: WHAT…` (``path``); `check --json`'s keys are the properties'.
public struct MacMetadataFinding: Sendable, Equatable {
    /// The file or folder on disk, or the archive (for a member), exact bytes.
    public let file: TreePath
    /// The member inside ``file`` (an archive), exact bytes: as `where` names it for a mark or
    /// an attribute, the entry's own name for an entry.
    public let member: TreePath?
    /// What it is.
    public let what: MacMetadata.What
    /// For a mark, its kind.
    public let kind: ProvenanceKind?
    /// For a mark, its store.
    public let store: ProvenanceStore?
    /// For an attribute or pax record, its name (the attribute as listed, the pax keyword).
    public let name: String?

    /// Creates one.
    public init(file: TreePath, member: TreePath? = nil, what: MacMetadata.What,
                kind: ProvenanceKind? = nil, store: ProvenanceStore? = nil, name: String? = nil) {
        self.file = file
        self.member = member
        self.what = what
        self.kind = kind
        self.store = store
        self.name = name
    }

    /// The path a line names: ``file``, or `ARCHIVE!/MEMBER`.
    public var path: TreePath {
        guard let member else { return file }
        return TreePath(bytes: file.bytes + Array("!/".utf8) + member.bytes)
    }

    /// The word the last line of `check` counts it under: its kind, else its ``what``.
    public var countWord: String { kind?.rawValue ?? what.rawValue }

    /// Whether it is inside an archive.
    public var isInArchive: Bool { member != nil }
}

/// A `__MACOSX` or `.AppleDouble` folder that `strip --mac-metadata` does not remove because
/// something in it is kept (SPEC §6: "removed when everything in them goes, otherwise their
/// Mac files go and the folder is reported"): the strip names it, and why, on standard error.
/// Not a finding: `check` does not report it.
public struct MacMetadataFolderStay: Sendable, Equatable {
    /// Why the folder stays.
    public enum Reason: Sendable, Equatable {
        /// Sidecars are kept (`--keep sidecar`) and it holds one: a `._NAME` file in
        /// `__MACOSX`, any file in `.AppleDouble` (Netatalk's AppleDouble files).
        case keptSidecars
        /// A `._NAME` file in it holds a mark of a kind kept: rewritten to hold only that.
        case keptMark
    }

    /// The folder, exact bytes.
    public let folder: TreePath
    /// ``MacMetadata/What/macOSXFolder`` or ``MacMetadata/What/appleDoubleFolder``.
    public let what: MacMetadata.What
    /// Why it stays.
    public let reason: Reason

    /// Creates one.
    public init(folder: TreePath, what: MacMetadata.What, reason: Reason) {
        self.folder = folder
        self.what = what
        self.reason = reason
    }
}
