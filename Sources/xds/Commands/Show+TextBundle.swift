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

    /// The human section for a TextBundle's own record, indented under the file's heading:
    /// "  textbundle (info.json):" then one aligned line a key.
    static func humanText(_ info: TextBundleInfo) -> String {
        let fields = info.displayedFields
        var text = "  textbundle (info.json):\n"
        if fields.isEmpty { text += "    (none of its keys are set)\n" }
        let width = (fields.map { $0.key.count }.max() ?? 0) + 1
        for field in fields {
            text += "    " + (field.key + ":").padded(to: width) + " " + VisibleText.escaped(field.value.text) + "\n"
        }
        for warning in info.warnings {
            text += "    warning: " + VisibleText.escaped(warning) + "\n"
        }
        return text
    }
}
