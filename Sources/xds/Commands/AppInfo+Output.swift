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
enum AppInfoOutput {
    static func write(_ publication: AppIconPublication, into folder: String) throws(BinaryFileError) {
        try makeFolder(folder, parents: true)
        let images = join(folder, AppIconPublication.imageFolder)
        try makeFolder(images, parents: false)
        for icon in publication.icons {
            try writeWhole(icon.png, to: join(folder, icon.relativePath))
        }
        try writeWhole(publication.appInfoJSON, to: join(folder, "appInfo.json"))
    }

    private static func writeWhole(_ bytes: [UInt8], to path: String) throws(BinaryFileError) {
        var output = try AtomicOutput.begin(path)
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
