import Foundation
@testable import XDocSource

/// A fresh folder under /tmp (a real ext4 or tmpfs with `user.` attributes), removed on deinit.
final class TemporaryFolder {
    let path: String

    init() {
        let template = "/tmp/xds-tests.XXXXXX"
        var bytes = Array(template.utf8CString)
        path = bytes.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Creates a file with some content and returns its path.
    @discardableResult
    func file(_ name: String, contents: String = "content\n") -> String {
        let full = path + "/" + name
        _ = FileManager.default.createFile(atPath: full, contents: Data(contents.utf8))
        return full
    }

    /// Creates a folder and returns its path.
    func folder(_ name: String) -> String {
        let full = path + "/" + name
        try! FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        return full
    }

    /// Writes raw bytes as a file.
    @discardableResult
    func write(_ name: String, bytes: [UInt8]) -> String {
        let full = path + "/" + name
        _ = FileManager.default.createFile(atPath: full, contents: Data(bytes))
        return full
    }
}

/// Sets an arbitrary attribute through the same wrapper the library uses.
func setRawAttribute(_ name: String, _ value: [UInt8], on path: String) throws {
    try ExtendedAttributes.setValue(value, named: name, atPath: path, followSymlinks: true)
}

/// Reads an arbitrary attribute.
func rawAttribute(_ name: String, on path: String) throws -> [UInt8]? {
    try ExtendedAttributes.value(named: name, atPath: path, followSymlinks: true)
}

/// A sample value with every plist type among its other keys.
func sampleSource() -> DocumentSource {
    var source = DocumentSource(
        identifier: "com.appliedphasor.working-copy", name: "Working Copy",
        path: "docs/report.pdf", appInfoURL: "https://workingcopy.app/appInfo.json")
    source.dictionary["com.example.nested"] = .dictionary([
        "list": .array([.integer(-3), .real(2.5), .boolean(true), .string("ü")]),
        "blob": .data([0, 1, 2, 255]),
        "when": .date(700_000_000.5),
    ])
    source.dictionary["com.example.big"] = .unsignedInteger(UInt64.max)
    source.dictionary["com.example.flag"] = .boolean(false)
    return source
}

/// Builds an AppleDouble file the way macOS writes `._NAME` (INTEROP §3): header, a Finder-info
/// entry (id 9) at offset 50 holding 32 zero bytes, 2 of padding, the ATTR header at 84, the
/// attribute entries from 120 (4-byte aligned) and the values packed after them; then an empty
/// resource-fork entry (id 2) at the end.
func appleDoubleBytes(attributes: [(String, [UInt8])]) -> [UInt8] {
    func u32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
    func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 255), UInt8(v & 255)] }
    // Entry table first, to learn where the values start.
    var entriesSize = 0
    for (name, _) in attributes {
        entriesSize = (entriesSize + 11 + name.utf8.count + 1 + 3) & ~3
    }
    let dataStart = 120 + entriesSize
    let dataLength = attributes.reduce(0) { $0 + $1.1.count }
    let totalSize = dataStart + dataLength

    var out: [UInt8] = []
    out += u32(0x0005_1607) + u32(0x0002_0000) + Array("Mac OS X        ".utf8) + u16(2)
    out += u32(9) + u32(50) + u32(totalSize - 50)
    out += u32(2) + u32(totalSize) + u32(0)
    out += [UInt8](repeating: 0, count: 32) + [0, 0]
    out += u32(0x4154_5452) + u32(0) + u32(totalSize) + u32(dataStart) + u32(dataLength)
    out += [UInt8](repeating: 0, count: 12) + u16(0) + u16(attributes.count)
    var valueOffset = dataStart
    for (name, value) in attributes {
        while out.count % 4 != 0 { out.append(0) }
        out += u32(valueOffset) + u32(value.count) + u16(0) + [UInt8(name.utf8.count + 1)]
        out += Array(name.utf8) + [0]
        valueOffset += value.count
    }
    while out.count < dataStart { out.append(0) }
    for (_, value) in attributes { out += value }
    return out
}

enum FileManagerShim {
    static func symlink(_ link: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    }
}
