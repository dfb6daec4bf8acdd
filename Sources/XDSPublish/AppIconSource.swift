
/// One image an app icon can be drawn from: a PNG file of the bundle, or a PNG element of an
/// `.icns` file. Its size comes from the PNG header, read without decoding the image.
public struct AppIconSource: Sendable, Equatable {
    /// The bundle file the image is in.
    public let file: AppBundle.IconFile
    /// The `.icns` element type (`ic10`), nil for a PNG file.
    public let element: String?
    /// The image's width in pixels, from its PNG header.
    public let width: Int
    /// The image's height in pixels, from its PNG header.
    public let height: Int
    /// The PNG bytes of an `.icns` element (already read with the file); nil for a PNG file,
    /// which is read when it is chosen.
    let elementPNG: [UInt8]?

    /// Makes a source (``AppIconSet`` makes these from a bundle's icon files).
    init(file: AppBundle.IconFile, element: String?, width: Int, height: Int, elementPNG: [UInt8]?) {
        self.file = file
        self.element = element
        self.width = width
        self.height = height
        self.elementPNG = elementPNG
    }

    /// The source in words: `AppIcon60x60@3x.png (180×180)`, `AppIcon.icns ic10 (1024×1024)`.
    public var description: String {
        let name = element.map { "\(file.fileName) \($0)" } ?? file.fileName
        return "\(name) (\(width)×\(height))"
    }

    /// The path to name in messages: the file, with the element for an `.icns` element.
    public var subject: String {
        element.map { "\(file.path) (element \($0))" } ?? file.path
    }
}
