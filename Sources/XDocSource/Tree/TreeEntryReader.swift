#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem

/// Reads the value of one entry met in a walk, from the stores its attribute list and its
/// folder's listing say are there, with the messages of ``DocumentSourceFile/read()``.
struct TreeEntryReader {
    let path: DocumentSourceTreePath
    /// The C path for the attribute calls (NUL-terminated).
    let access: [CChar]
    let follow: Bool

    private var owner: DocumentSourceFile { DocumentSourceFile(path: path.lossyString, followSymlinks: false) }

    /// The value of the native attribute or else a Samba stream, when `names` lists one.
    func attributeValue(_ names: AttributeNames) throws(DocumentSourceFileError) -> StoredDocumentSource? {
        if names.native, let bytes = try read(DocumentSourceFile.attributeName), bytes != [0] {
            return StoredDocumentSource(
                source: try decode(bytes, from: DocumentSourceFile.attributeName),
                store: .xattr, location: DocumentSourceFile.attributeName)
        }
        guard names.samba else { return nil }
        for name in SambaStream.attributeNames {
            // Samba creates a stream as one NUL byte before the client writes to it: empty.
            guard let bytes = try read(name), !bytes.isEmpty, bytes != [0] else { continue }
            return StoredDocumentSource(source: try decode(bytes, from: name), store: .sambaStream, location: name)
        }
        return nil
    }

    private func read(_ name: String) throws(DocumentSourceFileError) -> [UInt8]? {
        do {
            return try ExtendedAttributes.value(named: name, atCPath: access, follow: follow)
        } catch {
            throw owner.readError(error)
        }
    }

    private func decode(_ bytes: [UInt8], from location: String) throws(DocumentSourceFileError) -> DocumentSource {
        let owner = owner
        return try SambaStream.decode(bytes) { (value) throws(DocumentSourceFileError) in
            try owner.decodeValue(value, from: location)
        }
    }

    /// The `x-document-source` entry of the AppleDouble file `name` in the open folder `folder`
    /// (`AT_FDCWD` for a path), or nil when it is gone, not a regular file, or has no entry.
    func sidecarValue(
        folder: Int32, name: [UInt8], label: DocumentSourceTreePath
    ) throws(DocumentSourceFileError) -> StoredDocumentSource? {
        let location = label.lossyString
        return try owner.sidecarValue(folder: folder, name: name, checkFirst: false) { location }
    }
}
