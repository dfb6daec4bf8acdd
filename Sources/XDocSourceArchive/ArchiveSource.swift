#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import CArchive
internal import XDSSystem

/// The file behind libarchive's read callbacks: our own `read(2)` loop, so a failing read is
/// told (with its errno) from bad archive data, and skips are `lseek`s on regular files.
final class ArchiveSource {
    let descriptor: Int32
    /// Raw memory, so the pointer handed to libarchive stays valid until the next read.
    let buffer: UnsafeMutableRawBufferPointer
    /// The errno of the first failed read, if any (an I/O error, not bad data).
    var readFailure: Errno?
    var canSeek = true
    /// The file's size: a skip never goes past it (lseek would, and hide a truncated archive).
    let size: Int64

    init(descriptor: Int32, size: Int64, blockSize: Int = 65_536) {
        self.descriptor = descriptor
        self.size = size
        self.buffer = .allocate(byteCount: blockSize, alignment: 16)
    }

    deinit { buffer.deallocate() }
}

// MARK: - libarchive callbacks (C function pointers: no captures; the source comes as client data)

func archiveRead(
    _ archive: OpaquePointer?, _ client: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UnsafeRawPointer?>?
) -> la_ssize_t {
    let source = Unmanaged<ArchiveSource>.fromOpaque(client!).takeUnretainedValue()
    let count = SystemCall.retrying { read(source.descriptor, source.buffer.baseAddress, source.buffer.count) }
    if count < 0 {
        source.readFailure = Errno.current
        carchive_set_error(archive, source.readFailure!.rawValue, "cannot read the archive")
        return -1
    }
    buffer?.pointee = UnsafeRawPointer(source.buffer.baseAddress)
    return la_ssize_t(count)
}

func archiveSkip(_ archive: OpaquePointer?, _ client: UnsafeMutableRawPointer?, _ request: la_int64_t) -> la_int64_t {
    let source = Unmanaged<ArchiveSource>.fromOpaque(client!).takeUnretainedValue()
    guard source.canSeek, request > 0 else { return 0 }
    let here = Int64(lseek(source.descriptor, 0, SEEK_CUR))
    // Up to the end only: libarchive reads (and finds the end) for the rest.
    let step = min(request, max(0, source.size - here))
    guard here >= 0, lseek(source.descriptor, off_t(step), SEEK_CUR) >= 0 else {
        source.canSeek = false  // libarchive then reads and discards
        return 0
    }
    return step
}
