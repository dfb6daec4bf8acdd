// libFuzzer entry for URL references (RFC 3986 parsing, resolution, dot segments, and the
// local-folder resolution of an appInfo.json's `src`). Built by Fuzz/urlref/build.sh.
// The input is split at its first NUL: reference, then base (or a fixed base).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let reference = String(decoding: parts[0], as: UTF8.self)
    let bases = parts.count > 1 ? [String(decoding: parts[1], as: UTF8.self)] : []
        + ["https://example.com/a/b/appInfo.json?q#f", "http://[::1]:8080/", "file:///srv/app/appInfo.json"]
    if let parsed = URLReference.parse(reference) {
        // What parse gives back is a reference that parses to the same components.
        let text = parsed.text
        guard let again = URLReference.parse(text) else { preconditionFailure("recomposed reference does not parse: \(text)") }
        precondition(again.text == text, "recomposition not stable: \(text) → \(again.text)")
    }
    for base in bases {
        guard let resolved = URLReference.resolve(reference, against: base) else { continue }
        // A resolved reference is absolute, parses, and has no dot segments left.
        guard let parts = URLReference.parse(resolved) else { preconditionFailure("resolved URL does not parse: \(resolved)") }
        precondition(parts.scheme != nil, "resolved URL has no scheme: \(resolved)")
        // (A path starting "//" without an authority is written "/.//…", as RFC 3986's errata
        // and WHATWG do, so that it does not read as an authority: that "/." stays.)
        let path = parts.authority == nil && parts.path.utf8.starts(with: "/.//".utf8) ? String(parts.path.dropFirst(2)) : parts.path
        precondition(URLReference.removeDotSegments(path) == path, "dot segments left: \(resolved)")
        precondition(URLReference.resolve(resolved, against: base) == resolved, "resolving twice differs: \(resolved)")
    }
    let dots = URLReference.removeDotSegments(reference)
    precondition(URLReference.removeDotSegments(dots) == dots, "removeDotSegments not idempotent: \(reference)")
    // A relative src resolved in a folder stays in it, unless it climbs out with a leading "..".
    if case .path(let path)? = URLReference.resolveLocal(reference, inFolder: "/srv/app"),
       !Array(reference.utf8).starts(with: "/".utf8), !Array(reference.lowercased().utf8).starts(with: "file:".utf8)
    {
        // Bytes, not Swift's canonical-equivalence String comparison: file names are bytes.
        precondition(Array(path.utf8).starts(with: "/srv/app/".utf8), "relative src left its folder: \(reference) → \(path)")
    }
    return 0
}
