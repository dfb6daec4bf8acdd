#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDSWalk

/// The provenance a TextBundle records about itself in its `info.json` (TextBundle
/// specification, textbundle.org): which app created it, where from, and what it holds.
///
/// A `.textbundle` folder or `.textpack` zip carries this beside any `x-document-source`
/// attribute; `xds show` prints both, so a user sees both records of where a document came
/// from. Reading is tolerant: a key of the wrong type is reported in ``warnings`` and left out;
/// keys the specification does not name (app-specific ones) are ignored.
public struct TextBundleInfo: Sendable, Equatable {
    /// `version`: the TextBundle format version (1 or 2 as written; not checked).
    public var version: Int?
    /// `type`: the UTI of the text, e.g. `net.daringfireball.markdown`.
    public var type: String?
    /// `transient`: whether the bundle is only a container for moving the text between apps.
    public var transient: Bool?
    /// `creatorURL`: a URL that identifies the app that created the bundle.
    public var creatorURL: String?
    /// `creatorIdentifier`: the bundle identifier of the app that created the bundle.
    public var creatorIdentifier: String?
    /// `sourceURL`: the URL of the text's origin, e.g. the web page it was clipped from.
    public var sourceURL: String?
    /// Keys of the wrong type, in words, e.g. "info.json: transient is a string, not a boolean (ignored)".
    public var warnings: [String]

    /// The largest `info.json` read (64 KiB); a bigger one is refused as malformed.
    public static let maximumSize = 64 * 1024

    /// The keys shown, in the order `xds show` prints them.
    public static let keys = ["creatorIdentifier", "creatorURL", "sourceURL", "type", "transient", "version"]

    /// An empty record (no key known).
    public init() {
        warnings = []
    }

    /// Whether no key of the specification was found.
    public var isEmpty: Bool {
        version == nil && type == nil && transient == nil && creatorURL == nil && creatorIdentifier == nil && sourceURL == nil
    }

    /// Parses the bytes of an `info.json`.
    ///
    /// - Throws: ``TextBundleInfoError`` when the text is not JSON (line and column in the
    ///   message), is larger than ``maximumSize``, or its root is not an object.
    public static func parse(_ bytes: [UInt8]) throws(TextBundleInfoError) -> TextBundleInfo {
        guard bytes.count <= maximumSize else {
            throw TextBundleInfoError(.malformed, "info.json is larger than \(maximumSize / 1024) KiB")
        }
        let root: JSONValue
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            throw TextBundleInfoError(.malformed, "info.json is not valid JSON (\(error.description))")
        }
        guard case .object(let members) = root else {
            throw TextBundleInfoError(.malformed, "info.json is not a JSON object")
        }
        var info = TextBundleInfo()
        for (key, value) in members {
            switch key {
            case "version":
                if let number = value.wholeNumber(in: 0...Int(Int32.max)) { info.version = number } else { info.warn(key, value, "a whole number") }
            case "transient":
                if case .bool(let flag) = value { info.transient = flag } else { info.warn(key, value, "a boolean") }
            case "type": info.type = info.string(key, value)
            case "creatorURL": info.creatorURL = info.string(key, value)
            case "creatorIdentifier": info.creatorIdentifier = info.string(key, value)
            case "sourceURL": info.sourceURL = info.string(key, value)
            default: break
            }
        }
        return info
    }

    /// Reads `info.json` in the `.textbundle` folder at `path`.
    ///
    /// The file is opened without following a symbolic link (a bundle is someone else's data:
    /// a link must not make `xds` read another file) and must be a regular file.
    /// - Returns: nil when the folder has no `info.json`.
    /// - Throws: ``TextBundleInfoError`` when it cannot be read or parsed.
    public static func read(bundleAt path: String) throws(TextBundleInfoError) -> TextBundleInfo? {
        try read(bundleAt: DocumentSourceTreePath(path))
    }

    /// ``read(bundleAt:)-(String)`` for a folder named by exact bytes (a path from a tree walk,
    /// which need not be UTF-8).
    public static func read(bundleAt path: DocumentSourceTreePath) throws(TextBundleInfoError) -> TextBundleInfo? {
        var file = path.bytes
        if file.last != UInt8(ascii: "/") { file.append(UInt8(ascii: "/")) }
        file += Array("info.json".utf8) + [0]
        let fd = file.withUnsafeBufferPointer { name in
            name.withMemoryRebound(to: CChar.self) { cName in
                SystemCall.retrying { open(cName.baseAddress!, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) }
            }
        }
        guard fd >= 0 else {
            let error = Errno.current
            if error.rawValue == ENOENT { return nil }
            if error.rawValue == ELOOP { throw TextBundleInfoError(.unreadable, "info.json is a symbolic link (not followed)") }
            throw TextBundleInfoError(.unreadable, "info.json cannot be opened (\(error.words))")
        }
        defer { SystemCall.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw TextBundleInfoError(.unreadable, "info.json cannot be examined (\(Errno.current.words))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw TextBundleInfoError(.malformed, "info.json is not a regular file")
        }
        guard info.st_size <= maximumSize else {
            throw TextBundleInfoError(.malformed, "info.json is larger than \(maximumSize / 1024) KiB")
        }
        // One byte more than allowed: a file that grew since fstat is still caught.
        var bytes = [UInt8](repeating: 0, count: maximumSize + 1)
        let result = bytes.withUnsafeMutableBytes { buffer -> Result<Int, Errno> in
            do throws(Errno) { return .success(try SystemCall.readFully(fd, into: buffer)) } catch { return .failure(error) }
        }
        switch result {
        case .success(let count): return try parse(Array(bytes[..<count]))
        case .failure(let error): throw TextBundleInfoError(.unreadable, "info.json cannot be read (\(error.words))")
        }
    }

    /// Whether `path` names a TextBundle folder (`.textbundle`, any case) by its name.
    public static func isBundleName(_ path: String) -> Bool {
        PathText.trimmingTrailingSlashes(path).lowercased().hasSuffix(".textbundle")
    }

    /// The keys found with their values, in ``keys`` order: the strings as
    /// ``PropertyListValue/string(_:)``, `transient` as ``PropertyListValue/boolean(_:)`` and
    /// `version` as ``PropertyListValue/integer(_:)`` (`xds show` prints these, and
    /// ``warnings``).
    public var fields: [(key: String, value: PropertyListValue)] {
        var fields: [(key: String, value: PropertyListValue)] = []
        func add(_ key: String, _ string: String?) {
            if let string { fields.append((key, .string(string))) }
        }
        add("creatorIdentifier", creatorIdentifier)
        add("creatorURL", creatorURL)
        add("sourceURL", sourceURL)
        add("type", type)
        if let transient { fields.append(("transient", .boolean(transient))) }
        if let version { fields.append(("version", .integer(Int64(version)))) }
        return fields
    }

    private mutating func string(_ key: String, _ value: JSONValue) -> String? {
        if case .string(let text) = value { return text }
        warn(key, value, "a string")
        return nil
    }

    private mutating func warn(_ key: String, _ value: JSONValue, _ expected: String) {
        warnings.append("info.json: \(key) is \(Self.describe(value)), not \(expected) (ignored)")
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Why a TextBundle's `info.json` could not be used.
public struct TextBundleInfoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Kind: Sendable, Equatable {
        /// The file is not a JSON object of bounded size.
        case malformed
        /// The file could not be opened or read.
        case unreadable
    }

    /// What went wrong.
    public let kind: Kind
    /// The reason in words, naming `info.json`.
    public let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
