#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDSPublish
import XDSSystem

/// Writes what `xds appinfo` publishes into DIR: `img/icon-N.png` for each size, then
/// `appInfo.json` (last, so a reader that finds the list finds its images). Each file is
/// written whole through ``AtomicOutput``; nothing else in DIR is touched.
///
/// Nothing is written outside DIR (SPEC §5), whatever links DIR holds: a symbolic link where
/// a file goes (`DIR/appInfo.json`, `DIR/img/icon-29.png`) is replaced by the file, never
/// followed; a symbolic link named `DIR/img` is refused (status 74) rather than written
/// through or deleted, since it may lead anywhere and may be someone's on purpose. DIR itself
/// may be a link: it was named on purpose.
enum AppInfoOutput {
    static func write(_ publication: AppIconPublication, into folder: String) throws(BinaryFileError) {
        try makeFolder(folder, parents: true)
        let images = join(folder, AppIconPublication.imageFolder)
        var link = stat()
        if lstat(images, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK {
            throw BinaryFileError(
                path: images,
                reason: "is a symbolic link; xds appinfo writes nothing outside the folder it is given, so it does not write through it (remove the link or make it a folder)",
                status: .ioError)
        }
        try makeFolder(images, parents: false)
        for icon in publication.icons {
            try writeWhole(icon.png, to: join(folder, icon.relativePath))
        }
        try writeWhole(publication.appInfoJSON, to: join(folder, "appInfo.json"))
    }

    private static func writeWhole(_ bytes: [UInt8], to path: String) throws(BinaryFileError) {
        var output = try AtomicOutput.begin(path, replacingLinks: true)
        try output.commit(bytes)
    }

    /// `folder/name`, without doubling a slash.
    static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// Makes `path` a folder if it is not one (and, with `parents`, the folders above it).
    private static func makeFolder(_ path: String, parents: Bool) throws(BinaryFileError) {
        var st = stat()
        if stat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFDIR else {
                throw BinaryFileError(path: path, reason: "exists and is not a folder", status: .ioError)
            }
            return
        }
        if parents, let slash = path.dropLast().lastIndex(of: "/"), slash != path.startIndex {
            try makeFolder(String(path[..<slash]), parents: true)
        }
        if mkdir(path, 0o777) != 0 {
            let error = Errno.current
            if error.rawValue == EEXIST, stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR { return }
            throw .writing(error, path: path, operation: "cannot make the folder")
        }
    }
}

/// Words quoted for a POSIX shell, so a printed command can be pasted as it is.
enum ShellQuote {
    /// `word` as is when it holds only characters no shell treats specially, else in single
    /// quotes (a `'` inside written `'\''`).
    static func word(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_./:@%+=,".unicodeScalars.contains(scalar))
        }
        if plain { return word }
        var quoted = "'"
        for character in word { quoted += character == "'" ? "'\\''" : String(character) }
        return quoted + "'"
    }
}
