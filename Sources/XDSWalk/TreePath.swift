internal import XDSSystem

internal import XDSSystem

/// A path met in a walk, kept as the exact bytes of the file system: Linux names are bytes,
/// and a name that is not valid UTF-8 has no exact Swift `String`.
///
/// Three renderings, each lossless for valid UTF-8 and for any bytes:
/// - ``string``: the path as a `String` when its bytes are valid UTF-8, else nil;
/// - ``visible``: for people (terminals, `xds: PATH: reason` lines): ``string`` escaped as every
///   file name `xds` shows (`\n`, `\\`, `\u{1b}`, …), and each byte that is not part of valid
///   UTF-8 written `\x{ff}` (two hex digits), which no escaped valid name can contain;
/// - ``json``: a JSON string literal: valid UTF-8 as itself (escaped as JSON requires), and each
///   byte that is not part of valid UTF-8 as the lone surrogate escape `\udcXX` (PEP 383's
///   "surrogateescape": in Python, `os.fsencode(json.loads(line)["file"])` gives the exact
///   bytes back). Such a literal is well-formed JSON text; a strict UTF-16 reader may refuse or
///   replace the lone surrogate, which only happens for names that are not UTF-8.
public struct TreePath: Sendable, Hashable, CustomStringConvertible {
    /// The exact bytes of the path (no terminating NUL).
    public let bytes: [UInt8]

    /// Wraps exact path bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Wraps a path given as text.
    public init(_ text: String) { self.bytes = Array(text.utf8) }

    /// The path as text when its bytes are valid UTF-8, else nil.
    public var string: String? { String(validatingUTF8Bytes: bytes) }

    /// The path as text, with any byte that is not valid UTF-8 replaced by U+FFFD (lossy:
    /// for labels only; act on the file through ``bytes``).
    public var lossyString: String { String(decoding: bytes, as: UTF8.self) }

    /// The path for people, escaped as described on the type.
    public var visible: String {
        var out = ""
        forEachRun { run in
            switch run {
            case .text(let text): out += VisibleText.escaped(text)
            case .byte(let byte): out += "\\x{" + Self.hex(byte) + "}"
            }
        }
        return out
    }

    /// The path as a JSON string literal, quotes included, as described on the type.
    public var json: String {
        var literal = "\""
        forEachRun { run in
            switch run {
            case .text(let text) where !JSONString.needsEscape(text):
                literal += text
            case .text(let text):
                literal += JSONString.literal(text).dropFirst().dropLast()
            case .byte(let byte):
                literal += "\\udc" + Self.hex(byte)
            }
        }
        return literal + "\""
    }

    /// ``visible``.
    public var description: String { visible }

    private enum Run {
        case text(String)
        case byte(UInt8)
    }

    /// Splits the bytes into maximal runs of valid UTF-8 and single invalid bytes.
    private func forEachRun(_ body: (Run) -> Void) {
        if let text = string {
            body(.text(text))
            return
        }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var position = 0
        var runStart = 0
        func flush(to end: Int) {
            if end > runStart { body(.text(String(decoding: bytes[runStart..<end], as: UTF8.self))) }
        }
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                position += encoded.count
            case .error(let length):
                flush(to: position)
                for byte in bytes[position..<position + length] { body(.byte(byte)) }
                position += length
                runStart = position
            case .emptyInput:
                flush(to: position)
                return
            }
        }
    }

    private static func hex(_ byte: UInt8) -> String { Hex.string(CollectionOfOne(byte)) }

    /// The path with `name` appended after a `/` (none when the path already ends in one).
    package func appending(_ name: some Collection<UInt8>) -> TreePath {
        var joined = bytes
        if joined.last != UInt8(ascii: "/") { joined.append(UInt8(ascii: "/")) }
        joined += name
        return TreePath(bytes: joined)
    }
}
