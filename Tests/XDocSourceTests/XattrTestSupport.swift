import Foundation
import XDSTestSupport
@testable import XDocSource
@testable import XDSWalk

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

enum FileManagerShim {
    static func symlink(_ link: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    }
}
