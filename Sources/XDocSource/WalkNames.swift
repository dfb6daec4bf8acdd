public import XDSWalk

// The names XDocSource gave the walk's types and the file error before they moved to XDSWalk
// (the module of the tree walk, below XDocSource and XDSProvenance): code that imports
// XDocSource keeps compiling with them.

/// Why reading, writing or removing the `x-document-source` attribute of a path failed:
/// XDSWalk's `FileAccessError`.
public typealias DocumentSourceFileError = FileAccessError

/// A path met in a walk, as exact bytes: XDSWalk's `TreePath`.
public typealias DocumentSourceTreePath = TreePath

/// A reader of the entries a walk meets: XDSWalk's `FileTreeInspector`.
public typealias DocumentSourceTreeInspector = FileTreeInspector

/// The archive formats `xds` reads members of, chosen by file name: XDSWalk's ``ArchiveKind``.
public typealias ArchiveKind = XDSWalk.ArchiveKind
