extension FileTree {
    /// What the walk itself reports (an inspector's records travel apart).
    enum Event: Sendable {
        case problem(Problem)
        case progress(Counts)
    }

    /// What the callback wants next.
    public enum Decision: Sendable {
        /// Go on walking.
        case proceed
        /// End the walk now (e.g. standard output is gone); every open folder is closed.
        case stop
    }

    /// An entry the walk met, as a problem names it (``Problem/entry``) so that it can still
    /// be acted on: its path, whether it is a folder, and its sidecar.
    public struct Entry: Sendable, Equatable {
        /// The entry's path (an orphan sidecar's own path).
        public let path: TreePath
        /// Whether it is a folder.
        public let isFolder: Bool
        /// The AppleDouble sidecar `._NAME` beside it, when the folder listing has one.
        public let sidecar: TreePath?
        /// Whether this is a sidecar `._NAME` whose NAME is not a regular file or folder.
        public let isOrphanSidecar: Bool

        /// Creates one.
        public init(path: TreePath, isFolder: Bool, sidecar: TreePath?, isOrphanSidecar: Bool = false) {
            self.path = path
            self.isFolder = isFolder
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
        public let path: TreePath
        /// What kind of problem it is.
        public let kind: Kind
        /// One line in words, without the path.
        public let message: String
        /// For ``Kind/failed``: the failure, whose ``FileAccessError/kind`` tells how
        /// serious it is; nil for the other kinds.
        public let error: FileAccessError?
        /// For a value that could not be read from a file or folder met in the walk, when the
        /// reader says so (``FileTreeInspector/failuresNameTheEntry``): the entry, so that it
        /// can still be acted on (XDocSource's `removeValue()`); nil otherwise.
        public let entry: Entry?

        /// Creates a record.
        public init(path: TreePath, kind: Kind, message: String, error: FileAccessError? = nil,
                    entry: Entry? = nil) {
            self.path = path
            self.kind = kind
            self.message = message
            self.error = error
            self.entry = entry
        }
    }

    /// How much of the tree has been seen.
    public struct Counts: Sendable, Equatable {
        /// Regular files examined (AppleDouble `._NAME` files and `.DS_Store` are not counted,
        /// nor the companions the inspector knows, such as `NAME:Zone.Identifier` files).
        public var files = 0
        /// Folders walked, the roots included.
        public var folders = 0
        /// The records the inspector returned (files and folders found carrying what it reads).
        public var tagged = 0
        /// Problems reported.
        public var problems = 0

        /// Zero counts.
        public init() {}
    }
}
