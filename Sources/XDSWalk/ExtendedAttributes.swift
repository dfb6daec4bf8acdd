#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("Unsupported platform: xds needs <sys/xattr.h>")
#endif
internal import CXattr
package import XDSSystem

/// A failed extended-attribute call: the C function's errno, read right after the call.
package struct ExtendedAttributeFailure: Error, Equatable {
    /// The errno value the call left behind.
    package var code: Int32

    package init(code: Int32) { self.code = code }
}

/// Thin wrappers over the platform's extended-attribute calls.
///
/// This is the only file that calls the C functions of `<sys/xattr.h>`; their signatures differ
/// between Linux (`lgetxattr` & co.) and Darwin (`position`/`options` arguments), which stays
/// hidden here. Every call retries on `EINTR` (XDSSystem's `SystemCall.retrying`).
package enum ExtendedAttributes {
    /// The largest value we read or write: the Linux limit for one value (`XATTR_SIZE_MAX`).
    package static let maximumValueSize = 65_536

    /// Whether `code` means "this attribute is not set" (ENODATA on Linux, ENOATTR on Darwin).
    /// What a `removexattr`-family call's result says: removed (true), not set (false), or
    /// the failure in `errno`.
    private static func removed(_ result: Int32) throws(ExtendedAttributeFailure) -> Bool {
        guard result < 0 else { return true }
        let code = errno
        if isMissing(code) { return false }
        throw ExtendedAttributeFailure(code: code)
    }

    package static func isMissing(_ code: Int32) -> Bool {
        Errno(rawValue: code).isMissingAttribute
    }

    /// Reads the value of `name` on `path`, or nil when the attribute is not set.
    ///
    /// A first read goes straight into a 4 KiB buffer (values are a few hundred bytes: one call
    /// where a probe would take two); a longer value (`ERANGE`) gets a size probe, then the
    /// read into a buffer of that size, and if the value grew in between both steps are
    /// repeated. Values over ``maximumValueSize`` are refused with `E2BIG` before anything is
    /// allocated for them.
    /// The corresponding C functions are `getxattr(2)` and `lgetxattr(2)`.
    /// - Parameter get: the `getxattr` call; tests pass a fake to force `ERANGE` and `EINTR`.
    package static func value(
        named name: String, atPath path: String, followSymlinks: Bool,
        get: Getter = ExtendedAttributes.systemGet
    ) throws(ExtendedAttributeFailure) -> [UInt8]? {
        var firstFailure: Int32 = 0
        let first = [UInt8](unsafeUninitializedCapacity: firstReadSize) { buffer, count in
            let read = SystemCall.retrying { get(path, name, buffer.baseAddress, firstReadSize, followSymlinks) }
            if read < 0 { firstFailure = errno }
            count = max(read, 0)
        }
        if firstFailure == 0 { return first }
        if isMissing(firstFailure) { return nil }
        if firstFailure != ERANGE { throw ExtendedAttributeFailure(code: firstFailure) }
        for _ in 0..<8 {
            let probed = SystemCall.retrying { get(path, name, nil, 0, followSymlinks) }
            if probed < 0 {
                let code = errno
                if isMissing(code) { return nil }
                throw ExtendedAttributeFailure(code: code)
            }
            if probed > maximumValueSize { throw ExtendedAttributeFailure(code: E2BIG) }
            if probed == 0 { return [] }
            var failure: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: probed) { buffer, count in
                let read = SystemCall.retrying { get(path, name, buffer.baseAddress, probed, followSymlinks) }
                if read < 0 {
                    failure = errno
                    count = 0
                } else {
                    count = read
                }
            }
            if failure == 0 { return bytes }
            if failure == ERANGE { continue }  // grew between probe and read: probe again
            if isMissing(failure) { return nil }  // removed between probe and read
            throw ExtendedAttributeFailure(code: failure)
        }
        // A value that keeps changing size under us eight times in a row.
        throw ExtendedAttributeFailure(code: ERANGE)
    }

    /// The buffer of the first read in ``value(named:atPath:followSymlinks:get:)``.
    package static let firstReadSize = 4096

    /// Sets `name` on `path` to `value` in one call, creating or replacing it, so a reader
    /// sees either the old value or the new one, never a mixture.
    /// The corresponding C functions are `setxattr(2)` and `lsetxattr(2)`.
    package static func setValue(
        _ value: [UInt8], named name: String, atPath path: String, followSymlinks: Bool
    ) throws(ExtendedAttributeFailure) {
        let result = value.withUnsafeBytes { raw in
            SystemCall.retrying { set(path, name, raw.baseAddress, raw.count, followSymlinks) }
        }
        if result < 0 { throw ExtendedAttributeFailure(code: errno) }
    }

    /// Removes `name` from `path`; returns false when it was not set.
    /// The corresponding C functions are `removexattr(2)` and `lremovexattr(2)`.
    package static func removeValue(
        named name: String, atPath path: String, followSymlinks: Bool
    ) throws(ExtendedAttributeFailure) -> Bool {
        let result = SystemCall.retrying { remove(path, name, followSymlinks) }
        return try removed(result)
    }

    /// Whether the file is immutable or append-only (`chattr +i`, `chattr +a`), which makes
    /// Linux refuse attribute changes with `EPERM` even to root; nil when that cannot be told.
    package static func changeLocks(atPath path: String, followSymlinks: Bool) -> (immutable: Bool, appendOnly: Bool)? {
        var flags: UInt32 = 0
        guard cxattr_inode_flags(path, followSymlinks ? 1 : 0, &flags) == 0 else { return nil }
        return (flags & cxattr_immutable_flag != 0, flags & cxattr_append_only_flag != 0)
    }

    // MARK: - The C calls

    /// The shape of `getxattr`: path, name, buffer (nil to probe the size), buffer size,
    /// follow symlinks; returns the size or -1 with `errno` set.
    package typealias Getter = (String, String, UnsafeMutableRawPointer?, Int, Bool) -> Int

    package static func systemGet(
        _ path: String, _ name: String, _ buffer: UnsafeMutableRawPointer?, _ size: Int,
        _ follow: Bool
    ) -> Int {
        #if canImport(Darwin)
        getxattr(path, name, buffer, size, 0, follow ? 0 : XATTR_NOFOLLOW)
        #else
        follow ? getxattr(path, name, buffer, size) : lgetxattr(path, name, buffer, size)
        #endif
    }

    private static func set(
        _ path: String, _ name: String, _ value: UnsafeRawPointer?, _ size: Int, _ follow: Bool
    ) -> Int32 {
        #if canImport(Darwin)
        return setxattr(path, name, value, size, 0, follow ? 0 : XATTR_NOFOLLOW)
        #else
        // An empty buffer may come with a nil base address; the kernel wants a valid pointer.
        var empty: UInt8 = 0
        return withUnsafePointer(to: &empty) { fallback in
            let pointer = value ?? UnsafeRawPointer(fallback)
            return follow
                ? setxattr(path, name, pointer, size, 0) : lsetxattr(path, name, pointer, size, 0)
        }
        #endif
    }

    private static func remove(_ path: String, _ name: String, _ follow: Bool) -> Int32 {
        #if canImport(Darwin)
        return removexattr(path, name, follow ? 0 : XATTR_NOFOLLOW)
        #else
        return follow ? removexattr(path, name) : lremovexattr(path, name)
        #endif
    }
}

// MARK: - Listing, reading by C path, removing by descriptor (the tree walk)
extension ExtendedAttributes {
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

    /// Reads `name` on the C path `path` with ``value(named:atPath:followSymlinks:get:)``'s
    /// probe-and-read loop; nil when it is not set.
    package static func value(named name: String, atCPath path: [CChar], follow: Bool) throws(ExtendedAttributeFailure) -> [UInt8]? {
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

    /// Reads `name` on the entry whose name starts at `nameStart` in `cPath`, relative to the
    /// open folder `folder` (getxattrat: no path walk, any depth), with the same loop; throws
    /// ENOSYS when the kernel has no getxattrat (then read by path).
    package static func value(
        named name: String, inFolder folder: Int32, cPath: [CChar], nameStart: Int
    ) throws(ExtendedAttributeFailure) -> [UInt8]? {
        try value(named: name, atPath: "", followSymlinks: false) { _, name, buffer, size, _ in
            cPath.withUnsafeBufferPointer { p in cxattr_get_in_folder(folder, p.baseAddress! + nameStart, name, buffer, size) }
        }
    }

    /// ``value(named:atCPath:follow:)`` for a name given as NUL-ended C bytes (a name met in a
    /// list need not be UTF-8).
    package static func value(cName: [CChar], atCPath path: [CChar], follow: Bool) throws(ExtendedAttributeFailure) -> [UInt8]? {
        try value(named: "", atPath: "", followSymlinks: follow) { _, _, buffer, size, follow in
            path.withUnsafeBufferPointer { p in
                cName.withUnsafeBufferPointer { n in
                    #if canImport(Darwin)
                    getxattr(p.baseAddress!, n.baseAddress!, buffer, size, 0, follow ? 0 : XATTR_NOFOLLOW)
                    #else
                    follow
                        ? getxattr(p.baseAddress!, n.baseAddress!, buffer, size)
                        : lgetxattr(p.baseAddress!, n.baseAddress!, buffer, size)
                    #endif
                }
            }
        }
    }

    /// ``value(named:inFolder:cPath:nameStart:)`` for a name given as NUL-ended C bytes.
    package static func value(
        cName: [CChar], inFolder folder: Int32, cPath: [CChar], nameStart: Int
    ) throws(ExtendedAttributeFailure) -> [UInt8]? {
        try value(named: "", atPath: "", followSymlinks: false) { _, _, buffer, size, _ in
            cPath.withUnsafeBufferPointer { p in
                cName.withUnsafeBufferPointer { n in
                    cxattr_get_in_folder(folder, p.baseAddress! + nameStart, n.baseAddress!, buffer, size)
                }
            }
        }
    }

    /// Every attribute name of the C path `path` (a symbolic link is not followed unless
    /// `follow`) into `buffer`, NUL-ended names as the kernel lists them, in one `listxattr`
    /// call (a second one, with the largest buffer, only when the list is longer than
    /// `buffer`). Returns the list's size; throws the errno; a filesystem without extended
    /// attributes has none (ENOTSUP reads as an empty list).
    package static func listNames(
        atPath path: UnsafePointer<CChar>, follow: Bool, buffer: inout [UInt8]
    ) throws(Errno) -> Int {
        var size = listBytes(path, follow, &buffer)
        if size < 0 && errno == ERANGE {
            buffer = [UInt8](repeating: 0, count: 65_536)  // XATTR_LIST_MAX
            size = listBytes(path, follow, &buffer)
        }
        if size < 0 {
            let code = Errno.current
            if code.isNotSupported { return 0 }
            throw code
        }
        return size
    }

    /// ``listNames(atPath:follow:buffer:)`` for the entry `name` of the open folder `folder`,
    /// not following a symbolic link (listxattrat, Linux 6.13); nil when that call is not
    /// offered or fails in any way: the caller then asks by path, which also words any error.
    package static func listNames(inFolder folder: Int32, name: UnsafePointer<CChar>, buffer: inout [UInt8]) -> Int? {
        let capacity = buffer.count
        let size = buffer.withUnsafeMutableBytes { out in
            SystemCall.retrying {
                cxattr_list_in_folder(folder, name, out.baseAddress?.assumingMemoryBound(to: CChar.self), capacity)
            }
        }
        return size >= 0 ? size : nil
    }

    private static func listBytes(_ path: UnsafePointer<CChar>, _ follow: Bool, _ buffer: inout [UInt8]) -> Int {
        let capacity = buffer.count
        return buffer.withUnsafeMutableBytes { raw in
            let out = raw.baseAddress?.assumingMemoryBound(to: CChar.self)
            return SystemCall.retrying {
                #if canImport(Darwin)
                listxattr(path, out, capacity, follow ? 0 : XATTR_NOFOLLOW)
                #else
                follow ? listxattr(path, out, capacity) : llistxattr(path, out, capacity)
                #endif
            }
        }
    }

    /// Removes `name` from the open file `fd`; false when it was not set.
    /// The corresponding C function is `fremovexattr(2)`.
    package static func removeValue(named name: String, descriptor fd: Int32) throws(ExtendedAttributeFailure) -> Bool {
        let result = SystemCall.retrying {
            #if canImport(Darwin)
            fremovexattr(fd, name, 0)
            #else
            fremovexattr(fd, name)
            #endif
        }
        return try removed(result)
    }

    /// ``removeValue(named:descriptor:)`` for a name as exact bytes (NUL-ended C string).
    package static func removeValue(cName name: [CChar], descriptor fd: Int32) throws(ExtendedAttributeFailure) -> Bool {
        let result = name.withUnsafeBufferPointer { n in
            SystemCall.retrying {
                #if canImport(Darwin)
                fremovexattr(fd, n.baseAddress!, 0)
                #else
                fremovexattr(fd, n.baseAddress!)
                #endif
            }
        }
        return try removed(result)
    }

    /// Removes the attribute `name` (exact bytes, NUL-ended) from the C path `path`, following
    /// a symbolic link only when `follow`; false when it was not set. For files that cannot be
    /// opened to be locked.
    package static func removeValue(cName name: [CChar], atCPath path: [CChar], follow: Bool) throws(ExtendedAttributeFailure) -> Bool {
        let result = path.withUnsafeBufferPointer { p in
            name.withUnsafeBufferPointer { n in
                SystemCall.retrying {
                    #if canImport(Darwin)
                    removexattr(p.baseAddress!, n.baseAddress!, follow ? 0 : XATTR_NOFOLLOW)
                    #else
                    follow ? removexattr(p.baseAddress!, n.baseAddress!) : lremovexattr(p.baseAddress!, n.baseAddress!)
                    #endif
                }
            }
        }
        return try removed(result)
    }

    /// Removes `name` from the C path `path` (not following a symbolic link); false when it
    /// was not set. For files that cannot be opened to be locked.
    package static func removeValue(named name: String, atCPath path: [CChar]) throws(ExtendedAttributeFailure) -> Bool {
        let result = path.withUnsafeBufferPointer { p in
            SystemCall.retrying {
                #if canImport(Darwin)
                removexattr(p.baseAddress!, name, XATTR_NOFOLLOW)
                #else
                lremovexattr(p.baseAddress!, name)
                #endif
            }
        }
        return try removed(result)
    }
}

// MARK: - Every name (XDSProvenance reads every mark of a path)

extension ExtendedAttributes {
    /// Every attribute name of `path` (a symbolic link is not followed unless `follow`), in
    /// the order the filesystem lists them, from one `listxattr` call (a second one, with the
    /// largest buffer, only when the list is longer than 4 KiB); nil when the filesystem has
    /// no extended attributes (ENOTSUP). Throws the errno of any other failure.
    package static func allNames(atPath path: String, follow: Bool) throws(ExtendedAttributeFailure) -> [[UInt8]]? {
        var buffer = [CChar](repeating: 0, count: 4096)
        var size = path.withCString { list($0, follow, &buffer) }
        if size < 0 && errno == ERANGE {
            buffer = [CChar](repeating: 0, count: 65_536)  // XATTR_LIST_MAX
            size = path.withCString { list($0, follow, &buffer) }
        }
        if size < 0 {
            let code = errno
            if Errno(rawValue: code).isNotSupported { return nil }
            throw ExtendedAttributeFailure(code: code)
        }
        var names: [[UInt8]] = []
        var start = 0
        while start < size {
            var end = start
            while end < size && buffer[end] != 0 { end += 1 }
            if end > start { names.append(buffer[start..<end].map { UInt8(bitPattern: $0) }) }
            start = end + 1
        }
        return names
    }
}

// MARK: - A rewritten file keeps its own attributes (AppleDouble sidecars)

extension ExtendedAttributes {
    /// Gives the open file `destination` every extended attribute of the open file `source`
    /// (flistxattr(2), fgetxattr(2), fsetxattr(2)): a POSIX ACL is the attribute
    /// `system.posix_acl_access` (acl(5)), Samba's vfs_acl_xattr(8) keeps a share's NT ACL in
    /// `security.NTACL`; `trusted.*` is listed only to a process that may read it (xattr(7)).
    /// A value the destination holds already is not set again (a `security.selinux` label given
    /// at creation); an access ACL the destination got from its folder's default ACL (acl(5),
    /// "OBJECT CREATION AND DEFAULT ACLs") that the source lacks is removed. A name the process
    /// may not set (EPERM: `security.*` or `trusted.*` without CAP_SYS_ADMIN) is skipped, as is
    /// a filesystem without extended attributes; any other failure is thrown.
    package static func copyAll(from source: Int32, to destination: Int32) throws(ExtendedAttributeFailure) {
        var list = [UInt8](repeating: 0, count: 65_536)  // XATTR_LIST_MAX
        let size = list.withUnsafeMutableBytes { raw in
            SystemCall.retrying { cxattr_flist(source, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count) }
        }
        if size < 0 {
            if Errno.current.isNotSupported { return }
            throw ExtendedAttributeFailure(code: errno)
        }
        var hasAccessACL = false
        for name in list[..<size].split(separator: 0) {
            let cName = name.map { CChar(bitPattern: $0) } + [0]
            hasAccessACL = hasAccessACL || cName == accessACL
            guard let value = try value(of: cName, descriptor: source), try self.value(of: cName, descriptor: destination) != value
            else { continue }
            let result = value.withUnsafeBytes { bytes in
                cName.withUnsafeBufferPointer { n in
                    SystemCall.retrying { cxattr_fset(destination, n.baseAddress!, bytes.baseAddress ?? UnsafeRawPointer(n.baseAddress!), bytes.count) }
                }
            }
            let code = errno
            if result < 0 && code != EPERM { throw ExtendedAttributeFailure(code: code) }
        }
        guard !hasAccessACL, SystemCall.retrying({ cxattr_fremove(destination, accessACL) }) < 0 else { return }
        let code = errno
        if !isMissing(code) && code != EPERM && !Errno(rawValue: code).isNotSupported { throw ExtendedAttributeFailure(code: code) }
    }

    private static let accessACL: [CChar] = Array("system.posix_acl_access".utf8CString)

    /// The value of the attribute `name` (NUL-ended) of the open file `fd`; nil when it is not set.
    private static func value(of name: [CChar], descriptor fd: Int32) throws(ExtendedAttributeFailure) -> [UInt8]? {
        try value(named: "", atPath: "", followSymlinks: false) { _, _, buffer, size, _ in
            name.withUnsafeBufferPointer { n in cxattr_fget(fd, n.baseAddress!, buffer, size) }
        }
    }
}
