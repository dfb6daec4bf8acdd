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
    /// The open folder the entry is in and where its name starts in ``access``: values are
    /// read relative to it (the folder the walk listed, wherever it is now) when the kernel
    /// can (Linux 6.13), else by ``access``.
    var folder: (descriptor: Int32, nameStart: Int)? = nil

    private var owner: DocumentSourceFile { DocumentSourceFile(path: path.lossyString, followSymlinks: false) }

    /// The value of the entry, from the stores `names` lists and then the sidecar `._NAME` in
    /// the open folder `sidecarFolder` (none: no sidecar is looked for), in the one store
    /// order (``DocumentSourceFile/firstStored(lookUp:sidecar:)``).
    func value(
        _ names: AttributeNames, sidecarFolder: Int32?, name: ArraySlice<UInt8>, label: DocumentSourceTreePath?
    ) throws(DocumentSourceFileError) -> StoredDocumentSource? {
        try owner.firstStored(
            lookUp: { (attribute) throws(DocumentSourceFileError) -> DocumentSourceFile.Lookup in
                guard attribute == DocumentSourceFile.attributeName ? names.native : names.samba,
                    let bytes = try read(attribute)
                else { return .absent }
                return .found(bytes)
            },
            sidecar: { () throws(DocumentSourceFileError) -> StoredDocumentSource? in
                guard let sidecarFolder, let label else { return nil }
                return try sidecarValue(folder: sidecarFolder, name: [UInt8(ascii: "."), UInt8(ascii: "_")] + name, label: label)
            }
        ).0
    }

    private func read(_ name: String) throws(DocumentSourceFileError) -> [UInt8]? {
        if let folder, !follow {
            do {
                return try ExtendedAttributes.value(
                    named: name, inFolder: folder.descriptor, cPath: access, nameStart: folder.nameStart)
            } catch where error.code == ENOSYS {
                // No getxattrat: by path.
            } catch {
                throw owner.readError(error)
            }
        }
        do {
            return try ExtendedAttributes.value(named: name, atCPath: access, follow: follow)
        } catch {
            throw owner.readError(error)
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
