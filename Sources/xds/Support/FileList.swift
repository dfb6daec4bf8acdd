#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDSSystem

/// `--files-from FILE|-` (SPEC §6b): file names read from a file or standard input,
/// NUL-separated as `find -print0` writes them, for programs that hand over a folder's entries
/// (a file manager) without a command line's length limit.
enum FileList {
    /// The most bytes a list may hold (a million names of 256 bytes).
    static let maximumSize = 256 << 20

    /// The names of the list at `path` (`-`: standard input), in order: NUL-separated, empty
    /// names skipped, the last NUL optional. A list that does not exist is 66, one that cannot
    /// be read (a folder, permission denied, over ``maximumSize``) 74.
    static func read(_ path: String) throws(BinaryFileError) -> [[UInt8]] {
        let name = path == "-" ? BinaryFile.standardInputName : path
        let file: ReadableFile
        do throws(Errno) {
            file = path == "-" ? try ReadableFile(standardInput: ()) : try ReadableFile(path)
        } catch {
            let missing = path != "-" && (error.rawValue == ENOENT || error.rawValue == ENOTDIR)
            throw BinaryFileError(path: name, reason: missing ? "no such file" : "cannot read the list of files: \(error.words)",
                                  status: missing ? .noInput : .ioError)
        }
        if file.isFolder {
            throw BinaryFileError(path: name, reason: "cannot read the list of files: it is a folder", status: .ioError)
        }
        let bytes: [UInt8]
        do throws(Errno) { bytes = try file.read(upTo: maximumSize + 1) } catch {
            throw BinaryFileError(path: name, reason: "cannot read the list of files: \(error.words)", status: .ioError)
        }
        guard bytes.count <= maximumSize else {
            throw BinaryFileError(path: name, reason: "the list of files is over \(ByteCount.words(maximumSize))",
                                  status: .ioError)
        }
        return names(in: bytes)
    }

    /// The NUL-separated names in `bytes`, empty ones skipped.
    static func names(in bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: 0, omittingEmptySubsequences: true).map(Array.init)
    }
}
