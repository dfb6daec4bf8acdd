#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import CXattr
internal import XDSSystem

/// Which of the names the stores read a file has, from one `llistxattr` call.
struct AttributeNames: Equatable {
    /// `user.x-document-source` (``DocumentSourceFile/attributeName``).
    var native = false
    /// One of Samba's stream names (``SambaStream/attributeNames``).
    var samba = false

    /// Whether any store name is there.
    var any: Bool { native || samba }
}

extension ExtendedAttributes {
    /// The store names among the attributes of the C path `path` (a symbolic link is not
    /// followed unless `follow`), in one `llistxattr` call (a second one, with the largest
    /// buffer, only when the list is longer than `buffer`). Throws the errno; a filesystem
    /// without extended attributes has none (ENOTSUP reads as an empty list).
    /// The corresponding C functions are `llistxattr(2)` and `listxattr(2)`.
    static func storeNames(
        atPath path: UnsafePointer<CChar>, follow: Bool, buffer: inout [CChar]
    ) throws(Errno) -> AttributeNames {
        var size = list(path, follow, &buffer)
        if size < 0 && errno == ERANGE {
            buffer = [CChar](repeating: 0, count: 65_536)  // XATTR_LIST_MAX
            size = list(path, follow, &buffer)
        }
        if size < 0 {
            let code = Errno.current
            if code.isNotSupported { return AttributeNames() }
            throw code
        }
        var names = AttributeNames()
        buffer.withUnsafeBufferPointer { list in
            list.withMemoryRebound(to: UInt8.self) { bytes in
                var start = 0
                while start < size {
                    var end = start
                    while end < size && bytes[end] != 0 { end += 1 }
                    let name = UnsafeBufferPointer(rebasing: bytes[start..<end])
                    if name.elementsEqual(nativeName) {
                        names.native = true
                    } else if sambaNames.contains(where: { name.elementsEqual($0) }) {
                        names.samba = true
                    }
                    start = end + 1
                }
            }
        }
        return names
    }

    private static let nativeName = Array(DocumentSourceFile.attributeName.utf8)
    private static let sambaNames = SambaStream.attributeNames.map { Array($0.utf8) }

    private static func list(_ path: UnsafePointer<CChar>, _ follow: Bool, _ buffer: inout [CChar]) -> Int {
        let capacity = buffer.count
        return buffer.withUnsafeMutableBufferPointer { out in
            SystemCall.retrying {
                #if canImport(Darwin)
                listxattr(path, out.baseAddress, capacity, follow ? 0 : XATTR_NOFOLLOW)
                #else
                follow ? listxattr(path, out.baseAddress, capacity) : llistxattr(path, out.baseAddress, capacity)
                #endif
            }
        }
    }

    /// Reads `name` on the C path `path` with ``value(named:atPath:followSymlinks:get:)``'s
    /// probe-and-read loop; nil when it is not set.
    static func value(named name: String, atCPath path: [CChar], follow: Bool) throws(ExtendedAttributeFailure) -> [UInt8]? {
        try value(named: name, atPath: "", followSymlinks: follow) { _, name, buffer, size, follow in
            path.withUnsafeBufferPointer { p in
                #if canImport(Darwin)
                getxattr(p.baseAddress!, name, buffer, size, 0, follow ? 0 : XATTR_NOFOLLOW)
                #else
                follow ? getxattr(p.baseAddress!, name, buffer, size) : lgetxattr(p.baseAddress!, name, buffer, size)
                #endif
            }
        }
    }

    /// Removes `name` from the open file `fd`; false when it was not set.
    /// The corresponding C function is `fremovexattr(2)`.
    static func removeValue(named name: String, descriptor fd: Int32) throws(ExtendedAttributeFailure) -> Bool {
        let result = SystemCall.retrying {
            #if canImport(Darwin)
            fremovexattr(fd, name, 0)
            #else
            fremovexattr(fd, name)
            #endif
        }
        if result < 0 {
            let code = errno
            if isMissing(code) { return false }
            throw ExtendedAttributeFailure(code: code)
        }
        return true
    }

    /// Removes `name` from the C path `path` (not following a symbolic link); false when it
    /// was not set. For files that cannot be opened to be locked.
    static func removeValue(named name: String, atCPath path: [CChar]) throws(ExtendedAttributeFailure) -> Bool {
        let result = path.withUnsafeBufferPointer { p in
            SystemCall.retrying {
                #if canImport(Darwin)
                removexattr(p.baseAddress!, name, XATTR_NOFOLLOW)
                #else
                lremovexattr(p.baseAddress!, name)
                #endif
            }
        }
        if result < 0 {
            let code = errno
            if isMissing(code) { return false }
            throw ExtendedAttributeFailure(code: code)
        }
        return true
    }
}
