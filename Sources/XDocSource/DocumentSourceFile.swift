#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDSWalk

/// A `DocumentSource` together with the store it was read from.
public struct StoredDocumentSource: Sendable, Equatable {
    /// The decoded value.
    public var source: DocumentSource
    /// Where it was found.
    public var store: DocumentSourceStore
    /// Where exactly: the attribute name (`user.x-document-source`,
    /// `user.DosStream.x-document-source:$DATA`) or the sidecar's path (`folder/._NAME`).
    public var location: String

    /// Creates a value read from `store` at `location`.
    public init(source: DocumentSource, store: DocumentSourceStore, location: String) {
        self.source = source
        self.store = store
        self.location = location
    }
}

/// The `x-document-source` attribute of one file or folder: read, write, update and remove.
///
/// Reading looks in the stores of SPEC §2 in order: the native extended attribute, Samba's stream
/// attribute, then an AppleDouble sidecar `._NAME`. Writing goes to the store the value is found
/// in, a new value to the native attribute unless another store is asked for
/// (``update(with:replace:store:)``), as a binary property list set in one call, so a concurrent
/// reader sees the old value or the new one; every check and the encoding happen before that call,
/// so on any error the old value is left as it was. Writers of one file
/// (``update(with:replace:store:)``, ``write(_:)``, ``writeRawValue(_:)``, ``remove(sidecar:)``),
/// in this process or another, are serialised by an advisory `flock` on the file itself (see `FileLock` for what it does not
/// cover), so concurrent writers of different keys all keep theirs; readers take no lock.
///
/// ```swift
/// let file = DocumentSourceFile(path: "report.pdf")
/// if let found = try file.read() { print(found.source.name ?? "?", found.store) }
/// ```
public struct DocumentSourceFile: Sendable {
    /// The path as given (relative paths are relative to the current directory).
    public let path: String
    /// Whether a symbolic link at ``path`` is followed to its target (the default) or acted on
    /// itself. Linux does not allow `user.` attributes on symbolic links: reading one there finds
    /// no value (as `lgetxattr` answers), writing or removing fails with
    /// `DocumentSourceFileError/Kind/unsupportedFileType`.
    public let followSymlinks: Bool

    /// The native attribute name: `user.x-document-source` on Linux (unprivileged attributes
    /// live in the `user.` namespace), `x-document-source` on Darwin.
    public static var attributeName: String {
        #if os(Linux)
        "user.x-document-source"
        #else
        "x-document-source"
        #endif
    }

    /// The name of the attribute inside AppleDouble files and on Darwin.
    public static let plainAttributeName = "x-document-source"

    /// The largest value read or written: 64 KiB, the Linux limit for one attribute value.
    public static let maximumValueSize = ExtendedAttributes.maximumValueSize

    /// Names the attribute of the file or folder at `path`.
    /// - Parameters:
    ///   - path: the file or folder.
    ///   - followSymlinks: false to act on a symbolic link itself rather than its target.
    public init(path: String, followSymlinks: Bool = true) {
        self.path = path
        self.followSymlinks = followSymlinks
    }

    // MARK: - Reading

    /// The reading rules and their wording, for this path.
    var reading: StoredValueReading { StoredValueReading(path: path, followSymlinks: followSymlinks) }

    /// Reads the attribute from the first store that has it.
    ///
    /// A value that is malformed as it is but well-formed without one trailing NUL byte is read
    /// without it, in every store: Samba and Netatalk append that byte (Samba's
    /// source3/modules/vfs_streams_xattr.c; Netatalk's `ea = samba`, include/atalk/volume.h).
    ///
    /// - Returns: the decoded value and its store, or nil when no store has one.
    /// - Throws: ``DocumentSourceFileError``: `DocumentSourceFileError/Kind/notFound` when the
    ///   path does not exist, `DocumentSourceFileError/Kind/malformedValue` or
    ///   `DocumentSourceFileError/Kind/malformedSidecar` for bad data,
    ///   `DocumentSourceFileError/Kind/notSupported` when the filesystem has no extended
    ///   attributes and no sidecar exists, and the I/O kinds for other failures.
    public func read() throws(DocumentSourceFileError) -> StoredDocumentSource? {
        // No file-type check: a symbolic link read with `followSymlinks` false on Linux, or a
        // FIFO, has no `user.` attribute and reads as absent, which is what `lgetxattr` says.
        let (found, unsupported) = try reading.firstStored(lookUp: lookUp) { () throws(DocumentSourceFileError) in
            try readSidecar()
        }
        if let found { return found }
        if let unsupported { throw DocumentSourceFileError(errno: unsupported, path: path) }
        return nil
    }

    private func lookUp(_ name: String) throws(DocumentSourceFileError) -> StoredValueReading.Lookup {
        do {
            guard let bytes = try ExtendedAttributes.value(
                named: name, atPath: path, followSymlinks: followSymlinks)
            else { return .absent }
            return .found(bytes)
        } catch {
            if error.code == ENOTSUP || error.code == EOPNOTSUPP { return .unsupported(error.code) }
            throw reading.readError(error)
        }
    }

    /// Reads the raw bytes of the native attribute, or nil when it is not set (no decoding,
    /// no other stores): for tools that inspect or copy values as they are.
    public func readRawValue() throws(DocumentSourceFileError) -> [UInt8]? {
        do {
            return try ExtendedAttributes.value(
                named: Self.attributeName, atPath: path, followSymlinks: followSymlinks)
        } catch {
            throw reading.readError(error)
        }
    }

    // MARK: - Writing

    /// Writes `source` to the native attribute as a binary property list, replacing any value.
    ///
    /// - Throws: ``DocumentSourceFileError``; the attribute is unchanged after any error.
    public func write(_ source: DocumentSource) throws(DocumentSourceFileError) {
        try checkFileType()
        let bytes = try encode(source)
        try FileLock.holding(path, followSymlinks: followSymlinks) { () throws(DocumentSourceFileError) in
            try writeUnlocked(bytes)
        }
    }

    /// ``update(with:replace:store:)`` with `sidecar` true for ``DocumentSourceStore/appleDouble``
    /// (the store of a new value; a value found elsewhere is updated where it is).
    @discardableResult
    public func update(
        with changes: DocumentSource, replace: Bool = false, sidecar: Bool
    ) throws(DocumentSourceFileError) -> DocumentSource {
        try update(with: changes, replace: replace, store: sidecar ? .appleDouble : .xattr)
    }

    /// Writes `changes` over the current value, in the store where the value is found, and
    /// returns what was written.
    ///
    /// The value is updated where a reader finds it (SPEC §2): a Samba stream stays a Samba
    /// stream (rewritten with streams_xattr's one trailing NUL byte, under the same attribute
    /// name), a sidecar stays a sidecar, so there are never two copies that disagree. Only a
    /// file with no value yet gets it in `store`: ``DocumentSourceStore/xattr`` (the default),
    /// ``DocumentSourceStore/sambaStream`` (`user.DosStream.x-document-source:$DATA`, value and
    /// one NUL, exactly as Samba's `vfs_streams_xattr` stores the stream `FILE:x-document-source`,
    /// so SMB clients read the exact bytes; Linux only) or ``DocumentSourceStore/appleDouble``
    /// (the sidecar `._NAME`, every other entry in it kept byte-exact).
    ///
    /// With `replace` false (the default) the current value is the base: keys in `changes`
    /// replace its keys and every other key is kept as it is, other apps' keys of any type
    /// included. With `replace` true only `changes` is written (to the store the current value
    /// is in, which is found without decoding it). The result must have a string `identifier`
    /// and `name` (SPEC §5); when it does not, this throws
    /// `DocumentSourceFileError/Kind/incompleteValue` listing the missing keys, before
    /// anything is written.
    ///
    /// - Throws: ``DocumentSourceFileError``; a malformed current value is reported
    ///   (`DocumentSourceFileError/Kind/malformedValue`) and left untouched rather than
    ///   overwritten (with `replace` it is overwritten in its store), and so is a malformed
    ///   sidecar (`DocumentSourceFileError/Kind/malformedSidecar`) that is to be written.
    @discardableResult
    public func update(
        with changes: DocumentSource, replace: Bool = false, store: DocumentSourceStore = .xattr
    ) throws(DocumentSourceFileError) -> DocumentSource {
        guard store == .xattr || store == .sambaStream || store == .appleDouble else {
            throw DocumentSourceFileError(
                .unsupportedFileType, path: path, message: "values are not written to the \(store) store")
        }
        if store == .sambaStream && SambaStream.attributeNames.isEmpty {
            throw DocumentSourceFileError(
                .notSupported, path: path,
                message: "Samba stream attributes are written on Linux only (macOS's SMB client maps streams to attributes itself)")
        }
        try checkFileType()
        // Held from before the read until after the write: another writer's keys cannot be
        // lost between the two.
        return try FileLock.holding(path, followSymlinks: followSymlinks) {
            () throws(DocumentSourceFileError) -> DocumentSource in
            try mergeAndWrite(changes, replace: replace, store: store)
        }
    }

    /// Where the current value is (not decoded): its store and attribute name; nil when no
    /// store has one. A malformed sidecar holds no value here.
    private func locateValue() throws(DocumentSourceFileError) -> (store: DocumentSourceStore, name: String)? {
        switch try lookUp(Self.attributeName) {
        case .found(let bytes) where bytes != [0]:
            return (.xattr, Self.attributeName)
        case .found, .absent:
            for name in SambaStream.attributeNames {
                if case .found(let bytes) = try lookUp(name), !bytes.isEmpty, bytes != [0] { return (.sambaStream, name) }
            }
        case .unsupported:
            break
        }
        if let location = sidecarValueLocation() { return (.appleDouble, location) }
        return nil
    }

    /// ``read()``, except that a filesystem without extended attributes is no error when the
    /// value is to go to a sidecar (``read()`` has looked there already).
    private func readForUpdate(_ requested: DocumentSourceStore) throws(DocumentSourceFileError) -> StoredDocumentSource? {
        do {
            return try read()
        } catch where error.kind == .notSupported && requested == .appleDouble {
            return nil
        }
    }

    private func mergeAndWrite(
        _ changes: DocumentSource, replace: Bool, store requested: DocumentSourceStore
    ) throws(DocumentSourceFileError) -> DocumentSource {
        var result = changes
        var place: (store: DocumentSourceStore, name: String)?
        if replace {
            place = try locateValue()
        } else if let current = try readForUpdate(requested) {
            place = (current.store, current.location)
            result = current.source
            result.merge(changes)
        }
        var missing: [String] = []
        if result.identifier == nil { missing.append("identifier") }
        if result.name == nil { missing.append("name") }
        guard missing.isEmpty else {
            throw DocumentSourceFileError(
                .incompleteValue, path: path,
                message: "the value would have no \(missing.joined(separator: " and "))",
                missingFields: missing)
        }
        let bytes = try encode(result)
        switch place?.store ?? requested {
        case .appleDouble:
            guard bytes.count <= Self.maximumValueSize else {
                throw DocumentSourceFileError(
                    .tooLarge, path: path, message: "the value is \(bytes.count) bytes, more than 64 KiB")
            }
            try writeSidecarLocked(bytes)
        case .sambaStream:
            // streams_xattr keeps every stream with one NUL byte after it (Samba's
            // source3/modules/vfs_streams_xattr.c).
            try writeUnlocked(bytes + [0], named: place?.name ?? SambaStream.attributeNames[0])
        default:
            // Netatalk's `ea = samba` keeps the native name with Samba's trailing NUL: kept so.
            var value = bytes
            if case .found(let raw) = try lookUp(Self.attributeName), raw.last == 0,
                (try? DocumentSource(propertyList: raw)) == nil
            {
                value.append(0)
            }
            try writeUnlocked(value)
        }
        return result
    }

    /// Writes raw bytes to the native attribute in one call (no encoding, no checks of the
    /// content): for tools that copy values as they are.
    public func writeRawValue(_ bytes: [UInt8]) throws(DocumentSourceFileError) {
        try checkFileType()
        try FileLock.holding(path, followSymlinks: followSymlinks) { () throws(DocumentSourceFileError) in
            try writeUnlocked(bytes)
        }
    }

    /// The one `setxattr` call of every write; the caller holds the lock.
    private func writeUnlocked(_ bytes: [UInt8], named name: String = attributeName) throws(DocumentSourceFileError) {
        guard bytes.count <= Self.maximumValueSize else {
            throw DocumentSourceFileError(
                .tooLarge, path: path,
                message: "the value is \(bytes.count) bytes, more than the 64 KiB an extended attribute can hold")
        }
        do {
            try ExtendedAttributes.setValue(
                bytes, named: name, atPath: path, followSymlinks: followSymlinks)
        } catch {
            throw writeError(error)
        }
    }

    // MARK: - Removing

    /// Removes the attribute from the native attribute and Samba's stream attributes.
    ///
    /// An AppleDouble sidecar is left alone: it is a separate file that other tools own. The
    /// result says which stores were cleared and where a reader still finds a value (a sidecar,
    /// or a Samba stream whose removal failed after the native attribute was removed), so the
    /// caller can say why ``read()`` still finds one. A FIFO, socket or device (which Linux
    /// lets carry no `user.` attribute) has nothing to remove, as ``read()`` finds nothing there.
    ///
    /// With `sidecar` true the value is removed from the AppleDouble sidecar too (after the
    /// other stores; a filesystem without extended attributes then has only the sidecar to
    /// clear): the sidecar is rewritten without it, every other entry kept byte-exact, or
    /// deleted when nothing else is in it. A malformed sidecar is left as it was and reported.
    ///
    /// - Returns: the stores cleared (empty when none had a value) and what remains.
    /// - Throws: ``DocumentSourceFileError`` when the first store that had to change could not.
    @discardableResult
    public func remove(sidecar: Bool = false) throws(DocumentSourceFileError) -> DocumentSourceRemoval {
        try checkFileType()
        return try FileLock.holding(path, followSymlinks: followSymlinks) {
            () throws(DocumentSourceFileError) -> DocumentSourceRemoval in
            try sidecar ? removeEverywhereLocked() : removeLocked()
        }
    }

    func removeLocked() throws(DocumentSourceFileError) -> DocumentSourceRemoval {
        // Ended quietly or not, what remains is the sidecar (nothing was tried before).
        var (result, _) = try DocumentSourceRemoval.clearingAttributes(
            remove: { (name) throws(ExtendedAttributeFailure) -> Bool in
                try ExtendedAttributes.removeValue(named: name, atPath: path, followSymlinks: followSymlinks)
            },
            words: writeError,
            // Only regular files and folders carry `user.` attributes on Linux: nothing here.
            endsQuietly: { store, failure in store == .xattr && failure.kind == .unsupportedFileType },
            stillHolds: { name in
                if case .found(let bytes) = (try? lookUp(name)) ?? .absent, !bytes.isEmpty, bytes != [0] { return true }
                return false
            })
        result.remaining += remainingSidecar()
        return result
    }

    /// The sidecar, when it still holds a value after a removal.
    private func remainingSidecar() -> [DocumentSourceRemoval.Remaining] {
        guard let location = sidecarValueLocation() else { return [] }
        return [.init(store: .appleDouble, location: location)]
    }

    // MARK: - Internals

    /// Linux refuses `user.` attributes on symlinks (EPERM on write, "no data" on read), which
    /// would read as "absent" or a puzzling "not permitted"; say what is going on instead.
    private func checkFileType() throws(DocumentSourceFileError) {
        #if os(Linux)
        guard !followSymlinks else { return }
        var info = stat()
        if lstat(path, &info) != 0 {
            throw DocumentSourceFileError(errno: errno, path: path)
        }
        if info.st_mode & S_IFMT == S_IFLNK {
            throw DocumentSourceFileError(
                .unsupportedFileType, path: path,
                message: "is a symbolic link, and Linux does not allow user extended attributes on symbolic links")
        }
        #endif
    }

    private func encode(_ source: DocumentSource) throws(DocumentSourceFileError) -> [UInt8] {
        do {
            return try source.binaryPropertyList()
        } catch {
            // libplist missing is the system's failure, not the value's (and not one --replace mends).
            let kind: DocumentSourceFileError.Kind = PropertyList.isCoderAvailable ? .malformedValue : .ioError
            throw DocumentSourceFileError(kind, path: path, message: "cannot encode the value: \(error)")
        }
    }

    func writeError(_ failure: ExtendedAttributeFailure) -> DocumentSourceFileError {
        switch failure.code {
        case EPERM:
            #if os(Linux)
            // Linux answers EPERM for user attributes on anything but regular files and folders.
            var info = stat()
            let found = followSymlinks ? stat(path, &info) : lstat(path, &info)
            let type = info.st_mode & S_IFMT
            if found == 0 && type != S_IFREG && type != S_IFDIR {
                return DocumentSourceFileError(
                    .unsupportedFileType, path: path,
                    message: "Linux allows user extended attributes only on regular files and folders",
                    errorNumber: EPERM)
            }
            #endif
            // A bare "operation not permitted" leaves the user guessing; these are the usual causes.
            if let locks = ExtendedAttributes.changeLocks(atPath: path, followSymlinks: followSymlinks) {
                let flag = locks.immutable ? "immutable (chattr +i)" : locks.appendOnly ? "append-only (chattr +a)" : nil
                if let flag {
                    return DocumentSourceFileError(
                        .permissionDenied, path: path,
                        message: "operation not permitted: the file is \(flag), so its attributes cannot change",
                        errorNumber: EPERM)
                }
            }
        case ENOSPC:
            // ext4 answers ENOSPC both for a full disk and for a value larger than the space an
            // inode's attribute block has; free space tells which.
            var fs = statvfs()
            if statvfs(path, &fs) == 0 && UInt64(fs.f_bavail) > 16 {
                return DocumentSourceFileError(
                    .tooLarge, path: path, message: "the value is too large for this filesystem",
                    errorNumber: ENOSPC)
            }
        default:
            break
        }
        return reading.pathError(failure.code)
    }
}
