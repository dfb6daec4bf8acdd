/// Where the `src` of an appInfo.json read from a local folder points: a path in that folder
/// or a URL (what `xds icon` reads for a file it was given by path).
extension URLReference {
    /// Where the `src` of an appInfo.json read from the local folder `folder` points.
    ///
    /// Resolution only; whether the target may be read (inside the folder once symlinks are
    /// resolved, a scheme the policy allows) is the fetcher's decision.
    /// * A relative path (`img/icon.png`, `../x.png`) → ``LocalTarget/path(_:)`` of `folder`
    ///   + "/" + the path with percent-escapes decoded and `.`/`..` segments removed as far as
    ///   they go (a `..` that climbs out of `src` stays, so `../x.png` in `/a/b` gives
    ///   `/a/b/../x.png` and the fetcher's check sees it leave the folder). Query and fragment
    ///   are dropped (a file has neither).
    /// * An absolute path (`/x.png`) or a `file:` URL with an empty or `localhost` host →
    ///   ``LocalTarget/path(_:)`` of that path, decoded, dot segments removed.
    /// * An absolute URL with another scheme (`https://…`) → ``LocalTarget/url(_:)``, as
    ///   `resolve(_:against:)` would give it (scheme lower-cased, dot segments removed).
    ///
    /// - Returns: nil when `src` does not parse; is a network-path reference (`//host/x`: a
    ///   folder has no scheme to lend it); names the appInfo.json itself or the folder (an
    ///   empty path, `?q`, `#f`, `.`); is a `file:` URL with another host or a relative path;
    ///   or decodes to a segment holding `/`, NUL or bytes that are not UTF-8.
    public static func resolveLocal(_ src: String, inFolder folder: String) -> LocalTarget? {
        guard let parts = parse(src) else { return nil }
        if let scheme = parts.scheme {
            guard scheme == "file" else {
                var absolute = parts
                absolute.path = removeDotSegments(parts.path)
                return .url(absolute.text)
            }
            let host = parts.host?.lowercased() ?? ""
            guard host.isEmpty || host == "localhost", parts.path.hasPrefix("/") else { return nil }
            return absoluteLocalPath(parts.path)
        }
        guard parts.authority == nil, !parts.path.isEmpty else { return nil }
        if parts.path.hasPrefix("/") { return absoluteLocalPath(parts.path) }
        guard let segments = decodedSegments(parts.path) else { return nil }
        var kept: [String] = []
        for segment in segments {
            switch segment {
            case ".": continue
            case "..":
                if let last = kept.last, last != ".." { kept.removeLast() } else { kept.append("..") }
            default: kept.append(segment)
            }
        }
        // A trailing "." or ".." names a folder: keep the slash (RFC 3986 does the same).
        if let last = segments.last, last == "." || last == ".." { kept.append("") }
        guard !kept.allSatisfy(\.isEmpty) else { return nil }
        let trimmedFolder = folder.isEmpty ? "." : (folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder)
        let joined = kept.joined(separator: "/")
        return .path(trimmedFolder == "/" ? "/" + joined : trimmedFolder + "/" + joined)
    }


    static func absoluteLocalPath(_ path: String) -> LocalTarget? {
        guard let segments = decodedSegments(path) else { return nil }
        // segments[0] is the empty text before the leading "/".
        var kept: [String] = []
        for segment in segments.dropFirst() {
            switch segment {
            case ".": continue
            case "..": if !kept.isEmpty { kept.removeLast() }
            default: kept.append(segment)
            }
        }
        if let last = segments.last, segments.count > 1, last == "." || last == ".." { kept.append("") }
        return .path("/" + kept.joined(separator: "/"))
    }

    /// The segments of a path with percent-escapes decoded, or nil when one decodes to `/`,
    /// NUL or bytes that are not UTF-8.
    static func decodedSegments(_ path: String) -> [String]? {
        var segments: [String] = []
        for raw in Array(path.utf8).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            var bytes: [UInt8] = []
            var i = raw.startIndex
            while i < raw.endIndex {
                if raw[i] == UInt8(ascii: "%"), i + 2 < raw.endIndex, let high = Hex.value(raw[i + 1]), let low = Hex.value(raw[i + 2]) {
                    bytes.append(high << 4 | low)
                    i += 3
                } else {
                    bytes.append(raw[i])
                    i += 1
                }
            }
            guard !bytes.contains(0), !bytes.contains(UInt8(ascii: "/")) else { return nil }
            guard let text = String(validatingUTF8Bytes: bytes) else { return nil }
            segments.append(text)
        }
        return segments
    }
}
