import Foundation

/// Fresh folders under the system's temporary directory (never the user's home).
public enum ScratchFolder {
    /// Makes a new empty folder named `PREFIX-UUID`; the caller removes it.
    public static func make(prefix: String = "xds-tests") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
