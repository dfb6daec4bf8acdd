/// Why an app bundle could not be read, or gave no identifier, name or icon.
///
/// ``message`` is one line in words without the file; ``file`` names the file or folder it
/// is about (the Info.plist for problems with its content, the icon file for a bad icon).
/// ``kind`` groups failures the way callers act on them; `xds` maps them to the exit statuses
/// of SPEC §5 (see each case).
public struct AppBundleError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The groups of failures.
    public enum Kind: Sendable, Hashable {
        /// The bundle, its Info.plist, or the folder named does not exist. (66)
        case notFound
        /// A file or folder exists but could not be read: permission denied, an I/O error. (74)
        case unreadable
        /// The Info.plist is not a property list, not a dictionary, too large, or holds a key
        /// of the wrong type or an invalid identifier or name. (65)
        case malformedInfoPlist
        /// The Info.plist names an icon that is not a plain file name in the icon folder
        /// (`../x`, `a/b`, `.`, `..`, a NUL), which could read outside the bundle. (65)
        case unsafeIconName
        /// An icon file is malformed: not a PNG or `.icns`, or too large. (65)
        case malformedIcon
        /// The Info.plist has no `CFBundleIdentifier`. (65: the bundle cannot be published)
        case noIdentifier
        /// Neither `CFBundleDisplayName` nor `CFBundleName` is set, and the bundle's own file
        /// name gives none. (65)
        case noName
        /// The Info.plist names no icon, or none of the icons it names exists. (1)
        case noIcon
        /// The app's icons are only in an asset catalog (`Assets.car`, `CFBundleIconName`),
        /// which this reader does not decode. (1)
        case assetCatalogOnly
    }

    /// The group of the failure.
    public let kind: Kind
    /// The file or folder the failure is about, as the caller named it (joined with names
    /// from the bundle for files inside it).
    public let file: String
    /// One line in words, without the file.
    public let message: String

    /// Makes an error.
    public init(_ kind: Kind, file: String, message: String) {
        self.kind = kind
        self.file = file
        self.message = message
    }

    /// `FILE: message`.
    public var description: String { "\(file): \(message)" }
}
