// libFuzzer entry for the appInfo.json reader (strict RFC 8259 JSON, the icons list, icon
// choice). Built by Fuzz/build.py.

@testable import XDocSource
@testable import XDocSourceFetch
#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let info = try? AppInfo(json: bytes, source: "fuzz") else { return 0 }
    check(bytes.count <= AppInfo.maximumSize, "a list over the size limit was read")
    for icon in info.icons {
        check(icon.width > 0 && icon.height > 0, "an icon with a size that is not positive was kept")
    }
    // Icon choice (SPEC §3): exact, else the smallest at least as large, else the largest.
    for n in [1, 29, 58, 87, 180, 1024, Int.max] {
        guard let chosen = info.icon(forPixelSize: n) else {
            check(info.icons.isEmpty, "no icon chosen from a non-empty list")
            continue
        }
        if info.icons.contains(where: { $0.width == n && $0.height == n }) {
            check(chosen.width == n && chosen.height == n, "exact entry not chosen for \(n)")
        } else if info.icons.contains(where: { $0.width >= n && $0.height >= n }) {
            check(chosen.width >= n && chosen.height >= n, "a smaller entry chosen for \(n)")
        }
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
