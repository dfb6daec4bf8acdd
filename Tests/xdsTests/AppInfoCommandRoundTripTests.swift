import Foundation
import Testing
import XDSTestSupport

/// The publisher's whole path: `xds appinfo` writes a site, the loopback HTTPS server (test
/// CA) serves it, `xds set` labels a file with the printed line's values, and `xds icon` on
/// that file gives the same PNG as `xds mask` on the published image.
@Suite("xds appinfo → served → xds set → xds icon (built binary, real loopback server)", .serialized)
struct AppInfoCommandRoundTripTests {
    @Test("the printed set line, served over HTTPS, gives xds icon the published pixels, masked as xds mask masks them")
    func roundTrip() async throws {
        let server = try await TestHTTPServer.start(sharing: "AppInfoCommandRoundTripTests")
        defer { server.stop() }
        let fixture = try AppBundleFixture()
        try await fixture.iOSApp()
        let site = server.root.appendingPathComponent("apps/editor").path
        let published = try await fixture.appinfo(["Editor.app", "-o", site, "--sizes", "29,58,87",
                                             "--base-url", server.url("/apps/editor/", on: .https)])
        try #require(published.status == 0, "\(published)")

        let words = shellWords(published.stdout)
        try #require(Array(words.prefix(3)) == ["xds", "set", "FILE"], "\(published.stdout)")
        let arguments = ["set", fixture.path("doc.txt")] + words.dropFirst(3)
        try fixture.write("doc.txt", Data("hello\n".utf8))
        let set = try await xds(arguments)
        try #require(set.status == 0, "\(set)")
        let shown = try await xds("show", "--json", fixture.path("doc.txt")).jsonLines().first
        #expect(shown?["identifier"] as? String == "com.example.editor")
        #expect(shown?["name"] as? String == "Editor Pro")
        #expect(shown?["appInfoURL"] as? String == server.url("/apps/editor/appInfo.json", on: .https))

        let home = fixture.path("home")
        try fixture.makeFolder("home")
        for (size, scale, published) in [("29", "1", 29), ("29", "2", 58), ("87", "1", 87)] {
            let icon = try await run(xdsPath, ["icon", fixture.path("doc.txt"), "--size", size, "--scale", scale, "-o", fixture.path("icon.png")],
                               environment: ["SSL_CERT_FILE": server.caCertificatePath, "HOME": home,
                                             "XDG_CACHE_HOME": home + "/cache", "HTTPS_PROXY": "", "https_proxy": "", "NO_PROXY": ""])
            try #require(icon.status == 0, "\(icon)")
            let mask = try await xds(["mask", site + "/img/icon-\(published).png", "--size", size, "--scale", scale, "-o", fixture.path("mask.png")])
            try #require(mask.status == 0, "\(mask)")
            #expect(try fixture.bytes("icon.png") == fixture.bytes("mask.png"), "\(size) pt at \(scale)x")
        }
        let paths = try server.requests().map(\.path)
        #expect(paths.contains("/apps/editor/appInfo.json") && paths.contains("/apps/editor/img/icon-58.png"), "\(paths)")
    }
}
