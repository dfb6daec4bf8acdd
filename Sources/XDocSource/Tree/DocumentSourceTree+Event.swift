extension DocumentSourceTree {
    /// What a walk reports, in the order it finds things.
    public enum Event: Sendable {
        /// A file or folder that carries the attribute in some store.
        case found(Found)
        /// Something that could not be read, vanished, or was not walked (the walk goes on).
        case problem(Problem)
        /// The counts so far, sent every ``DocumentSourceTree/progressInterval`` entries (for a
        /// progress line; the last counts are also what ``DocumentSourceTree/walk(_:)`` returns).
        case progress(Counts)
    }

    /// What the callback wants next.
    public enum Decision: Sendable {
        /// Go on walking.
        case proceed
        /// End the walk now (e.g. standard output is gone); every open folder is closed.
        case stop
    }

    /// A file or folder that carries the attribute, or an orphan AppleDouble sidecar that
    /// holds a value.
    public struct Found: Sendable, Equatable {
        /// The root as given joined with the path below it (`ROOT/a/b.txt`), exact bytes. For
        /// an orphan sidecar (``isOrphanSidecar``), the sidecar's own path `ROOT/a/._b.txt`.
        public let path: DocumentSourceTreePath
        /// Whether it is a folder.
        public let isFolder: Bool
        /// The value and the store it was read from (the first store that has one, in the
        /// order of ``DocumentSourceFile/read()``). An AppleDouble location is the sidecar's
        /// path as text (lossy for names that are not UTF-8).
        public let stored: StoredDocumentSource
        /// The AppleDouble sidecar `._NAME` beside it, when the folder listing has one (whether
        /// or not it holds a value: ``stored`` tells where the value was read from).
        public let sidecar: DocumentSourceTreePath?
        /// Whether this is a sidecar `._NAME` whose NAME is not a regular file or folder (it was
        /// deleted or renamed, as often happens on shares, or it is a symbolic link, which
        /// Linux lets carry no attribute): the value belongs to nothing the walk reports, so
        /// the sidecar is reported under its own path, and ``remove(sidecar:)`` edits only it.
        public let isOrphanSidecar: Bool

        /// Creates a record.
        public init(path: DocumentSourceTreePath, isFolder: Bool, stored: StoredDocumentSource,
                    sidecar: DocumentSourceTreePath?, isOrphanSidecar: Bool = false) {
            self.path = path
            self.isFolder = isFolder
            self.stored = stored
            self.sidecar = sidecar
            self.isOrphanSidecar = isOrphanSidecar
        }
    }

    /// Something the walk could not do; it goes on with the next entry.
    public struct Problem: Sendable, Equatable {
        /// The kinds of problems.
        public enum Kind: Sendable, Equatable {
            /// A folder or a value could not be read (permission denied, I/O error, a
            /// malformed value or sidecar, a root that does not exist): ``error`` says what.
            case failed
            /// The file or folder was listed but was gone (or replaced) when its turn came, or a
            /// folder the walk had to open again was moved out of reach (the rest of it is not
            /// walked).
            case vanished
            /// The folder is the same folder (device and inode) as one of the folders it is
            /// in: a bind mount of an ancestor. It is not walked again.
            case loop
        }

        /// The path the problem is about.
        public let path: DocumentSourceTreePath
        /// What kind of problem it is.
        public let kind: Kind
        /// One line in words, without the path.
        public let message: String
        /// For ``Kind/failed``: the failure, whose ``DocumentSourceFileError/kind`` tells how
        /// serious it is; nil for the other kinds.
        public let error: DocumentSourceFileError?
        /// For a value that could not be read from a file or folder met in the walk: the entry,
        /// so that it can still be removed (``removeValue()``); nil otherwise.
        public let entry: Found.Entry?

        /// Creates a record.
        public init(path: DocumentSourceTreePath, kind: Kind, message: String, error: DocumentSourceFileError? = nil,
                    entry: Found.Entry? = nil) {
            self.path = path
            self.kind = kind
            self.message = message
            self.error = error
            self.entry = entry
        }

        /// Whether this is a value that does not parse (``DocumentSourceFileError/Kind/malformedValue``)
        /// on an entry the walk met: `remove -r` removes it, as `xds remove FILE` does (a value
        /// need not be read to be removed). A sidecar that is not AppleDouble is not one: it
        /// cannot be edited without losing what is in it.
        public var isRemovableValue: Bool {
            entry != nil && error?.kind == .malformedValue
        }

        /// Removes the value from every store of ``entry``, as ``Found/remove(sidecar:)`` with
        /// `sidecar` true does.
        /// - Throws: ``DocumentSourceFileError``; `notFound` when there is no ``entry``.
        @discardableResult
        public func removeValue() throws(DocumentSourceFileError) -> DocumentSourceRemoval {
            guard let entry else {
                throw DocumentSourceFileError(.notFound, path: path.lossyString, message: "no entry to remove a value from")
            }
            return try Found.remove(entry, sidecar: true)
        }
    }

    /// How much of the tree has been seen.
    public struct Counts: Sendable, Equatable {
        /// Regular files examined (AppleDouble `._NAME` files and `.DS_Store` are not counted,
        /// nor, in a walk whose inspector knows them, `NAME:Zone.Identifier` files).
        public var files = 0
        /// Folders walked, the roots included.
        public var folders = 0
        /// Files and folders found carrying the attribute (in a walk with an inspector,
        /// ``DocumentSourceTree/walk(inspecting:_:)``: the records it returned).
        public var tagged = 0
        /// Problems reported.
        public var problems = 0

        /// Zero counts.
        public init() {}
    }
}
