import Foundation
import Testing

@Suite("make demo")
struct DemoTests {
    /// scripts/demo.sh (what `make demo` runs after building) works end to end, ends with
    /// `xds icon` on the project's own appInfo.json, and keeps the PNGs it names.
    @Test func demoScriptRuns() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("xds-demo-\(UUID().uuidString)")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("xds-demo-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: home)
        }
        let result = try await run("/bin/sh", [packageRoot + "/scripts/demo.sh", xdsPath, out.path],
                             environment: ["HOME": home.path, "XDG_CACHE_HOME": ""])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("identifier: com.appliedphasor.working-copy"))
        #expect(result.stdout.contains("path:       archive/notes.txt"))
        #expect(result.stdout.contains("\"store\":\"xattr\""))
        #expect(result.stdout.contains("bplist00"))
        #expect(result.stdout.contains("xds: notes.txt: no x-document-source attribute\nexit status 1"))
        #expect(result.stdout.contains("$ xds icon --size 58 -o \(out.path)/icon-58.png"))
        for (name, side) in [("icon-58.png", 58), ("icon-87-circular.png", 87), ("mask-58.png", 58)] {
            let png = try [UInt8](Data(contentsOf: out.appendingPathComponent(name)))
            #expect(png.count > 33 && Array(png[12..<16]) == Array("IHDR".utf8), "\(name)")
            let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
            let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == side && height == side, "\(name) is \(width)×\(height)")
            #expect(result.stdout.contains(out.appendingPathComponent(name).path))
        }
        // A local appInfo.json is read in place: nothing is cached, no cache folder is made.
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent(".cache").path))
    }
}
