import Foundation
import Testing

/// What `xds` loads at start-up: every run pays for each shared library it links.
@Suite("start-up libraries")
struct StartupLinkTests {
    /// libarchive (with libxml2, ICU and the compressors behind it) is loaded only when an
    /// archive is read; linked, it added about 3 ms to every `xds show FILE`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ldd"), "ldd is not installed, so the linked libraries cannot be listed"))
    func libarchiveIsNotLinked() throws {
        let ldd = try run("/usr/bin/ldd", [xdsPath])
        #expect(ldd.status == 0, "\(ldd)")
        #expect(!ldd.stdout.contains("libarchive"), "\(ldd.stdout)")
        #expect(!ldd.stdout.contains("libicu"), "\(ldd.stdout)")
    }
}
