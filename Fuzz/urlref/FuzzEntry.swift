// libFuzzer entry for URL references (RFC 3986 parsing, resolution, dot segments, and the
// local-folder resolution of an appInfo.json's `src`). Built by Fuzz/build.py.
// The input is split at its first NUL: reference, then base (or a fixed base).

@testable import XDocSource
@testable import XDocSourceFetch
#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let reference = String(decoding: parts[0], as: UTF8.self)
    var bases = ["https://example.com/a/b/appInfo.json?q#f", "http://[::1]:8080/", "file:///lists/app/appInfo.json"]
    // A base of the input's own, when it is absolute and already normalised (RFC 3986 §5.2.2
    // keeps a base's path as it is for an empty reference, dot segments and all).
    if parts.count > 1, let base = URLReference.parse(String(decoding: parts[1], as: UTF8.self)),
       base.scheme != nil, URLReference.removeDotSegments(base.path) == base.path, !base.path.utf8.starts(with: "//".utf8)
    {
        bases.append(base.text)
    }
    if let parsed = URLReference.parse(reference) {
        // What parse gives back is a reference that parses to the same components.
        let text = parsed.text
        guard let again = URLReference.parse(text) else { fail("recomposed reference does not parse: \(text)") }
        check(again.text == text, "recomposition not stable: \(text) → \(again.text)")
    }
    for base in bases {
        guard let resolved = URLReference.resolve(reference, against: base) else { continue }
        // A resolved reference is absolute, parses, and has no dot segments left.
        guard let parts = URLReference.parse(resolved) else { fail("resolved URL does not parse: \(resolved)") }
        check(parts.scheme != nil, "resolved URL has no scheme: \(resolved)")
        // (A path starting "//" without an authority is written "/.//…", as RFC 3986's errata
        // and WHATWG do, so that it does not read as an authority: that "/." stays.)
        let path = parts.authority == nil && parts.path.utf8.starts(with: "/.//".utf8) ? String(parts.path.dropFirst(2)) : parts.path
        // (RFC 3986 §5.2.2: a reference with an empty path takes the base's path as it is.)
        let keepsBasePath = URLReference.parse(reference).map { $0.scheme == nil && $0.authority == nil && $0.path.isEmpty } ?? false
        check(keepsBasePath || URLReference.removeDotSegments(path) == path, "dot segments left: \(resolved)")
    }
    let dots = URLReference.removeDotSegments(reference)
    check(URLReference.removeDotSegments(dots) == dots, "removeDotSegments not idempotent: \(reference)")
    // A relative src resolved in a folder stays in it, unless it climbs out with a leading "..".
    if case .path(let path)? = URLReference.resolveLocal(reference, inFolder: "/lists/app"),
       !Array(reference.utf8).starts(with: "/".utf8), !Array(reference.lowercased().utf8).starts(with: "file:".utf8)
    {
        // Bytes, not Swift's canonical-equivalence String comparison: file names are bytes.
        check(Array(path.utf8).starts(with: "/lists/app/".utf8), "relative src left its folder: \(reference) → \(path)")
    }
    return 0
}

/// A failed check: the message on standard error (an optimised build drops a precondition's
/// message), then a crash libFuzzer records.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fail(message()) }
}

func fail(_ message: String) -> Never {
    fputs("fuzz check failed: \(message)\n", stderr)
    abort()
}
