#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// One folder's listing, read once with `readdir`: names as bytes in one buffer, with their
/// `d_type` (compact: a few bytes per entry beyond the name).
struct FolderListing {
    private var names: [UInt8] = []
    private var starts: [Int32] = []
    private var types: [UInt8] = []

    /// Reads every entry of `directory` (without `.` and `..`), or the errno of a failed read.
    static func read(_ directory: OpaquePointer) -> Result<FolderListing, Errno> {
        var listing = FolderListing()
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { return .failure(.current) }
                return .success(listing)
            }
            let raw = UnsafeRawPointer(entry) + nameOffset
            let length = strlen(raw.assumingMemoryBound(to: CChar.self))
            let name = UnsafeBufferPointer(start: raw.assumingMemoryBound(to: UInt8.self), count: length)
            if (length == 1 && name[0] == 0x2E) || (length == 2 && name[0] == 0x2E && name[1] == 0x2E) { continue }
            listing.starts.append(Int32(listing.names.count))
            listing.names.append(contentsOf: name)
            listing.types.append(entry.pointee.d_type)
        }
    }

    /// glibc's `getdents64` (2.30 and later; not in Swift's Glibc module), nil elsewhere.
    private typealias GetDents = @convention(c) (Int32, UnsafeMutableRawPointer?, Int) -> Int
    private static let getdents: GetDents? = {
        #if os(Linux)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0) /* RTLD_DEFAULT */, "getdents64") else { return nil }
        return unsafeBitCast(symbol, to: GetDents.self)
        #else
        return nil
        #endif
    }()

    /// The size of a buffer for ``read(_:buffer:)``.
    static let bufferSize = 32 * 1024

    /// Reads every entry of the open folder `fd` (without `.` and `..`) with `getdents64` into
    /// `buffer` (``bufferSize`` bytes, the walker's own: no stream allocated and freed per
    /// folder, whose 32 KB were mapped and unmapped each time), else through a stream on a
    /// second descriptor; or the errno of a failed read. `fd` stays open, at the listing's end.
    static func read(_ fd: Int32, buffer: UnsafeMutableRawPointer) -> Result<FolderListing, Errno> {
        guard let getdents else {
            let listed = fcntl(fd, F_DUPFD_CLOEXEC, 0)
            guard listed >= 0 else { return .failure(.current) }
            guard let directory = fdopendir(listed) else {
                let error = Errno.current
                SystemCall.close(listed)
                return .failure(error)
            }
            defer { closedir(directory) }
            return read(directory)
        }
        var listing = FolderListing()
        while true {
            let count = getdents(fd, buffer, bufferSize)
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.current)
            }
            if count == 0 { return .success(listing) }
            var at = 0
            while at < count {
                // struct linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name.
                let length = Int(buffer.load(fromByteOffset: at + 16, as: UInt16.self))
                let type = buffer.load(fromByteOffset: at + 18, as: UInt8.self)
                let raw = buffer + at + 19
                let nameLength = strlen(raw.assumingMemoryBound(to: CChar.self))
                let name = UnsafeBufferPointer(start: raw.assumingMemoryBound(to: UInt8.self), count: nameLength)
                at += length
                if (nameLength == 1 && name[0] == 0x2E) || (nameLength == 2 && name[0] == 0x2E && name[1] == 0x2E) { continue }
                listing.starts.append(Int32(listing.names.count))
                listing.names.append(contentsOf: name)
                listing.types.append(type)
            }
        }
    }

    var indices: Range<Int> { 0..<starts.count }

    func name(at index: Int) -> ArraySlice<UInt8> {
        let end = index + 1 < starts.count ? Int(starts[index + 1]) : names.count
        return names[Int(starts[index])..<end]
    }

    func type(at index: Int) -> UInt8 { types[index] }

    /// The names that have an AppleDouble sidecar `._NAME` in this listing (a regular file, or
    /// an entry of unknown type); empty, and free, when there is none.
    func sidecarNames() -> Set<[UInt8]> {
        var result = Set<[UInt8]>()
        for index in indices {
            let name = name(at: index)
            guard name.count > 2, name.first == 0x2E, name[name.startIndex + 1] == 0x5F else { continue }
            let type = types[index]
            guard type == DT_REG || type == DT_UNKNOWN else { continue }
            result.insert(Array(name.dropFirst(2)))
        }
        return result
    }

    /// The companion files `NAME` + `suffix` of this listing (regular files, or entries of
    /// unknown type; NAME not empty), by NAME (XDSProvenance's `NAME:Zone.Identifier`: the
    /// suffix is the reader's, a layer above); empty, and nearly free (one byte compared per
    /// name), when there is none.
    func companions(suffix: [UInt8]) -> Companions {
        var result = Companions()
        guard let last = suffix.last else { return result }
        result.lastByte = last
        for index in indices {
            let type = types[index]
            guard type == DT_REG || type == DT_UNKNOWN else { continue }
            let name = name(at: index)
            guard name.count > suffix.count, name.last == last, name.suffix(suffix.count).elementsEqual(suffix)
            else { continue }
            result.byOwner[Array(name.dropLast(suffix.count))] = Array(name)
            result.names.insert(Array(name))
        }
        return result
    }

    /// The companion files of a listing: each one's name by the name it belongs to.
    struct Companions {
        var byOwner: [[UInt8]: [UInt8]] = [:]
        var names = Set<[UInt8]>()
        /// The suffix's last byte: a name that does not end in it is none of them.
        var lastByte: UInt8 = 0

        var isEmpty: Bool { byOwner.isEmpty }

        /// Whether `name` is one of the companion files (cheap for a name that does not end as
        /// they do).
        func isCompanion(_ name: ArraySlice<UInt8>) -> Bool {
            guard name.last == lastByte else { return false }
            return names.contains(Array(name))
        }
    }

    /// Whether an entry is never a document: `._NAME` sidecars and `.DS_Store`.
    static func isSkipped(_ name: ArraySlice<UInt8>) -> Bool {
        if name.count >= 2, name.first == 0x2E, name[name.startIndex + 1] == 0x5F { return true }
        return name.elementsEqual(dsStore)
    }

    private static let dsStore = Array(".DS_Store".utf8)
}
