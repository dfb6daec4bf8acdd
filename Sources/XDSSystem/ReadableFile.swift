#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one bounded whole-file read of the project: an open file (or standard input) with its
/// `fstat`, read until it ends or a limit is reached, whatever the file claims its size is.
/// Used for `xds mask` inputs, local appInfo.json and icons, bundle files, cache entries and
/// AppleDouble sidecars; each caller maps the typed errors to its own error type and words.
///
/// The file is opened read-only, close-on-exec and without becoming a controlling terminal;
/// ``Options`` add `O_NOFOLLOW` (a symbolic link as the last component is refused with ELOOP)
/// and `O_NONBLOCK` (a FIFO or device named by mistake is not waited on; callers then refuse
/// it as not a regular file). The descriptor is closed when the object goes away.
package final class ReadableFile {
    /// How to open the file.
    package struct Options: OptionSet, Sendable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }
        /// `O_NOFOLLOW`: a symbolic link as the last component fails with ELOOP.
        package static let noFollow = Options(rawValue: O_NOFOLLOW)
        /// `O_NONBLOCK`: opening a FIFO does not wait for a writer.
        package static let nonBlocking = Options(rawValue: O_NONBLOCK)
    }

    /// Why ``readWhole(limit:)`` gave no bytes.
    package enum Refusal: Error, Sendable {
        /// The file is a folder.
        case folder
        /// The file is neither a folder nor a regular file (a FIFO, device, socket).
        case notRegular
        /// The file's size, over the limit, before anything was read.
        case tooLarge(size: Int)
        /// The file grew past the limit while it was read.
        case grew
        /// The system refused the open, `fstat` or a read.
        case failed(Errno)
    }

    /// The open descriptor.
    package let descriptor: Int32
    /// Its `fstat`, taken when it was opened.
    package let info: stat
    private let owned: Bool

    /// Opens `path` (relative to the open folder `folder`, `AT_FDCWD` for the current one).
    package init(_ path: UnsafePointer<CChar>, relativeTo folder: Int32 = AT_FDCWD, options: Options = []) throws(Errno) {
        (descriptor, info) = try Self.open(path, folder, options).get()
        owned = true
    }

    /// Opens `path` (relative to the open folder `folder`, `AT_FDCWD` for the current one).
    package init(_ path: String, relativeTo folder: Int32 = AT_FDCWD, options: Options = []) throws(Errno) {
        (descriptor, info) = try path.withCString { Self.open($0, folder, options) }.get()
        owned = true
    }

    private static func open(_ path: UnsafePointer<CChar>, _ folder: Int32, _ options: Options) -> Result<(Int32, stat), Errno> {
        let fd = SystemCall.retrying { openat(folder, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | options.rawValue) }
        guard fd >= 0 else { return .failure(.current) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = Errno.current
            SystemCall.close(fd)
            return .failure(error)
        }
        return .success((fd, info))
    }

    /// Standard input (left open when the object goes away).
    package init(standardInput: Void) throws(Errno) {
        var info = stat()
        guard fstat(0, &info) == 0 else { throw Errno.current }
        self.descriptor = 0
        self.info = info
        self.owned = false
    }

    deinit {
        if owned { SystemCall.close(descriptor) }
    }

    /// Whether the file is a regular file.
    package var isRegular: Bool { info.st_mode & S_IFMT == S_IFREG }
    /// Whether the file is a folder.
    package var isFolder: Bool { info.st_mode & S_IFMT == S_IFDIR }
    /// The size `fstat` gave (meaningful for a regular file).
    package var size: Int { Int(info.st_size) }

    /// Reads on from where the last read stopped, appending to `bytes` until the file ends or
    /// `bytes` holds `limit` bytes; bytes past the limit are never read, so an endless stream
    /// (`/dev/zero`, a pipe that never closes) costs at most the limit. A regular file is read
    /// into one buffer of its size plus one byte (to notice growth); pipes and devices into a
    /// buffer that starts at 64 KiB and doubles.
    package func read(into bytes: inout [UInt8], upTo limit: Int) throws(Errno) {
        var capacity = isRegular ? min(max(size, bytes.count) + 1, limit) : min(max(1 << 16, bytes.count + 1), limit)
        while bytes.count < limit {
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: capacity - start))
            let fd = descriptor
            let outcome = bytes.withUnsafeMutableBytes { buffer -> Result<Int, Errno> in
                do throws(Errno) {
                    return .success(try SystemCall.readFully(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[start...])))
                } catch {
                    return .failure(error)
                }
            }
            let count: Int
            switch outcome {
            case .success(let n): count = n
            case .failure(let error):
                bytes.removeSubrange(start...)
                throw error
            }
            bytes.removeSubrange((start + count)...)
            if start + count < capacity { return }
            capacity = min(capacity * 2, limit)
        }
    }

    /// The file's bytes from where the last read stopped, at most `limit` of them.
    package func read(upTo limit: Int) throws(Errno) -> [UInt8] {
        var bytes: [UInt8] = []
        try read(into: &bytes, upTo: limit)
        return bytes
    }

    /// The whole of a regular file of at most `limit` bytes: anything else is refused before
    /// a byte is read (a folder, a FIFO or device, a file whose size is over the limit), and a
    /// file that grows past the limit while it is read is refused too.
    package func readWhole(limit: Int) throws(Refusal) -> [UInt8] {
        guard isRegular else { throw isFolder ? .folder : .notRegular }
        guard size <= limit else { throw .tooLarge(size: size) }
        let bytes: [UInt8]
        do throws(Errno) { bytes = try read(upTo: limit + 1) } catch { throw .failed(error) }
        guard bytes.count <= limit else { throw .grew }
        return bytes
    }

    /// Opens the file at `path` and reads it whole (``readWhole(limit:)``); a failed open is
    /// ``Refusal/failed(_:)``.
    package static func readWhole(_ path: String, limit: Int, options: Options = []) throws(Refusal) -> [UInt8] {
        let file: ReadableFile
        do throws(Errno) { file = try ReadableFile(path, options: options) } catch { throw .failed(error) }
        return try file.readWhole(limit: limit)
    }
}
