#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDocSource
import XDSSystem

/// Why a file could not be read or written; `description` is one line in words, and
/// `status` is the exit status SPEC §5 gives the failure (66 missing, 65 bad data, 74 I/O).
struct BinaryFileError: Error, CustomStringConvertible {
    /// The file, as the user named it.
    let path: String
    /// What went wrong, in words (no bare errno numbers).
    let reason: String
    /// The exit status for this failure.
    let status: ExitStatus

    var description: String { "\(path): \(reason)" }

    /// The error for a failed read of an input: `operation` says what failed ("cannot read", …).
    static func reading(_ code: Errno, path: String, operation: String) -> BinaryFileError {
        switch code.rawValue {
        case ENOENT, ENOTDIR:
            return BinaryFileError(path: path, reason: "no such file", status: .noInput)
        case EISDIR:
            return BinaryFileError(path: path, reason: "is a folder, not a file", status: .noInput)
        default:
            return BinaryFileError(path: path, reason: "\(operation): \(code.words)", status: .ioError)
        }
    }

    /// The error for a failed write (74).
    static func writing(_ code: Errno, path: String, operation: String = "cannot write") -> BinaryFileError {
        BinaryFileError(path: path, reason: "\(operation): \(code.words)", status: .ioError)
    }
}

extension BinaryFileError {
    /// The error for a failed `AtomicFile` write (74), in the library's words.
    init(_ error: AtomicFileError) {
        self.init(path: error.path, reason: error.message, status: .ioError)
    }
}

/// Whole-file reads and writes with plain system calls (through XDSSystem's one EINTR
/// policy): no Foundation, so `xds mask` starts fast.
enum BinaryFile {
    /// The name `-` stands for standard input (or output) and is shown as this in messages.
    static let standardInputName = "standard input"

    /// Reads the file at `path` (`-`: standard input) in two steps: its first `prefixCount`
    /// bytes (fewer if it is shorter), which `bound` checks and turns into the most bytes the
    /// whole file can plausibly need; then the rest, up to that many bytes in all. Bytes past
    /// the bound are not read, so an endless stream (`/dev/zero`, a pipe that never closes
    /// after the data) costs at most the bound.
    static func readBounded(_ path: String, prefixCount: Int,
                            bound: ([UInt8]) throws(BinaryFileError) -> Int) throws(BinaryFileError) -> [UInt8] {
        let name = path == "-" ? standardInputName : path
        let file: ReadableFile
        do throws(Errno) {
            file = path == "-" ? try ReadableFile(standardInput: ()) : try ReadableFile(path)
        } catch {
            // A failed fstat of standard input is a failed read; a failed open (or fstat after it) an open.
            throw .reading(error, path: name, operation: path == "-" ? "cannot read" : "cannot open")
        }
        if file.isFolder { throw .reading(Errno(rawValue: EISDIR), path: name, operation: "cannot read") }
        var bytes: [UInt8] = []
        do throws(Errno) { try file.read(into: &bytes, upTo: prefixCount) } catch {
            throw .reading(error, path: name, operation: "cannot read")
        }
        let limit = try bound(bytes)
        guard bytes.count == prefixCount, limit > bytes.count else { return bytes }
        do throws(Errno) { try file.read(into: &bytes, upTo: limit) } catch {
            throw .reading(error, path: name, operation: "cannot read")
        }
        return bytes
    }

    /// Writes `bytes` to standard output.
    static func writeStandardOutput(_ bytes: [UInt8]) throws(BinaryFileError) {
        do throws(Errno) { try SystemCall.writeAll(1, bytes) } catch {
            throw .writing(error, path: "standard output")
        }
    }

    /// Whether standard output is a terminal (where PNG bytes must not go).
    static var standardOutputIsTerminal: Bool { isatty(1) != 0 }

    /// Whether `path` names an existing terminal (`/dev/tty`, `/dev/stdout` on a terminal):
    /// only character devices are opened to ask, without becoming the controlling terminal.
    static func isTerminal(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFCHR else { return false }
        let fd = SystemCall.retrying { open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { return false }
        defer { SystemCall.close(fd) }
        return isatty(fd) != 0
    }
}
