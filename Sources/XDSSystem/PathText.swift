/// Paths as text, the small pieces every module needs, written once.
package enum PathText {
    /// `path` without trailing slashes, a lone `/` kept (`a/b//` → `a/b`, `//` → `/`).
    package static func trimmingTrailingSlashes<S: StringProtocol>(_ path: S) -> S.SubSequence {
        var trimmed = path[...]
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return trimmed
    }

    /// `folder/name`, without doubling a slash.
    package static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}
