#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDocSource
internal import XDSSystem

extension AppIconPublication {
    /// Writes the publication into `folder`: `img/icon-N.png` for each size, then
    /// `appInfo.json` (last, so a reader that finds the list finds its images), each whole
    /// through `AtomicFile` (XDocSource); nothing else in the folder is touched. `folder` and
    /// `folder/img` are made when missing (`folder`'s parents too).
    ///
    /// Nothing is written outside `folder`, whatever links it holds: a symbolic link where a
    /// file goes (`appInfo.json`, `img/icon-29.png`) is replaced by the file, never followed;
    /// a symbolic link named `img` is refused (``AppIconPublishError/Kind/imageFolderIsSymbolicLink``)
    /// rather than written through or deleted, since it may lead anywhere and may be someone's
    /// on purpose. `folder` itself may be a link: it was named on purpose.
    ///
    /// - Throws: ``AppIconPublishError`` of kind ``AppIconPublishError/Kind/writeFailed``
    ///   naming the file or folder that could not be made or written, or
    ///   ``AppIconPublishError/Kind/imageFolderIsSymbolicLink``.
    public func write(into folder: String) throws(AppIconPublishError) {
        try Self.makeFolder(folder, parents: true)
        let images = PathText.join(folder, Self.imageFolder)
        var link = stat()
        if lstat(images, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK {
            throw AppIconPublishError(
                .imageFolderIsSymbolicLink, file: images,
                message: "is a symbolic link; nothing is written outside the folder given, so it is not written through (remove the link or make it a folder)")
        }
        try Self.makeFolder(images, parents: false)
        for icon in icons {
            try Self.writeWhole(icon.png, to: PathText.join(folder, icon.relativePath))
        }
        try Self.writeWhole(appInfoJSON, to: PathText.join(folder, "appInfo.json"))
    }

    private static func writeWhole(_ bytes: [UInt8], to path: String) throws(AppIconPublishError) {
        do throws(AtomicFileError) {
            try AtomicFile.write(bytes, to: path, options: AtomicFile.Options(replacingLinks: true))
        } catch {
            throw AppIconPublishError(.writeFailed, file: error.path, message: error.message)
        }
    }

    /// Makes `path` a folder if it is not one (and, with `parents`, the folders above it).
    private static func makeFolder(_ path: String, parents: Bool) throws(AppIconPublishError) {
        var st = stat()
        if stat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFDIR else {
                throw AppIconPublishError(.writeFailed, file: path, message: "exists and is not a folder")
            }
            return
        }
        if parents, let slash = path.dropLast().lastIndex(of: "/"), slash != path.startIndex {
            try makeFolder(String(path[..<slash]), parents: true)
        }
        if mkdir(path, 0o777) != 0 {
            let error = Errno.current
            if error.rawValue == EEXIST, stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR { return }
            throw AppIconPublishError(.writeFailed, file: path, message: "cannot make the folder: \(error.words)")
        }
    }
}
