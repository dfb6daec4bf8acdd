// libFuzzer entry for the AppleDouble (`._NAME`) parser and writer.
// Built by Fuzz/build.py (the parser and the pure writer, reached in XDocSource).

@testable import XDocSource

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The whole file, and the same bytes as the start of a larger file.
    for fileSize in [size, size + 4096] {
        guard let parsed = try? AppleDouble(bytes: bytes, fileSize: fileSize) else { continue }
        let total = parsed.attributes.reduce(0) { $0 + $1.value.count }
        // Values never overlap, so together they fit in the input.
        precondition(total <= size, "attribute values larger than the input")
        precondition(parsed.attributes.count <= 1024)
        _ = parsed.value(named: "x-document-source")
        if fileSize == size { checkWriter(bytes, parsed) }
    }
    return 0
}

let name = "x-document-source"

/// The entries of a file, by id (a parser of the fuzzer's own, for files the library accepted).
func entries(_ b: [UInt8]) -> [(id: UInt32, bytes: ArraySlice<UInt8>)] {
    func u32(_ at: Int) -> Int { Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3]) }
    let count = Int(b[24]) << 8 | Int(b[25])
    return (0..<count).map { i in
        let offset = u32(30 + 12 * i), length = u32(34 + 12 * i)
        return (UInt32(u32(26 + 12 * i)), b[offset..<offset + length])
    }
}

/// Sets a value (derived from the input) and removes it again: each result must parse, hold
/// exactly what was meant, and keep every other entry and attribute byte-exact.
func checkWriter(_ bytes: [UInt8], _ parsed: AppleDouble) {
    let value = Array(bytes.reversed().prefix(bytes.count % 200))
    let before = entries(bytes)
    let ids = before.map(\.id)
    let others = parsed.attributes.filter { $0.name != name }
    let edit: AppleDouble.Edit
    do {
        edit = try AppleDouble.edited(bytes, setting: name, to: value)
    } catch {
        switch error {
        case .tooLarge: return
        case .outOfRange(let why) where why.contains("appears twice"):
            precondition(Set(ids).count < ids.count, "duplicate ids reported wrongly")
            return
        default: preconditionFailure("a parsed file was refused for writing: \(error)")
        }
    }
    guard case .replace(let written) = edit else { preconditionFailure("setting gave \(edit)") }
    let reread: AppleDouble
    do { reread = try AppleDouble(bytes: written) } catch { preconditionFailure("written file does not parse: \(error)") }
    precondition(reread.value(named: name) == value, "value not read back")
    precondition(reread.attributes.filter { $0.name != name } == others, "other attributes changed")
    precondition(reread.finderInfo == (parsed.finderInfo ?? [UInt8](repeating: 0, count: 32)), "Finder info changed")
    let after = entries(written)
    for entry in before where entry.id != 9 {
        precondition(after.contains { $0.id == entry.id && $0.bytes.elementsEqual(entry.bytes) }, "entry \(entry.id) changed")
    }
    precondition(after.count == before.count + (ids.contains(9) ? 0 : 1), "entry count")
    if let fork = after.first(where: { $0.id == 2 }) {
        precondition(fork.bytes.endIndex == written.count, "resource fork not last")
    }
    precondition(reread.attributes.count == others.count + 1)

    // Remove it again: the other attributes stay, or the file holds nothing and goes.
    let removal: AppleDouble.Edit
    do { removal = try AppleDouble.edited(written, setting: name, to: nil) } catch {
        preconditionFailure("removal refused: \(error)")
    }
    switch removal {
    case .unchanged: preconditionFailure("removal found nothing")
    case .delete:
        precondition(others.isEmpty && (reread.finderInfo ?? []).allSatisfy { $0 == 0 })
        // Deleted only when every other entry holds nothing: length 0, or a resource fork that
        // is empty by the library's one rule (none, or Finder's blank map).
        precondition(after.allSatisfy { $0.id == 9 || $0.bytes.isEmpty || ($0.id == 2 && AppleDouble.isEmptyResourceFork($0.bytes)) })
    case .replace(let cleared):
        guard let again = try? AppleDouble(bytes: cleared) else { preconditionFailure("cleared file does not parse") }
        precondition(again.value(named: name) == nil && again.attributes == others, "removal changed others")
        precondition(again.finderInfo == reread.finderInfo)
        let last = entries(cleared)
        for entry in before where entry.id != 9 {
            precondition(last.contains { $0.id == entry.id && $0.bytes.elementsEqual(entry.bytes) }, "entry \(entry.id) changed on removal")
        }
    }
}
