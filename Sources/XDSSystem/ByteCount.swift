/// A byte count in words, the one wording of every message and limit: "1 GiB", "512 MiB",
/// "64 KiB" when it is a whole number of those (binary units, up to TiB), else "N bytes"
/// ("1 byte").
package enum ByteCount {
    package static func words(_ bytes: some BinaryInteger) -> String {
        let count = Int64(clamping: bytes)
        for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] where count >= Int64(1) << shift {
            if count & ((Int64(1) << shift) - 1) == 0 { return "\(count >> shift) \(unit)" }
        }
        return count == 1 ? "1 byte" : "\(count) bytes"
    }
}
