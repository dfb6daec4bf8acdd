import XDSSystem
import XDocSource

extension XDS.Show {
    /// The `info.json` provenance of `path` when it names a `.textbundle` folder, else nil.
    /// A bad `info.json` is a warning on standard error (the status is not changed): the
    /// attribute is what `show` is asked about, the bundle's record is extra.
    static func textBundleInfo(_ path: DocumentSourceTreePath, isFolder: @autoclosure () -> Bool) -> TextBundleInfo? {
        guard mayBeBundleName(path.bytes), TextBundleInfo.isBundleName(path.lossyString), isFolder() else { return nil }
        let info: TextBundleInfo?
        do {
            info = try TextBundleInfo.read(bundleAt: path)
        } catch {
            Diagnostics.printError("xds: warning: \(path.visible): \(VisibleText.escapedMessage(error.message)) (ignored)")
            return nil
        }
        return info
    }

    /// Whether the bytes end with `.textbundle` in ASCII letters of any case, trailing slashes
    /// aside: what ``TextBundleInfo/isBundleName(_:)`` needs, checked without the String and
    /// its lowercased copy that the walk's every record paid for (issue 35).
    static func mayBeBundleName(_ bytes: [UInt8]) -> Bool {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x2F { end -= 1 }
        let suffix: StaticString = ".textbundle"
        let count = suffix.utf8CodeUnitCount
        guard end >= count else { return false }
        return suffix.withUTF8Buffer { suffix in
            for index in 0..<count where bytes[end - count + index] | 0x20 != suffix[index] { return false }
            return true
        }
    }
}
