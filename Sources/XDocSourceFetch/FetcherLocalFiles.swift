#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// Local appInfo.json and icon files for ``AppInfoFetcher``: reading them safely, turning
/// paths into `file:` URLs and back, and keeping a `src` inside its folder.
enum FetcherLocalFiles {
    /// Reads the regular file at `path` whole, refusing anything larger than `limit` before
    /// reading it. Opened non-blocking and without becoming a controlling terminal, so a FIFO
    /// or device named by mistake is neither waited on nor read (it fails the regular-file
    /// test); `noFollow` refuses a symbolic link as the last component.
    static func read(_ path: String, limit: Int, what: String, noFollow: Bool = false) throws(FetchError) -> [UInt8] {
        do throws(ReadableFile.Refusal) {
            return try ReadableFile.readWhole(path, limit: limit, options: noFollow ? [.nonBlocking, .noFollow] : .nonBlocking)
        } catch {
            switch error {
            case .folder: throw FetchError(.io, url: path, message: "is a folder, not a file", errorNumber: EISDIR)
            case .notRegular: throw FetchError(.io, url: path, message: "is not a regular file", errorNumber: EINVAL)
            case .tooLarge(let size):
                throw FetchError(.tooLarge, url: path, message: "\(what) is \(size) bytes, over the \(ByteCount.words(limit)) limit")
            case .grew:
                throw FetchError(.tooLarge, url: path, message: "\(what) grew past the \(ByteCount.words(limit)) limit while being read")
            case .failed(let errno): throw ioError(path, errno)
            }
        }
    }

    static func ioError(_ path: String, _ error: Errno) -> FetchError {
        FetchError(.io, url: path, message: error.words, errorNumber: error.rawValue)
    }

    /// `path` with every symbolic link and `.`/`..` resolved (`realpath(3)`).
    static func realPath(_ path: String) throws(FetchError) -> String {
        guard let resolved = realpath(path, nil) else { throw ioError(path, .current) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The folder part and the name of `path` ("." for a bare name).
    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }

    /// A `file:` URL for an absolute path, percent-encoding every byte that may not appear
    /// literally in a URL path.
    static func fileURL(_ absolutePath: String) -> String {
        var out = Array("file://".utf8)
        for byte in absolutePath.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"),
                 UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
                 UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
                 UInt8(ascii: ":"), UInt8(ascii: "@"):
                out.append(byte)
            default:
                Hex.appendPercentEncoded(byte, to: &out)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The local path of a `file:` URL (`file:///p`, `file://localhost/p`, `file:/p`),
    /// percent-decoded, without query or fragment; nil for another host or a malformed URL.
    ///
    /// Only for a `file:` URL the user typed (`--app-info`), so it is read leniently, as curl
    /// reads one: a space or another character RFC 3986 excludes stays part of the path
    /// (`file:///tmp/My Icons/appInfo.json`), which ``URLReference/parse(_:)`` would refuse.
    /// A `src` in a list goes through ``URLReference/resolveLocal(_:inFolder:)`` instead.
    static func path(ofFileURL url: String) -> String? {
        // The components as RFC 3986 Appendix B splits them (URLReference's scanner, no
        // character checked): the authority, user information included, is empty or localhost.
        let whole = Array(url.utf8)
        guard URLReference.scheme(of: url) == "file", let split = URLReference.Split(whole[...]) else { return nil }
        if let authority = split.authority {
            let host = String(decoding: whole[authority.range], as: UTF8.self).lowercased()
            guard host.isEmpty || host == "localhost" else { return nil }
        }
        var utf8 = whole[split.path]
        guard utf8.first == UInt8(ascii: "/") else { return nil }
        var bytes: [UInt8] = []
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard utf8.count >= 2, let high = Hex.value(utf8[utf8.startIndex]), let low = Hex.value(utf8[utf8.startIndex + 1]) else { return nil }
                utf8 = utf8.dropFirst(2)
                let decoded = high << 4 | low
                guard decoded != 0 else { return nil }  // a NUL cannot be in a path
                bytes.append(decoded)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
