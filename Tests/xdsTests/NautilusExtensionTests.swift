import Foundation
import Testing
import XDSTestSupport

/// The GNOME Files extension (desktop/nautilus/xds_nautilus.py, SPEC §6b), unit-tested in
/// Python (Tests/Desktop/test_nautilus_extension.py) with the system's /usr/bin/python3, which
/// has gi and the Nautilus 4.0 typelib (`make test` installs python3-nautilus and
/// gir1.2-nautilus-4.0; python3 on PATH may be another one without gi). The extension runs the
/// built xds; its Fetch App Icon action fetches from a loopback HTTPS server. Home, data and
/// cache folders are temporary.
@Suite("GNOME Files extension (nautilus-python, unit tests)")
struct NautilusExtensionTests {
    /// Whether /usr/bin/python3 can load the Nautilus 4.0 bindings.
    static var bindingsAvailable: Bool {
        get async { await bindingsProbe.value }
    }

    private static let bindingsProbe = Task<Bool, Never> {
        let check = try? await ProcessRunner.run("/usr/bin/python3", ["-c", """
            import gi
            gi.require_version("Nautilus", "4.0")
            from gi.repository import Nautilus
            """])
        return check?.status == 0
    }

    @Test("columns, emblems, properties, menu actions, one process per folder, a free main loop",
          .enabled("needs /usr/bin/python3 with gi and the Nautilus 4.0 typelib (apt-get install python3-nautilus gir1.2-nautilus-4.0)") {
              await bindingsAvailable
          })
    func extensionUnitTests() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        for side in [29, 58, 87, 1024] {
            try await server.write("app/img/icon-\(side).png", Repository.bytes("img/icon-\(side).png"))
        }
        try await server.write("app/appInfo.json", Data(Repository.bytes("appInfo.json")))
        let home = try await ScratchFolder.make(prefix: "xds-nautilus-home")
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = [
            "XDS_REAL": xdsPath, "HOME": home.path,
            "XDG_DATA_HOME": home.appendingPathComponent("data").path,
            "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "TZ": "Asia/Kolkata", "SSL_CERT_FILE": server.caCertificatePath,
            "XDS_TEST_APPINFO_URL": server.url("/app/appInfo.json", on: .https),
            "XDS_NAUTILUS_DEBUG": "1", "https_proxy": "", "HTTPS_PROXY": "", "all_proxy": "", "ALL_PROXY": "",
        ]
        let result = try await ProcessRunner.run(
            "/usr/bin/python3", [Repository.url("Tests/Desktop/test_nautilus_extension.py").path],
            environment: environment, timeLimit: 170)
        #expect(result.status == 0 && !result.timedOut, "\(result.stderr)\n\(result.stdout)")
        // The one request of the run: Fetch App Icon's (list and the two icon sizes).
        #expect(try await server.requests().allSatisfy { $0.path.hasPrefix("/app/") })
    }
}
