import Foundation
import Testing

@Suite("make demo")
struct DemoTests {
    /// scripts/demo.sh (what `make demo` runs after building) works end to end.
    @Test func demoScriptRuns() throws {
        let result = try run("/bin/sh", [packageRoot + "/scripts/demo.sh", xdsPath])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("identifier: com.appliedphasor.working-copy"))
        #expect(result.stdout.contains("path:       archive/notes.txt"))
        #expect(result.stdout.contains("\"store\":\"xattr\""))
        #expect(result.stdout.contains("bplist00"))
        #expect(result.stdout.contains("exit status 1"))
        #expect(result.stdout.contains("xds: notes.txt: no x-document-source attribute\nexit status 1"))
    }
}
