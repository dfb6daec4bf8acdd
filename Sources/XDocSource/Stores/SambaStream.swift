/// Samba's `vfs_streams_xattr` storage of the named stream `x-document-source`.
///
/// A Mac saving onto a Samba share sends extended attributes as alternate data streams, which
/// Samba keeps as `user.DosStream.<stream>:$DATA` (or without `:$DATA` when
/// `streams_xattr:store_stream_type = no`), and it stores every stream with one extra NUL byte
/// (Samba's source3/modules/vfs_streams_xattr.c, `streams_xattr_get_name` and its pwrite).
package enum SambaStream {
    /// The attribute names to try, in order (Linux only: macOS's SMB client maps streams
    /// back to plain attribute names itself).
    package static var attributeNames: [String] {
        #if os(Linux)
        return ["user.DosStream.x-document-source:$DATA", "user.DosStream.x-document-source"]
        #else
        return []
        #endif
    }

    /// Decodes a stream value: as it is first, then, only if that fails and it ends in a NUL,
    /// without that one byte (ksmbd and other servers may not append one). The native
    /// attribute is read the same way: Netatalk's `ea = samba` and Samba's
    /// `streams_xattr:prefix = user.` store it under that name with the NUL.
    package static func decode<T, E: Error>(
        _ value: [UInt8], with decode: ([UInt8]) throws(E) -> T
    ) throws(E) -> T {
        do {
            return try decode(value)
        } catch {
            guard value.last == 0 else { throw error }
            return try decode(Array(value.dropLast()))
        }
    }
}
