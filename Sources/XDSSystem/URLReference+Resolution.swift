/// Resolution of a reference against its base (RFC 3986 §5.2): the URL an icon's `src` names.
extension URLReference {
    /// `reference` resolved against the absolute URI `base` (RFC 3986 §5.2, strict: a
    /// reference with a scheme is taken as it is, dot segments removed, even "http:g").
    ///
    /// - Returns: The target URI as text, its fragment kept; nil when either does not parse or
    ///   `base` has no scheme.
    public static func resolve(_ reference: String, against base: String) -> String? {
        guard let ref = parse(reference), let baseParts = parse(base), baseParts.isAbsolute else { return nil }
        return resolve(ref, against: baseParts).text
    }

    /// The components of `reference` resolved against `base` (§5.2.2); `base` should be
    /// absolute (its fragment is ignored).
    public static func resolve(_ reference: Components, against base: Components) -> Components {
        var target = Components()
        if reference.scheme != nil {
            target = reference
            target.path = removeDotSegments(reference.path)
            return target
        }
        if reference.authority != nil {
            copyAuthority(from: reference, to: &target)
            target.path = removeDotSegments(reference.path)
            target.query = reference.query
        } else {
            if reference.path.isEmpty {
                target.path = base.path
                target.query = reference.query ?? base.query
            } else {
                if reference.path.hasPrefix("/") {
                    target.path = removeDotSegments(reference.path)
                } else {
                    target.path = removeDotSegments(merge(base: base, path: reference.path))
                }
                target.query = reference.query
            }
            copyAuthority(from: base, to: &target)
        }
        target.scheme = base.scheme
        target.fragment = reference.fragment
        return target
    }

    /// `url` without its `#fragment` (what is sent to a server and used as a cache key).
    public static func removingFragment(_ url: String) -> String {
        guard let hash = url.utf8.firstIndex(of: UInt8(ascii: "#")) else { return url }
        return String(url[..<hash])
    }

    /// Removes `.` and `..` segments from a path (§5.2.4); `..` above the root is dropped.
    public static func removeDotSegments(_ path: String) -> String {
        var input = ArraySlice(path.utf8)
        var output: [UInt8] = []
        let slash = UInt8(ascii: "/")
        func starts(_ prefix: String) -> Bool { input.starts(with: prefix.utf8) }
        func isExactly(_ text: String) -> Bool { input.elementsEqual(text.utf8) }
        func popLastSegment() {
            if let last = output.lastIndex(of: slash) { output.removeSubrange(last...) } else { output.removeAll() }
        }
        while !input.isEmpty {
            if starts("../") {
                input.removeFirst(3)
            } else if starts("./") {
                input.removeFirst(2)
            } else if starts("/./") {
                input.removeFirst(2)
            } else if isExactly("/.") {
                input = [slash]
            } else if starts("/../") {
                input.removeFirst(3)
                popLastSegment()
            } else if isExactly("/..") {
                input = [slash]
                popLastSegment()
            } else if isExactly(".") || isExactly("..") {
                input.removeAll()
            } else {
                var end = input.startIndex
                if input[end] == slash { end += 1 }
                while end < input.endIndex, input[end] != slash { end += 1 }
                output.append(contentsOf: input[input.startIndex..<end])
                input = input[end...]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func copyAuthority(from source: Components, to target: inout Components) {
        target.authority = source.authority
        target.userinfo = source.userinfo
        target.host = source.host
        target.port = source.port
    }

    /// §5.2.3: the base path up to its last "/", then `path`; "/" + `path` when the base has
    /// an authority and an empty path.
    static func merge(base: Components, path: String) -> String {
        if base.authority != nil, base.path.isEmpty { return "/" + path }
        guard let slash = base.path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(base.path[...slash]) + path
    }
}
