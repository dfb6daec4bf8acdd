extension AppBundle {
    /// One icon file of a bundle, found from a name its Info.plist lists.
    public struct IconFile: Sendable, Hashable {
        /// What the file holds.
        public enum Format: Sendable, Hashable {
            /// A PNG image (on iOS usually Apple's CgBI variant).
            case png
            /// A macOS icon family (`.icns`), whose PNG elements hold the images.
            case icns
        }

        /// The file: the bundle's icon folder joined with ``fileName``.
        public let path: String
        /// The file's name in the icon folder, as it is on disk.
        public let fileName: String
        /// PNG or icns, from the file name's extension.
        public let format: Format
        /// 2 or 3 for an `@2x` or `@3x` file name, else 1.
        public let scale: Int
        /// Whether the file name carries `~ipad`.
        public let isIPad: Bool
        /// The Info.plist key that listed it, e.g. `CFBundleIcons` or `CFBundleIconFile`.
        public let key: String

        /// Makes an entry.
        public init(path: String, fileName: String, format: Format, scale: Int, isIPad: Bool, key: String) {
            self.path = path
            self.fileName = fileName
            self.format = format
            self.scale = scale
            self.isIPad = isIPad
            self.key = key
        }

        /// The largest icon file read: 64 MiB (an `.icns` with 1024 px PNG elements is a few MiB).
        public static let maximumSize = 64 << 20

        /// Reads the file whole (not following a symbolic link), at most `limit` bytes.
        ///
        /// - Throws: ``AppBundleError`` of kind ``AppBundleError/Kind/malformedIcon`` for a
        ///   file over the limit or not a regular file, ``AppBundleError/Kind/notFound`` when it
        ///   has gone, ``AppBundleError/Kind/unreadable`` when it cannot be read.
        public func read(limit: Int = IconFile.maximumSize) throws(AppBundleError) -> [UInt8] {
            try BundleFiles.read(path, limit: limit, what: "the icon", noFollow: true, tooLarge: .malformedIcon)
        }

        /// Reads at most `count` bytes from the start of the file (a PNG header, for its size).
        public func readPrefix(_ count: Int) throws(AppBundleError) -> [UInt8] {
            try BundleFiles.readPrefix(path, count: count)
        }
    }
}
