import IconMask
import XDocSourceFetch

/// Everything `xds appinfo` publishes for an app, in memory: the identifier and name for
/// the attribute, an unmasked PNG per requested size and the appInfo.json that lists them.
///
/// File names come only from the sizes (`img/icon-58.png`), never from the bundle.
/// ``write(into:)`` writes them and appInfo.json, each whole (XDocSource's `AtomicFile`), never
/// through a symbolic link; `xds appinfo` does just that.
///
/// ```swift
/// let bundle = try AppBundle(path: "Editor.app")
/// let publication = try AppIconPublication(bundle: bundle, pixelSizes: [29, 58, 87, 1024])
/// try publication.write(into: "site")
/// ```
public struct AppIconPublication: Sendable {
    /// One published image.
    public struct Icon: Sendable {
        /// Its side in pixels.
        public let pixelSize: Int
        /// Where it goes, relative to the folder of appInfo.json: `img/icon-N.png`.
        public let relativePath: String
        /// The encoded PNG (8-bit RGBA).
        public let png: [UInt8]
        /// The bundle image it was drawn from.
        public let source: AppIconSource
    }

    /// The folder, beside appInfo.json, that holds the images.
    public static let imageFolder = "img"
    /// The sizes published when none are asked for: 29, 58 and 87 px (the 29 pt icon at 1x,
    /// 2x and 3x) and 1024 px.
    public static let defaultPixelSizes = [29, 58, 87, 1024]

    /// The largest size published, in pixels (IconMask's largest icon: 2048).
    public static let maximumPixelSize = MaskOptions.maximumPixelSize

    /// `icon-N.png`.
    public static func fileName(pixelSize: Int) -> String { "icon-\(pixelSize).png" }

    /// The app's bundle identifier.
    public let identifier: String
    /// The app's name.
    public let name: String
    /// The images, one per requested size, in the order asked.
    public let icons: [Icon]
    /// The icon list for appInfo.json, with relative `src`.
    public let appInfo: AppInfo
    /// Images of the bundle that were not used, in words (see ``AppIconSet/skipped``).
    public let skipped: [String]

    /// The appInfo.json text (`AppInfo/jsonText`) as UTF-8 bytes.
    public var appInfoJSON: [UInt8] { Array(appInfo.jsonText.utf8) }

    /// Reads the bundle's identifier, name and icons and renders `pixelSizes` (duplicates
    /// are published once).
    ///
    /// - Throws: ``AppIconPublishError``: the bundle's errors (`AppBundleError`, kind kept),
    ///   a malformed icon naming its file, or an invalid size.
    public init(bundle: AppBundle, pixelSizes: [Int] = defaultPixelSizes) throws(AppIconPublishError) {
        do {
            identifier = try bundle.identifier()
            name = try bundle.name()
        } catch {
            throw AppIconPublishError(error)
        }
        let files: [AppBundle.IconFile]
        do { files = try bundle.iconFiles() } catch { throw AppIconPublishError(error) }
        let set = try AppIconSet(files: files)
        var unique: [Int] = []
        for n in pixelSizes where !unique.contains(n) { unique.append(n) }
        var icons: [Icon] = []
        for rendition in try set.renditions(pixelSizes: unique) {
            let png: [UInt8]
            do { png = try PNGEncoder.encode(rendition.image) } catch {
                throw AppIconPublishError.png(error, file: rendition.source.subject,
                                              message: "the \(rendition.pixelSize) px image could not be encoded: \(error.message)")
            }
            icons.append(Icon(pixelSize: rendition.pixelSize,
                              relativePath: "\(Self.imageFolder)/\(Self.fileName(pixelSize: rendition.pixelSize))",
                              png: png, source: rendition.source))
        }
        self.icons = icons
        appInfo = AppInfo(icons: icons.map { AppInfo.Icon(width: $0.pixelSize, height: $0.pixelSize, src: $0.relativePath) })
        skipped = set.skipped
    }
}
