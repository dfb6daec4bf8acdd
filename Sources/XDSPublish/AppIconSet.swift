import IconMask
import XDocSourceFetch

/// The images a bundle's icon files hold, with their sizes, ready to be resized.
///
/// Built from `AppBundle/iconFiles()`: each PNG file's size is read from its header (the
/// image is not decoded); each `.icns` is read whole and its PNG elements listed, with their
/// sizes from their own PNG headers. Legacy and JPEG 2000 elements are not used; they are
/// listed in ``skipped``. Only the sources chosen by ``renditions(pixelSizes:)`` are ever
/// decoded, each once.
public struct AppIconSet: Sendable {
    /// The usable images, in the order of the files (an `.icns`'s elements in file order).
    public let sources: [AppIconSource]
    /// The images not used, in words, each naming its file: `AppIcon.icns: is32 (16×16,
    /// legacy RLE RGB): skipped`.
    public let skipped: [String]

    /// The largest image side accepted (the PNG decoder's limit, `PNGDecoder/defaultMaxDimension`).
    public static let maximumSourcePixels = PNGDecoder.defaultMaxDimension

    /// Reads the sizes of the images in `files`.
    ///
    /// - Throws: ``AppIconPublishError`` of kind `.bundle(.malformedIcon)` naming the file for
    ///   a PNG whose header is invalid or whose image is over ``maximumSourcePixels``, or an
    ///   `.icns` that cannot be parsed; `.bundle(.noIcon)` when no usable image is left (an
    ///   `.icns` with legacy elements only); the bundle's read errors as they are.
    public init(files: [AppBundle.IconFile]) throws(AppIconPublishError) {
        var sources: [AppIconSource] = []
        var skipped: [String] = []
        for file in files {
            switch file.format {
            case .png:
                let prefix: [UInt8]
                do { prefix = try file.readPrefix(PNGHeader.prefixSize) } catch { throw AppIconPublishError(error) }
                let header = try Self.header(prefix, subject: file.path)
                sources.append(AppIconSource(file: file, element: nil, width: header.width, height: header.height, elementPNG: nil))
            case .icns:
                let bytes: [UInt8]
                do { bytes = try file.read() } catch { throw AppIconPublishError(error) }
                let icns: AppleIconFile
                do {
                    icns = try AppleIconFile(bytes: bytes)
                } catch {
                    throw AppIconPublishError(.bundle(.malformedIcon), file: file.path, message: "not a valid .icns file: \(error.message)")
                }
                for image in icns.pngImages {
                    let header = try Self.header(image.png, subject: "\(file.path) (element \(image.type))")
                    sources.append(AppIconSource(file: file, element: image.type, width: header.width,
                                                 height: header.height, elementPNG: image.png))
                }
                skipped += icns.skippedImages.map { "\(file.path): \($0)" }
            }
        }
        guard !sources.isEmpty else {
            let names = files.map(\.path).joined(separator: ", ")
            throw AppIconPublishError(.bundle(.noIcon), file: files.first?.path ?? "",
                                      message: "no PNG image among the icon files (\(names)); legacy and JPEG 2000 images are not read")
        }
        self.sources = sources
        self.skipped = skipped
    }

    /// A PNG header, or a malformed-icon error naming `subject`.
    private static func header(_ bytes: [UInt8], subject: String) throws(AppIconPublishError) -> PNGHeader {
        let header: PNGHeader
        do {
            header = try PNGDecoder.header(bytes)
        } catch {
            throw .png(error, file: subject, message: "not a valid PNG: \(error.message)")
        }
        guard max(header.width, header.height) <= maximumSourcePixels else {
            throw AppIconPublishError(.bundle(.malformedIcon), file: subject,
                                      message: "the image is \(header.width)×\(header.height) px; the limit is \(maximumSourcePixels) px on a side")
        }
        return header
    }

    /// The source an N×N icon is drawn from: the same rule as readers use for appInfo.json
    /// (`AppInfo/icon(forPixelSize:)`, SPEC §3): an exact N×N image, else the smallest whose
    /// sides are both at least N, else the largest (the first of equals).
    public func source(forPixelSize n: Int) -> AppIconSource {
        sources[sourceIndex(forPixelSize: n)]
    }

    /// The index in ``sources`` of ``source(forPixelSize:)``.
    private func sourceIndex(forPixelSize n: Int) -> Int {
        let list = AppInfo(icons: sources.enumerated().map { AppInfo.Icon(width: $1.width, height: $1.height, src: String($0)) })
        // The list is never empty (init guarantees a source), and src is the index.
        return list.icon(forPixelSize: n).flatMap { Int($0.src) } ?? 0
    }

    /// One resized image.
    public struct Rendition: Sendable {
        /// Its side in pixels.
        public let pixelSize: Int
        /// The image, unmasked (readers mask icons themselves).
        public let image: RGBAImage
        /// The source it was drawn from.
        public let source: AppIconSource
    }

    /// The icon at each of `pixelSizes`, in that order: for each size the source chosen by
    /// ``source(forPixelSize:)``, decoded once however many sizes it serves, resized with
    /// `IconRenditions/resized(_:toPixelSizes:)` (fill and centre-crop, no mask, no stroke).
    ///
    /// - Throws: ``AppIconPublishError`` of kind `.invalidPixelSize` for a size outside
    ///   1…`MaskOptions/maximumPixelSize` (checked before anything is read), `.bundle(.malformedIcon)`
    ///   naming the file when a chosen image does not decode, or the bundle's read errors.
    public func renditions(pixelSizes: [Int]) throws(AppIconPublishError) -> [Rendition] {
        if let bad = pixelSizes.first(where: { !(1...MaskOptions.maximumPixelSize).contains($0) }) {
            throw AppIconPublishError(.invalidPixelSize, file: "",
                                      message: "the icon size \(bad) is not from 1 to \(MaskOptions.maximumPixelSize) pixels")
        }
        // Sizes grouped by source, sources in the order first needed.
        var order: [Int] = []
        var sizesBySource: [Int: [Int]] = [:]
        for n in pixelSizes {
            let index = sourceIndex(forPixelSize: n)
            if sizesBySource[index] == nil { order.append(index) }
            sizesBySource[index, default: []].append(n)
        }
        var byPixelSize: [Int: Rendition] = [:]
        for index in order {
            let source = sources[index]
            let sizes = sizesBySource[index]!
            let image = try decode(source)
            let images: [RGBAImage]
            do { images = try IconRenditions.resized(image, toPixelSizes: sizes) } catch {
                throw AppIconPublishError(.invalidPixelSize, file: "", message: error.description)
            }
            for (n, resized) in zip(sizes, images) { byPixelSize[n] = Rendition(pixelSize: n, image: resized, source: source) }
        }
        return pixelSizes.map { byPixelSize[$0]! }
    }

    /// Reads (for a PNG file) and decodes a source.
    public func decode(_ source: AppIconSource) throws(AppIconPublishError) -> RGBAImage {
        let bytes: [UInt8]
        if let png = source.elementPNG {
            bytes = png
        } else {
            do { bytes = try source.file.read() } catch { throw AppIconPublishError(error) }
        }
        do {
            return try PNGDecoder.decode(bytes, maxDimension: Self.maximumSourcePixels)
        } catch {
            throw .png(error, file: source.subject, message: "not a valid PNG: \(error.message)")
        }
    }
}
