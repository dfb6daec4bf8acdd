// The atomic write lives in XDSSystem with the temporary files it is made of, so that the
// modules below the attribute (XDocSourceFetch's HTTP cache) use it without XDocSource; these
// names keep it where library users have always found it, `import XDocSource`.
public import XDSSystem

/// A file written whole or not at all (`XDSSystem.AtomicFile`): the one atomic write of the
/// project, used for `xds` `-o` outputs, `xds appinfo`'s files, AppleDouble sidecars and the
/// HTTP cache's entries, and public so that programs writing what the libraries make (an
/// `AppIconPublication`'s images, a masked PNG) get the same guarantees.
///
/// `begin(_:options:)` makes a temporary file in the target's folder (so a folder that cannot
/// be written fails before any work), `commit(_:)` writes the bytes, flushes them with `fsync`
/// when `Options.synchronized` asks, and renames the file over the target: a reader sees the
/// old file or the new one, never part of either. `discard()` gives up. A symbolic link at the
/// path is followed unless `Options.replacingLinks` is set; an existing file keeps its
/// permissions and, where allowed, its owner and group; a folder is refused.
///
/// ```swift
/// try AtomicFile.write(publication.appInfoJSON, to: "site/appInfo.json")
/// ```
public typealias AtomicFile = XDSSystem.AtomicFile

/// Why an ``AtomicFile`` could not be written (`XDSSystem.AtomicFileError`): the path as
/// given (`path`), one line in words (`message`) and the system's error number
/// (`errorNumber`); its description is `PATH: message`.
public typealias AtomicFileError = XDSSystem.AtomicFileError
