#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// The cache folder on disk: one file per entry, named by the SHA-256 of the request URL
/// (`<64 hex digits>.entry`), holding the ``HTTPCacheEntry`` whole.
///
/// Writes go through XDocSource's `AtomicFile` (a temporary file in the same folder, mode 0600,
/// renamed over the entry), so a reader, a concurrent writer or a killed run never sees a
/// torn entry. On Linux the temporary file has no name until it is renamed, so nothing is left
/// behind; elsewhere a killed run may leave a `.xds-cache-PID-RANDOM` file, which readers never
/// open and ``removeStaleTemporaries(now:olderThan:)`` deletes once its process is gone and it
/// is an hour old (as it does the `<hex>.tmp.XXXXXX` files earlier versions left). No `fsync`:
/// an entry cut short by a power failure fails to decode and counts as absent, which is all a
/// cache needs.
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

    /// Stores `entry` under its request URL, atomically (XDocSource's `AtomicFile`), creating the folder
    /// (mode 0700) if it is missing.
    /// - Throws: ``WriteFailure`` naming the folder (no folder, no temporary file there) or the
    ///   entry path (the write or rename failed, e.g. when a folder stands where the entry goes).
    func write(_ entry: HTTPCacheEntry) throws(WriteFailure) {
        do throws(Errno) { try makeDirectory(directory) } catch { throw WriteFailure(path: directory, error: error) }
        let destination = path(for: entry.requestURL)
        var file: AtomicFile
        do throws(AtomicFileError) {
            file = try AtomicFile.begin(destination, in: AT_FDCWD, purpose: "cache", options: Self.fileOptions)
        } catch {
            throw WriteFailure(path: error.errorNumber == EISDIR ? destination : directory, error: Errno(rawValue: error.errorNumber))
        }
        do throws(AtomicFileError) { try file.commit(entry.encoded()) } catch {
            throw WriteFailure(path: destination, error: Errno(rawValue: error.errorNumber))
        }
    }

    /// Entries are private (0600), replace whatever is at their path, and are not flushed.
    private static let fileOptions = AtomicFile.Options(replacingLinks: true, newFileMode: 0o600, keepingOwnerAndMode: false)

    /// Deletes the entry for `url` if there is one (a `no-store` response replaced it).
    func remove(_ url: String) {
        unlink(path(for: url))
    }

    /// Deletes temporary files left by killed runs that are older than `age` seconds (younger
    /// ones may belong to a run still writing): `.xds-cache-PID-RANDOM` files whose process is
    /// gone, and the `<hex>.tmp.XXXXXX` files of earlier versions.
    func removeStaleTemporaries(now: Int64, olderThan age: Int64 = 3600) {
        guard let folder = opendir(directory) else { return }
        defer { closedir(folder) }
        while let item = readdir(folder) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if let pid = TemporaryFile.stalePid(name) {
                guard kill(pid, 0) != 0 && errno == ESRCH else { continue }
            } else {
                guard name.contains(".tmp."), !name.hasPrefix(".") else { continue }
            }
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
