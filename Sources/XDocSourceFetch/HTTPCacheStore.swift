#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// The cache folder on disk: one file per entry, named by the SHA-256 of the request URL
/// (`<64 hex digits>.entry`), holding the ``HTTPCacheEntry`` whole.
///
/// Writes go to a new temporary file in the same folder (`<hex>.tmp.XXXXXX`, made by
/// `mkstemp`, mode 0600) that is renamed over the entry, so a reader, a concurrent writer or
/// a killed run never sees a torn entry: at worst a stray temporary file remains, which
/// readers never open and ``removeStaleTemporaries(now:olderThan:)`` deletes once it is an
/// hour old. No `fsync`: an entry cut short by a power failure fails to decode and counts as
/// absent, which is all a cache needs.
struct HTTPCacheStore: Sendable {
    /// The cache folder.
    let directory: String

    /// The path of the entry for `url`.
    func path(for url: String) -> String {
        directory + "/" + SHA256.hex(Array(url.utf8)) + ".entry"
    }

    /// The entry stored for `url`, or nil when there is none or it is unreadable, corrupt,
    /// impossible (see ``HTTPCacheEntry/decode(_:)``), for another URL, or has a body over
    /// `maximumBodySize` (all "absent": the next successful fetch replaces it).
    func read(_ url: String, maximumBodySize: Int) -> HTTPCacheEntry? {
        guard let file = try? ReadableFile(path(for: url), options: [.nonBlocking, .noFollow]) else { return nil }
        // Header room: two URLs and the headers; a few hundred KiB is generous.
        guard file.isRegular, file.size >= 0,
              Int64(file.size) <= Int64(max(0, maximumBodySize)).addingSaturated(1024 * 1024),
              let bytes = try? file.read(upTo: file.size + 1), bytes.count == file.size,
              let entry = HTTPCacheEntry.decode(bytes), entry.requestURL == url,
              entry.body.count <= maximumBodySize else { return nil }
        return entry
    }

    /// A write that failed: the path the system refused (the cache folder, a temporary file,
    /// or the entry itself, e.g. when a folder stands where the entry goes) and why.
    struct WriteFailure: Error, Equatable {
        /// The path the failing call was about.
        var path: String
        /// What the system said.
        var error: Errno
    }

    /// Stores `entry` under its request URL, atomically (temporary file + rename), creating
    /// the folder (mode 0700) if it is missing.
    /// - Throws: ``WriteFailure`` naming the folder, temporary file or entry path that failed.
    func write(_ entry: HTTPCacheEntry) throws(WriteFailure) {
        let temporary: String
        do throws(Errno) {
            temporary = try writeTemporary(entry)
        } catch {
            throw WriteFailure(path: directory, error: error)
        }
        let destination = path(for: entry.requestURL)
        do throws(Errno) {
            try commit(temporary, as: destination)
        } catch {
            throw WriteFailure(path: destination, error: error)
        }
    }

    /// The first half of ``write(_:)``: the entry's bytes in a new temporary file, whose path
    /// is returned. Separate so that tests can stop a run between the two halves.
    func writeTemporary(_ entry: HTTPCacheEntry) throws(Errno) -> String {
        try makeDirectory(directory)
        var template = Array((path(for: entry.requestURL).dropLast(".entry".count) + ".tmp.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw Errno.current }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = String(cString: template.map { UInt8(bitPattern: $0) })
        do throws(Errno) {
            try SystemCall.writeAll(fd, entry.encoded())
        } catch {
            SystemCall.close(fd)
            unlink(temporary)
            throw error
        }
        SystemCall.close(fd)
        return temporary
    }

    /// The second half of ``write(_:)``: renames `temporary` over `destination`.
    func commit(_ temporary: String, as destination: String) throws(Errno) {
        guard rename(temporary, destination) == 0 else {
            let error = Errno.current
            unlink(temporary)
            throw error
        }
    }

    /// Deletes the entry for `url` if there is one (a `no-store` response replaced it).
    func remove(_ url: String) {
        unlink(path(for: url))
    }

    /// Deletes temporary files left by killed runs that are older than `age` seconds (younger
    /// ones may belong to a run still writing).
    func removeStaleTemporaries(now: Int64, olderThan age: Int64 = 3600) {
        guard let folder = opendir(directory) else { return }
        defer { closedir(folder) }
        while let item = readdir(folder) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            guard name.contains(".tmp."), !name.hasPrefix(".") else { continue }
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            #if canImport(Darwin)
            let modified = Int64(info.st_mtimespec.tv_sec)
            #else
            let modified = Int64(info.st_mtim.tv_sec)
            #endif
            if modified < now.subtractingSaturated(age) { unlink(path) }
        }
    }

    /// `mkdir -p` with mode 0700 for each folder it creates (the XDG rule for cache folders).
    private func makeDirectory(_ path: String) throws(Errno) {
        if mkdir(path, 0o700) == 0 { return }
        let error = Errno.current
        if error.rawValue == EEXIST {
            var info = stat()
            guard stat(path, &info) == 0 else { throw Errno.current }
            if info.st_mode & S_IFMT != S_IFDIR { throw Errno(rawValue: ENOTDIR) }
            return
        }
        guard error.rawValue == ENOENT, let slash = path.lastIndex(of: "/"), slash != path.startIndex else { throw error }
        try makeDirectory(String(path[..<slash]))
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw Errno.current }
    }
}
