#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one EINTR policy of the project and the read/write loops built on it: every system
/// call that can be interrupted is retried, and errno is captured right after the final try.
package enum SystemCall {
    /// Repeats `call` while it fails with EINTR and returns its result: `-1`-style failures
    /// leave `errno` as the last try set it.
    @inline(__always)
    package static func retrying<R: BinaryInteger>(_ call: () -> R) -> R {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }

    /// Writes all of `buffer` to `fd`, retrying short writes and EINTR.
    package static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(Errno) {
        var done = 0
        while done < buffer.count {
            let n = retrying { write(fd, buffer.baseAddress! + done, buffer.count - done) }
            if n < 0 { throw Errno.current }
            if n == 0 { throw Errno(rawValue: EIO) }
            done += n
        }
    }

    /// Writes all of `bytes` to `fd`.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) {
        // withUnsafeBytes rethrows untyped errors, so carry the outcome out as a Result.
        let outcome = bytes.withUnsafeBytes { buffer -> Result<Void, Errno> in
            do throws(Errno) { try writeAll(fd, buffer) } catch { return .failure(error) }
            return .success(())
        }
        try outcome.get()
    }

    /// Reads from `fd` into `buffer` until it is full or the file ends; returns the count read.
    package static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        var count = 0
        while count < buffer.count {
            let n = retrying { read(fd, buffer.baseAddress! + count, buffer.count - count) }
            if n < 0 { throw Errno.current }
            if n == 0 { break }
            count += n
        }
        return count
    }

    /// Closes `fd`, ignoring EINTR (on Linux the descriptor is gone either way; retrying
    /// could close another thread's new descriptor).
    package static func close(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }
}
