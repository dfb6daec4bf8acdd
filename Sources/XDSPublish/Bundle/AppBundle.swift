import XDocSource
internal import XDSSystem

/// An app bundle read for publishing: its identifier, its name and its icon files.
///
/// Three forms are read (Apple's Bundle Programming Guide):
/// * an iOS `.app`: `Info.plist` at its root, icons beside it;
/// * a macOS `.app`: `Contents/Info.plist`, icons in `Contents/Resources`;
/// * an `Info.plist` named directly: icons in its folder (in `Resources` beside it when it
///   is a macOS bundle's `Contents/Info.plist`).
///
/// The Info.plist may be binary or XML; it goes through the same hardened reader as the
/// attribute (`PropertyList/decode(_:maximumSize:)`), with a larger size bound
/// (``maximumInfoPlistSize``). Reading the bundle reads only the Info.plist; the fields are
/// checked when asked for, so a caller that needs only the name does not fail on the icons.
///
/// ```swift
/// let bundle = try AppBundle(path: "Build/Products/Release-iphoneos/Editor.app")
/// let id = try bundle.identifier()        // "com.example.editor"
/// let name = try bundle.name()            // "Editor"
/// let icons = try bundle.iconFiles()      // AppIcon60x60@2x.png, AppIcon60x60@3x.png, …
/// ```
public struct AppBundle: Sendable, Equatable {
    /// Where the Info.plist was found.
    public enum Layout: Sendable, Hashable {
        /// An iOS-style bundle: `APP/Info.plist`.
        case iOS
        /// A macOS bundle: `APP/Contents/Info.plist`.
        case macOS
        /// An Info.plist named directly.
        case infoPlist
    }

    /// The largest Info.plist read: 4 MiB (attribute values are bounded at 64 KiB; an
    /// Info.plist with many document types or URL schemes can be far larger).
    public static let maximumInfoPlistSize = 4 << 20

    /// The path as the caller gave it.
    public let path: String
    /// Which of the three forms the path is.
    public let layout: Layout
    /// The Info.plist read.
    public let infoPlistPath: String
    /// The folder icon names are resolved in.
    public let iconFolder: String
    /// The Info.plist's top-level dictionary.
    public let info: [String: PropertyListValue]
    /// The bundle's own file name without `.app` (`Editor` for `Editor.app`), nil for an
    /// Info.plist that is not inside a `.app` folder: the last fallback for ``name()``.
    public let bundleFileName: String?

    /// Finds and reads the Info.plist of the bundle (or the Info.plist) at `path`.
    ///
    /// - Throws: ``AppBundleError`` of kind ``AppBundleError/Kind/notFound`` when `path` or
    ///   its Info.plist does not exist, ``AppBundleError/Kind/malformedInfoPlist`` when the
    ///   Info.plist is not a property list with a dictionary at its root (or is larger than
    ///   ``maximumInfoPlistSize``), ``AppBundleError/Kind/unreadable`` when it cannot be read.
    public init(path: String) throws(AppBundleError) {
        guard !path.isEmpty else {
            throw AppBundleError(.notFound, file: path, message: "no bundle or Info.plist named (the path is empty)")
        }
        self.path = path
        switch BundleFiles.type(of: path) {
        case .missing:
            throw AppBundleError(.notFound, file: path, message: "no such app bundle or Info.plist")
        case .failed(let error):
            throw BundleFiles.failure(path, error)
        case .folder:
            let macOS = BundleFiles.join(path, "Contents/Info.plist")
            let iOS = BundleFiles.join(path, "Info.plist")
            // Inside the bundle nothing is followed out of it: a symbolic link named Contents
            // (or Info.plist, below) could point anywhere. The bundle itself was named on purpose.
            let contents = BundleFiles.join(path, "Contents")
            if BundleFiles.isSymbolicLink(contents) {
                throw AppBundleError(.unreadable, file: contents, message: "is a symbolic link, which is not followed inside a bundle")
            }
            if BundleFiles.type(of: macOS, followLinks: false) == .regularFile {
                layout = .macOS
                infoPlistPath = macOS
                iconFolder = BundleFiles.join(path, "Contents/Resources")
            } else if BundleFiles.type(of: iOS, followLinks: false) == .regularFile {
                layout = .iOS
                infoPlistPath = iOS
                iconFolder = path
            } else if let link = [macOS, iOS].first(where: BundleFiles.isSymbolicLink) {
                throw AppBundleError(.unreadable, file: link, message: "is a symbolic link, which is not followed inside a bundle")
            } else {
                throw AppBundleError(.notFound, file: path,
                                     message: "no Info.plist in this folder (looked for Contents/Info.plist and Info.plist)")
            }
            bundleFileName = Self.appName(BundleFiles.lastComponent(of: path))
        case .regularFile, .other:
            layout = .infoPlist
            infoPlistPath = path
            let folder = BundleFiles.folder(of: path)
            let folderName = BundleFiles.lastComponent(of: folder)
            // APP/Contents/Info.plist named directly: icons are in Contents/Resources, and
            // the bundle's name is APP's.
            if folderName == "Contents", BundleFiles.type(of: BundleFiles.join(folder, "Resources"), followLinks: false) != .missing {
                iconFolder = BundleFiles.join(folder, "Resources")
                bundleFileName = Self.appName(BundleFiles.lastComponent(of: BundleFiles.folder(of: folder)))
            } else {
                iconFolder = folder
                bundleFileName = Self.appName(folderName)
            }
        }
        // An Info.plist named directly may be a link (named on purpose); one found in a bundle
        // folder is not followed.
        let bytes = try BundleFiles.read(infoPlistPath, limit: Self.maximumInfoPlistSize, what: "the Info.plist",
                                         noFollow: layout != .infoPlist, tooLarge: .malformedInfoPlist)
        let root: PropertyListValue
        do {
            root = try PropertyList.decode(bytes, maximumSize: Self.maximumInfoPlistSize)
        } catch {
            throw AppBundleError(.malformedInfoPlist, file: infoPlistPath, message: "not a valid Info.plist: \(error.message)")
        }
        guard case .dictionary(let info) = root else {
            throw AppBundleError(.malformedInfoPlist, file: infoPlistPath,
                                 message: "not a valid Info.plist: the root is \(root.typeNameInSentence), not a dictionary")
        }
        self.info = info
    }

    /// `Editor` for `Editor.app`; nil for a name without the `.app` extension (or only it).
    private static func appName(_ component: String) -> String? {
        guard component.count > 4, component.lowercased().hasSuffix(".app") else { return nil }
        return String(component.dropLast(4))
    }

    /// The app's bundle identifier, `CFBundleIdentifier`, checked as the attribute's
    /// `identifier` is (`DocumentSourceValidation/identifierProblem(_:)`).
    ///
    /// - Throws: ``AppBundleError`` of kind ``AppBundleError/Kind/noIdentifier`` when the key
    ///   is missing, ``AppBundleError/Kind/malformedInfoPlist`` when it is not a string or not a
    ///   valid identifier.
    public func identifier() throws(AppBundleError) -> String {
        guard let value = info["CFBundleIdentifier"] else {
            throw AppBundleError(.noIdentifier, file: infoPlistPath, message: "the Info.plist has no CFBundleIdentifier")
        }
        let identifier = try string(value, key: "CFBundleIdentifier")
        if let problem = DocumentSourceValidation.identifierProblem(identifier) {
            throw AppBundleError(.malformedInfoPlist, file: infoPlistPath,
                                 message: "CFBundleIdentifier \(VisibleText.quoted(identifier)) \(problem)")
        }
        return identifier
    }

    /// The app's name: `CFBundleDisplayName`, else `CFBundleName`, else the bundle's file
    /// name without `.app` (an empty value counts as missing). Checked as the attribute's
    /// `name` is (`DocumentSourceValidation/nameProblem(_:)`).
    ///
    /// - Throws: ``AppBundleError`` of kind ``AppBundleError/Kind/noName`` when none of the
    ///   three gives a name, ``AppBundleError/Kind/malformedInfoPlist`` when a key is not a
    ///   string or the name holds a control character or nothing visible.
    public func name() throws(AppBundleError) -> String {
        for key in ["CFBundleDisplayName", "CFBundleName"] {
            guard let value = info[key] else { continue }
            let name = try string(value, key: key)
            if name.isEmpty { continue }
            if let problem = DocumentSourceValidation.nameProblem(name) {
                throw AppBundleError(.malformedInfoPlist, file: infoPlistPath,
                                     message: "\(key) \(VisibleText.quoted(name)) \(problem)")
            }
            return name
        }
        if let bundleFileName, DocumentSourceValidation.nameProblem(bundleFileName) == nil {
            return bundleFileName
        }
        throw AppBundleError(.noName, file: infoPlistPath,
                             message: "the Info.plist has neither CFBundleDisplayName nor CFBundleName, and it is not inside a .app folder that names the app")
    }

    /// The string value of `key`, or a malformed-Info.plist error naming the key.
    func string(_ value: PropertyListValue, key: String) throws(AppBundleError) -> String {
        guard case .string(let string) = value else {
            throw AppBundleError(.malformedInfoPlist, file: infoPlistPath,
                                 message: "\(key) is \(value.typeNameInSentence), not a string")
        }
        return string
    }
}
