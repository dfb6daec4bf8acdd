import Foundation
import Testing
import XDSTestSupport

/// What `xds` loads at start-up: every run pays for each shared library it links.
@Suite("start-up libraries")
struct StartupLinkTests {
    /// None of the C libraries xds calls is linked: each is opened with dlopen when first
    /// needed (Sources/CLibraryLoader). libarchive (with libxml2, ICU and the compressors
    /// behind it) added about 3 ms to every `xds show FILE`; libplist, libdeflate and zlib
    /// together about 0.25 ms.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ldd"), "ldd is not installed, so the linked libraries cannot be listed"))
    func noCLibraryIsLinked() async throws {
        let ldd = try await run("/usr/bin/ldd", [xdsPath])
        #expect(ldd.status == 0, "\(ldd)")
        for library in ["libarchive", "libicu", "libcurl", "libplist", "libdeflate", "libz."] {
            #expect(!ldd.stdout.contains(library), "\(library) is linked: \(ldd.stdout)")
        }
    }

    /// Package.swift promises macOS 13; Synchronization (`Mutex`, `Atomic`) needs macOS 15, so no
    /// module may use it (the lock is XDSSystem's `Lock`). On Linux a use shows as a link to
    /// libswiftSynchronization.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ldd"), "ldd is not installed, so the linked libraries cannot be listed"))
    func nothingNeedsMacOS15Synchronization() async throws {
        let ldd = try await run("/usr/bin/ldd", [xdsPath])
        #expect(ldd.status == 0, "\(ldd)")
        #expect(!ldd.stdout.contains("libswiftSynchronization"), "Synchronization is linked: \(ldd.stdout)")
    }

    /// `xds show FILE` decodes the attribute with its own validator and loads no library;
    /// `xds set` encodes with libplist and loads it then (libplist-2.0.so.4 or .so.3). (glibc's loader lists every library
    /// it opens under LD_DEBUG=files.)
    @Test
    func eachCommandLoadsWhatItUses() async throws {
        let folder = TemporaryFolder()
        let document = folder.file("doc.txt", "text")
        let set = try await run(xdsPath, ["set", document, "--id", "com.example.app", "--name", "Example"],
                          environment: ["LD_DEBUG": "files"])
        #expect(set.status == 0, "\(set)")
        #expect(loaded(set).contains { $0.hasPrefix("libplist-2.0.so.") }, "\(set.stderr)")

        let show = try await run(xdsPath, ["show", document], environment: ["LD_DEBUG": "files"])
        #expect(show.status == 0, "\(show)")
        #expect(show.stdout.contains("com.example.app"))
        #expect(loaded(show).isEmpty, "show loaded \(loaded(show))")
    }

    /// The libraries a run opened with dlopen, from its LD_DEBUG=files trace.
    private func loaded(_ run: Run) -> [String] {
        run.stderr.split(separator: "\n").compactMap { line in
            guard line.contains("dynamically loaded by"), let start = line.range(of: "file=") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != " " && $0 != "\t" })
        }
    }
}
