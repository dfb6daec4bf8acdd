#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import XDSSystem
import XDSWalk

/// How a value is read and how its failures are worded, for the file that messages name
/// `path`: the one store order, decoding with the store named in words, the sidecar reader,
/// and read failures in words. Shared by a file's own read (``DocumentSourceFile``, which
/// reads by its path) and the tree walk (`TreeEntryReader`, which reads relative to open
/// folders and has a path only to name the file in messages).
struct StoredValueReading {
    /// The file as messages name it.
    var path: String { treePath?.lossyString ?? pathText }
    /// Whether a symbolic link at ``path`` is followed: a dangling one is then worded as such.
    let followSymlinks: Bool
    private let pathText: String
    /// A walk's path, made text only for a message (most values read have none: issue 35).
    private let treePath: TreePath?

    init(path: String, followSymlinks: Bool) {
        pathText = path
        treePath = nil
        self.followSymlinks = followSymlinks
    }

    init(path: TreePath, followSymlinks: Bool) {
        pathText = ""
        treePath = path
        self.followSymlinks = followSymlinks
    }

    /// The one store order of every reader (SPEC §2), for ``read()`` and the tree walk: the
    /// native attribute, then Samba's stream attributes, then the AppleDouble sidecar
    /// (`sidecar`, asked last: filesystems without extended attributes are where sidecars
    /// live). A lone NUL byte in the native attribute is no value yet (Netatalk's `ea = samba`
    /// and Samba with `streams_xattr:prefix = user.` keep this very name with Samba's extra NUL
    /// byte, and a stream they have just created as a lone NUL: Samba's
    /// source3/modules/vfs_streams_xattr.c, Netatalk's include/atalk/volume.h `AFPVOL_EA_SAMBA`), nor is an
    /// empty or lone-NUL stream. A filesystem without extended attributes (`lookUp` of the
    /// native name says `unsupported`) is not asked for streams; its code is returned with
    /// what the sidecar held.
    func firstStored(
        lookUp: (String) throws(DocumentSourceFileError) -> Lookup,
        sidecar: () throws(DocumentSourceFileError) -> StoredDocumentSource?
    ) throws(DocumentSourceFileError) -> (StoredDocumentSource?, unsupported: Int32?) {
        var unsupported: Int32?
        var native = try lookUp(DocumentSourceFile.attributeName)
        if case .found(let bytes) = native, bytes == [0] { native = .absent }
        switch native {
        case .found(let bytes):
            let source = try SambaStream.decode(bytes) { (value) throws(DocumentSourceFileError) in
                try decodeValue(value, from: DocumentSourceFile.attributeName)
            }
            return (StoredDocumentSource(source: source, store: .xattr, location: DocumentSourceFile.attributeName), nil)
        case .unsupported(let code):
            unsupported = code
        case .absent:
            for name in SambaStream.attributeNames {
                guard case .found(let bytes) = try lookUp(name) else { continue }
                // Samba creates a stream as one NUL byte before the client writes to it: empty.
                if bytes.isEmpty || bytes == [0] { continue }
                let source = try SambaStream.decode(bytes) { (value) throws(DocumentSourceFileError) in
                    try decodeValue(value, from: name)
                }
                return (StoredDocumentSource(source: source, store: .sambaStream, location: name), nil)
            }
        }
        return (try sidecar(), unsupported)
    }

    /// The attribute names of this reader's table, in store order: the native attribute, then
    /// Samba's stream attributes (the AppleDouble sidecar's entry is ``DocumentSourceFile``'s
    /// plain name); what ``firstStored(lookUp:sidecar:)`` looks up, and what the tree walk's
    /// reader asks the listing for.
    static let attributeNames: [String] = [DocumentSourceFile.attributeName] + SambaStream.attributeNames

    /// ``attributeNames`` as bytes, as `listxattr` lists them.
    static let attributeNameBytes: [[UInt8]] = attributeNames.map { Array($0.utf8) }

    /// The bytes of `name`, one of ``attributeNames`` (no allocation).
    static func bytes(ofAttributeName name: String) -> [UInt8] {
        guard let index = attributeNames.firstIndex(of: name) else { return Array(name.utf8) }
        return attributeNameBytes[index]
    }

    /// What one attribute lookup found.
    enum Lookup {
        case found([UInt8])
        case absent
        case unsupported(Int32)
    }


    func decodeValue(_ bytes: [UInt8], from location: String) throws(DocumentSourceFileError) -> DocumentSource {
        do {
            return try DocumentSource(propertyList: bytes)
        } catch {
            let place = location == DocumentSourceFile.attributeName ? "" : " (in \(location))"
            throw DocumentSourceFileError(
                .malformedValue, path: path,
                message: "malformed x-document-source value\(place): \(error)")
        }
    }

    /// The error for a failed attribute read, in words (internal for tests).
    func readError(_ failure: ExtendedAttributeFailure) -> DocumentSourceFileError {
        if failure.code == E2BIG {
            return DocumentSourceFileError(
                .malformedValue, path: path,
                message: "the x-document-source value is larger than 64 KiB", errorNumber: E2BIG)
        }
        if failure.code == ERANGE {
            // The read loop gives up with ERANGE only when the value kept changing size under
            // it; "too large for this filesystem" would send the reader on a false trail.
            return DocumentSourceFileError(
                .ioError, path: path,
                message: "the x-document-source value kept changing while it was read; try again",
                errorNumber: ERANGE)
        }
        return pathError(failure.code)
    }

    /// The error for `code`, with "no such file" made precise for a dangling symbolic link:
    /// the link itself is there, so "no such file or folder" would puzzle whoever sees it.
    func pathError(_ code: Int32) -> DocumentSourceFileError {
        if code == ENOENT && followSymlinks {
            var info = stat()
            if lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK {
                return DocumentSourceFileError(
                    .notFound, path: path, message: "is a symbolic link to a file or folder that does not exist",
                    errorNumber: ENOENT)
            }
        }
        return DocumentSourceFileError(errno: code, path: path)
    }


    /// The one sidecar reader, for a file's own read (``readSidecar()``) and for the tree walk
    /// (`TreeEntryReader`): the `x-document-source` entry of the AppleDouble file `name` in the
    /// open folder `folder`, decoded, or nil when there is no such regular file or it has no
    /// entry. `name` is the file name's bytes (a name met in a walk need not be UTF-8);
    /// `location` names the sidecar in messages (made only when one is needed).
    func sidecarValue(
        folder: Int32, name: [UInt8], checkFirst: Bool, location: () -> String
    ) throws(DocumentSourceFileError) -> StoredDocumentSource? {
        guard let start = try readSidecarStart(folder: folder, name: name, checkFirst: checkFirst, location: location)
        else { return nil }
        let sidecar = location()
        let double: AppleDouble
        do {
            double = try AppleDouble(bytes: start.bytes, fileSize: start.fileSize)
        } catch {
            throw DocumentSourceFileError(
                .malformedSidecar, path: path,
                message: "malformed AppleDouble sidecar \(sidecar): \(error)")
        }
        guard let value = double.value(named: DocumentSourceFile.plainAttributeName) else { return nil }
        guard value.count <= DocumentSourceFile.maximumValueSize else {
            throw DocumentSourceFileError(
                .malformedValue, path: path,
                message: "the x-document-source value in \(sidecar) is larger than 64 KiB")
        }
        let source = try decodeValue(value, from: sidecar)
        return StoredDocumentSource(source: source, store: .appleDouble, location: sidecar)
    }

    /// The first ``AppleDouble/attributeAreaLimit`` bytes of the sidecar `name` in `folder`,
    /// with the size to judge them by (a file that shrank while it was read is judged by what
    /// was there); nil when there is no such regular file. Opened with `O_NOFOLLOW` and
    /// `O_NONBLOCK` (XDSSystem's `ReadableFile`), so a link or FIFO of that name is never
    /// followed or waited on. With `checkFirst` (a path whose folder listing was not read),
    /// the name is `fstatat`-ed first so that nothing but a regular file is ever opened, and
    /// a file swapped between the check and the open is checked again (three tries).
    func readSidecarStart(
        folder: Int32, name: [UInt8], checkFirst: Bool, location: () -> String
    ) throws(DocumentSourceFileError) -> (bytes: [UInt8], fileSize: Int)? {
        try readStart(
            folder: folder, name: name, checkFirst: checkFirst, limit: AppleDouble.attributeAreaLimit,
            what: "the AppleDouble sidecar", location: location)
    }

    /// ``readSidecarStart(folder:name:checkFirst:location:)`` for another file beside the
    /// path (a companion file such as XDSProvenance's zone file): at most `limit` bytes, checked first.
    func readBesideStart(
        folder: Int32, name: [UInt8], limit: Int, location: () -> String
    ) throws(DocumentSourceFileError) -> (bytes: [UInt8], fileSize: Int)? {
        try readStart(folder: folder, name: name, checkFirst: true, limit: limit, what: "", location: location)
    }

    private func readStart(
        folder: Int32, name: [UInt8], checkFirst: Bool, limit: Int, what: String, location: () -> String
    ) throws(DocumentSourceFileError) -> (bytes: [UInt8], fileSize: Int)? {
        let name = name.map { CChar(bitPattern: $0) } + [0]
        func failure(_ code: Int32) -> DocumentSourceFileError {
            DocumentSourceFileError(
                errno: code, path: path, context: "cannot read \(what.isEmpty ? "" : what + " ")\(location()): ")
        }
        for _ in 0..<3 {
            var before = stat()
            if checkFirst {
                if SystemCall.retrying({ fstatat(folder, name, &before, AT_SYMLINK_NOFOLLOW) }) != 0 {
                    let code = errno
                    if code == ENOENT || code == ENOTDIR { return nil }
                    throw failure(code)
                }
                guard before.st_mode & S_IFMT == S_IFREG else { return nil }
            }
            let file: ReadableFile
            do throws(Errno) {
                file = try ReadableFile(name, relativeTo: folder, options: [.nonBlocking, .noFollow])
            } catch {
                // Gone, or replaced by a symbolic link (O_NOFOLLOW), since the check.
                if error.rawValue == ENOENT || error.rawValue == ELOOP { return nil }
                throw failure(error.rawValue)
            }
            guard file.isRegular else {
                if checkFirst { continue }
                return nil
            }
            if checkFirst, file.info.st_dev != before.st_dev || file.info.st_ino != before.st_ino { continue }
            let wanted = min(file.size, limit)
            do throws(Errno) {
                let bytes = try file.read(upTo: wanted)
                return (bytes, bytes.count < wanted ? bytes.count : file.size)
            } catch {
                throw failure(error.rawValue)
            }
        }
        throw DocumentSourceFileError(
            .ioError, path: path, message: "\(what.isEmpty ? "" : what + " ")\(location()) kept changing while it was read; try again")
    }
}
