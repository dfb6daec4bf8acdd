internal import XDSSystem

/// An app's icon list, as its `appInfo.json` holds it (SPEC §3).
///
/// ```json
/// {"icons": [{"width": 29, "height": 29, "src": "img/icon.png"},
///            {"width": 58, "height": 58, "src": "img/icon@2x.png"}]}
/// ```
///
/// A root that is the bare array `[{…}, …]` is read the same way. Entries that are not an
/// object, or miss a field, or hold a field of the wrong type or value are skipped and counted
/// in ``skippedEntries`` (so `xds` can warn); other members are ignored. `src` is kept as
/// written: resolve it against the appInfo.json's own URL with `URLReference.resolve(_:against:)`.
public struct AppInfo: Sendable, Equatable {
    /// One entry of the list: an image of `width` × `height` pixels at `src`.
    public struct Icon: Sendable, Equatable {
        /// The width in pixels, at least 1.
        public var width: Int
        /// The height in pixels, at least 1.
        public var height: Int
        /// Where the image is: an absolute URL or a reference relative to the appInfo.json.
        public var src: String

        /// Makes an entry.
        public init(width: Int, height: Int, src: String) {
            self.width = width
            self.height = height
            self.src = src
        }

        /// The number of pixels, the measure of "smallest" and "largest" in the choice.
        /// Exact: dimensions read from JSON are at most `Int32.max`.
        var area: Int { width.multipliedReportingOverflow(by: height).overflow ? .max : width * height }
    }

    /// The largest appInfo.json read, in bytes (SPEC §3: 256 KiB).
    public static let maximumSize = 256 * 1024

    /// The largest width or height accepted from JSON; a larger one skips the entry.
    public static let maximumDimension = Int(Int32.max)

    /// The usable entries, in the order of the file.
    public var icons: [Icon]

    /// How many entries of the file were skipped as malformed.
    public var skippedEntries: Int

    /// Makes a list from entries.
    public init(icons: [Icon], skippedEntries: Int = 0) {
        self.icons = icons
        self.skippedEntries = skippedEntries
    }

    /// Reads an appInfo.json.
    ///
    /// Same as ``init(json:source:)`` with an empty `source`: the error's `url` is empty, and
    /// a caller that knows the URL or path makes a new ``FetchError`` with it (or passes it as
    /// `source`).
    public init(json bytes: [UInt8]) throws(FetchError) {
        try self.init(json: bytes, source: "")
    }

    /// Reads an appInfo.json fetched from `source` (a URL or path, used only in errors).
    ///
    /// - Throws: ``FetchError`` of kind ``FetchError/Kind/malformedAppInfo`` with `url`
    ///   `source` and a one-line message: the text is over ``maximumSize`` bytes, is not
    ///   valid UTF-8 JSON (the message names the line and column), nests deeper than 64
    ///   levels, has a key twice in one object, or its root is neither an object with an
    ///   `"icons"` array nor an array. An empty list is not an error here (the fetcher
    ///   reports ``FetchError/Kind/noIcon``).
    public init(json bytes: [UInt8], source: String) throws(FetchError) {
        guard bytes.count <= Self.maximumSize else {
            throw FetchError(.malformedAppInfo, url: source,
                             message: "appInfo.json is \(bytes.count) bytes, more than the limit of \(Self.maximumSize)")
        }
        let root: JSONValue
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            throw FetchError(.malformedAppInfo, url: source, message: "appInfo.json is not valid JSON: \(error.description)")
        }
        let list: [JSONValue]
        switch root {
        case .array(let items):
            list = items
        case .object:
            guard let icons = root["icons"] else {
                throw FetchError(.malformedAppInfo, url: source, message: "appInfo.json has no \"icons\" list")
            }
            guard case .array(let items) = icons else {
                throw FetchError(.malformedAppInfo, url: source, message: "the \"icons\" of appInfo.json is not an array")
            }
            list = items
        default:
            throw FetchError(.malformedAppInfo, url: source,
                             message: "appInfo.json is neither an object with an \"icons\" list nor an array")
        }
        var icons: [Icon] = []
        icons.reserveCapacity(list.count)
        for item in list {
            if let icon = Self.icon(item) { icons.append(icon) }
        }
        self.init(icons: icons, skippedEntries: list.count - icons.count)
    }

    /// An entry, or nil when it is malformed: width and height must be whole numbers from 1
    /// to ``maximumDimension`` (29 and 29.0 alike), src a non-empty string.
    private static func icon(_ item: JSONValue) -> Icon? {
        guard let width = item["width"]?.wholeNumber(in: 1...maximumDimension),
              let height = item["height"]?.wholeNumber(in: 1...maximumDimension),
              case .string(let src)? = item["src"], !src.isEmpty else { return nil }
        return Icon(width: width, height: height, src: src)
    }

    /// The entry to draw an `n` × `n` icon from (SPEC §3), or nil when the list is empty.
    ///
    /// The first entry of exactly `n` × `n`; else, among the entries whose width and height
    /// are both at least `n`, the smallest by area (the first of equals); else the largest by
    /// area (the first of equals). The caller resamples the image to `n` × `n`.
    public func icon(forPixelSize n: Int) -> Icon? {
        if let exact = icons.first(where: { $0.width == n && $0.height == n }) { return exact }
        var best: Icon?
        for icon in icons where icon.width >= n && icon.height >= n {
            if best == nil || icon.area < best!.area { best = icon }
        }
        if let best { return best }
        for icon in icons where best == nil || icon.area > best!.area {
            best = icon
        }
        return best
    }
}
