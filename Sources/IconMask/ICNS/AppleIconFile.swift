/// A macOS icon file (`.icns`; Pillow's src/PIL/IcnsImagePlugin.py): the container parsed and
/// checked, its elements listed, and the PNG images among them picked out.
///
/// The file is the magic `icns`, a big-endian 32-bit total length (including that 8-byte
/// header), then elements: a 4-character OSType, a big-endian 32-bit length (including its own
/// 8-byte header) and the data. Nothing is decoded here; ``pngImages`` hands the PNG bytes to
/// ``PNGDecoder``.
///
/// Parsing is safe on any bytes: every length is checked against what remains before it is
/// used (no arithmetic that can overflow), and at most ``maximumElementCount`` elements are
/// read. Callers bound the file size themselves (a real icns file is a few MB at most).
public struct AppleIconFile: Sendable {
    /// One element of the file: its OSType (e.g. "ic10"), where its data lies in the file's bytes,
    /// and its pixel size when the type says (Pillow's `IcnsFile.SIZES`; legacy types too: is32 16, il32 32,
    /// ih32 48, it32 128, ...).
    public struct Element: Sendable, Equatable {
        /// The OSType as text: the 4 characters when they are all printable ASCII (e.g. "ic10",
        /// "TOC "), else `0x` and 8 hex digits (e.g. "0xFDD92FA8", the dark-mode variant), so it
        /// is always safe to show.
        public let type: String
        /// The element's data (after its 8-byte header), as indices into the file's bytes.
        public let data: Range<Int>
        /// The side of the square image the type stands for, in pixels; nil for non-image types
        /// (`TOC `, `icnV`, `info`, ...) and types this parser does not know.
        public let pixelSize: Int?

        /// Makes an element description (the parser makes these; public for tests and callers
        /// that build expectations).
        public init(type: String, data: Range<Int>, pixelSize: Int?) {
            self.type = type
            self.data = data
            self.pixelSize = pixelSize
        }
    }

    /// A PNG image element: type, pixel size from the type table, and the PNG's bytes.
    public struct PNGImage: Sendable, Equatable {
        /// The element's OSType, e.g. "ic07".
        public let type: String
        /// The side the type stands for, in pixels (the PNG's own header may say otherwise;
        /// decoders should trust the PNG).
        public let pixelSize: Int
        /// The PNG file, signature first.
        public let png: [UInt8]

        /// Makes a PNG image description (``AppleIconFile/pngImages`` makes these; public for
        /// tests and callers that build expectations).
        public init(type: String, pixelSize: Int, png: [UInt8]) {
            self.type = type
            self.pixelSize = pixelSize
            self.png = png
        }
    }

    /// The most elements a file may hold. Real files hold about 10–20 (one per size plus a
    /// table of contents and a version); the bound keeps hostile files from making huge lists.
    public static let maximumElementCount = 1024

    /// Every element, in file order.
    public let elements: [Element]
    /// The file's bytes, which ``Element/data`` indexes.
    private let bytes: [UInt8]

    /// Parses and validates the container.
    ///
    /// Checks: the magic `icns`; the declared total length at least 8 and at most the byte
    /// count; each element header complete, its length at least 8 and its end inside the
    /// declared length; at least one and at most ``maximumElementCount`` elements.
    ///
    /// Bytes after the declared total length are ignored rather than refused: the declared
    /// length is where the file's writer says it ends, and some tools pad or append (a resource
    /// fork flattened after it, a trailing newline), while a declared length past the end means
    /// the file was cut short, which is refused.
    /// - Throws: ``AppleIconFileError`` saying in words what is wrong and where.
    public init(bytes: [UInt8]) throws(AppleIconFileError) {
        guard bytes.count >= 8 else {
            if bytes.count >= 4, !Self.startsWithMagic(bytes) {
                throw AppleIconFileError(.notICNS, "not an icns file: it does not start with \"icns\"")
            }
            throw AppleIconFileError(.truncated, "the file is \(bytes.count) bytes long, shorter than the 8-byte icns header")
        }
        guard Self.startsWithMagic(bytes) else {
            throw AppleIconFileError(.notICNS, "not an icns file: it starts with \(Self.describeType(bytes, at: 0)), not \"icns\"")
        }
        let declared = Self.uint32(bytes, at: 4)
        guard declared >= 8 else {
            throw AppleIconFileError(.badLength, "the header gives a total length of \(declared) bytes, less than its own 8")
        }
        guard declared <= bytes.count else {
            throw AppleIconFileError(.truncated, "the header gives a total length of \(declared) bytes but the file has only \(bytes.count)")
        }
        var elements: [Element] = []
        var offset = 8
        while offset < declared {
            let number = elements.count + 1
            guard elements.count < Self.maximumElementCount else {
                throw AppleIconFileError(.tooManyElements, "the file holds more than \(Self.maximumElementCount) elements")
            }
            let remaining = declared - offset  // > 0
            guard remaining >= 8 else {
                throw AppleIconFileError(.truncated, "element \(number) header at byte \(offset) is cut short: \(remaining) of its 8 bytes remain")
            }
            let type = Self.describeType(bytes, at: offset)
            let length = Self.uint32(bytes, at: offset + 4)
            guard length >= 8 else {
                throw AppleIconFileError(.badLength, "element \(number) (\(type)) at byte \(offset) gives a length of \(length) bytes, less than its own 8-byte header")
            }
            guard length <= remaining else {
                throw AppleIconFileError(.truncated, "element \(number) (\(type)) at byte \(offset) is \(length) bytes long but only \(remaining) bytes remain")
            }
            elements.append(Element(type: type, data: (offset + 8)..<(offset + length), pixelSize: Self.typeInfo[type]?.size))
            offset += length
        }
        guard !elements.isEmpty else {
            throw AppleIconFileError(.empty, "the file holds no icon elements")
        }
        self.elements = elements
        self.bytes = bytes
    }

    /// The elements that hold PNG data (signature sniffed) and whose type has a known size
    /// (ic07–ic14, icp4–icp6), in file order.
    public var pngImages: [PNGImage] {
        elements.compactMap { element in
            guard let info = Self.typeInfo[element.type], info.kind == .pngOrJPEG2000,
                  content(of: element) == .png else { return nil }
            return PNGImage(type: element.type, pixelSize: info.size, png: Array(bytes[element.data]))
        }
    }

    /// Image elements that are not used, in words, one per element, e.g.
    /// "is32 (16×16, legacy RLE RGB): skipped", "ic09 (512×512, JPEG 2000): skipped". Non-image
    /// elements (TOC , icnV, info, masks s8mk...) are skipped silently.
    public var skippedImages: [String] {
        elements.compactMap { element in
            guard let info = Self.typeInfo[element.type] else { return nil }
            let what: String
            switch info.kind {
            case .mask:
                return nil
            case .pngOrJPEG2000:
                switch content(of: element) {
                case .png: return nil
                case .jpeg2000: what = "JPEG 2000"
                case .other: what = "neither PNG nor JPEG 2000"
                }
            case .legacy(let description):
                what = description
            }
            return "\(element.type) (\(info.size)×\(info.size), \(what)): skipped"
        }
    }

    // MARK: - Types

    /// What an image type holds.
    private enum TypeKind: Equatable {
        /// PNG or JPEG 2000 data (sniffed).
        case pngOrJPEG2000
        /// An older raw format, described in words.
        case legacy(String)
        /// A mask that goes with a legacy image: not an image of its own.
        case mask
    }

    /// The image types: pixel side and kind (Pillow's src/PIL/IcnsImagePlugin.py, `IcnsFile.SIZES`).
    private static let typeInfo: [String: (size: Int, kind: TypeKind)] = [
        "icp4": (16, .pngOrJPEG2000), "icp5": (32, .pngOrJPEG2000), "icp6": (64, .pngOrJPEG2000),
        "ic07": (128, .pngOrJPEG2000), "ic08": (256, .pngOrJPEG2000), "ic09": (512, .pngOrJPEG2000),
        "ic10": (1024, .pngOrJPEG2000), "ic11": (32, .pngOrJPEG2000), "ic12": (64, .pngOrJPEG2000),
        "ic13": (256, .pngOrJPEG2000), "ic14": (512, .pngOrJPEG2000),
        "is32": (16, .legacy("legacy RLE RGB")), "il32": (32, .legacy("legacy RLE RGB")),
        "ih32": (48, .legacy("legacy RLE RGB")), "it32": (128, .legacy("legacy RLE RGB")),
        "ic04": (16, .legacy("legacy ARGB")), "ic05": (32, .legacy("legacy ARGB")),
        "ics4": (16, .legacy("legacy 4-bit indexed")), "icl4": (32, .legacy("legacy 4-bit indexed")),
        "ich4": (48, .legacy("legacy 4-bit indexed")),
        "ics8": (16, .legacy("legacy 8-bit indexed")), "icl8": (32, .legacy("legacy 8-bit indexed")),
        "ich8": (48, .legacy("legacy 8-bit indexed")),
        "ics#": (16, .legacy("legacy 1-bit with mask")), "ICN#": (32, .legacy("legacy 1-bit with mask")),
        "ich#": (48, .legacy("legacy 1-bit with mask")),
        "s8mk": (16, .mask), "l8mk": (32, .mask), "h8mk": (48, .mask), "t8mk": (128, .mask),
    ]

    /// What an element's data looks like.
    private enum Content { case png, jpeg2000, other }

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The JP2 signature box, and the start of a bare JPEG 2000 codestream (SOC, SIZ).
    private static let jp2Signature: [UInt8] = [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    private static let j2kCodestream: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51]

    private func content(of element: Element) -> Content {
        let data = bytes[element.data]
        if data.starts(with: Self.pngSignature) { return .png }
        if data.starts(with: Self.jp2Signature) || data.starts(with: Self.j2kCodestream) { return .jpeg2000 }
        return .other
    }

    // MARK: - Bytes

    private static func startsWithMagic(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0x69, 0x63, 0x6E, 0x73])  // "icns"
    }

    /// Big-endian 32 bits at `offset`. - Precondition: `offset + 4 <= bytes.count`.
    private static func uint32(_ bytes: [UInt8], at offset: Int) -> Int {
        Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    }

    /// The 4 bytes at `offset` as an OSType text (see ``Element/type``).
    /// - Precondition: `offset + 4 <= bytes.count`.
    private static func describeType(_ bytes: [UInt8], at offset: Int) -> String {
        let code = bytes[offset..<(offset + 4)]
        if code.allSatisfy({ (0x20...0x7E).contains($0) }) {
            return String(decoding: code, as: UTF8.self)
        }
        let hex = Array("0123456789ABCDEF")
        return "0x" + String(code.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0x0F)]] })
    }
}
