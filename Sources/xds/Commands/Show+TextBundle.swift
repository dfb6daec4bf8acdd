import XDSSystem
import XDocSource

extension XDS.Show {
    /// The `info.json` provenance of `path` when it names a `.textbundle` folder, else nil.
    /// A bad `info.json` is a warning on standard error (the status is not changed): the
    /// attribute is what `show` is asked about, the bundle's record is extra.
    static func textBundleInfo(_ path: DocumentSourceTreePath, isFolder: @autoclosure () -> Bool) -> TextBundleInfo? {
        guard TextBundleInfo.isBundleName(path.lossyString), isFolder() else { return nil }
        let info: TextBundleInfo?
        do {
            info = try TextBundleInfo.read(bundleAt: path)
        } catch {
            Diagnostics.printError("xds: warning: \(path.visible): \(VisibleText.escapedMessage(error.message)) (ignored)")
            return nil
        }
        return info
    }
}
