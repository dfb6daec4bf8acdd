import Testing
@testable import XDocSourceFetch

/// The local path of a `file:` URL typed on the command line, pinned: read leniently, as curl
/// reads one (a space stays part of the path), its authority empty or `localhost`.
@Suite("file: URL paths, pinned")
struct FileURLPathPinTests {
    @Test func paths() {
        let cases: [(String, String?)] = [
            ("file:///tmp/My Icons/appInfo.json", "/tmp/My Icons/appInfo.json"),
            ("FILE://LocalHost/a%20b?x#y", "/a b"),
            ("file:/p#f", "/p"),
            ("file:///p?q/r", "/p"),
            ("file:///caf%C3%A9/[x]", "/café/[x]"),
            ("file://", nil),
            ("file://localhost", nil),
            ("file://h/p", nil),
            ("file://u@localhost/p", nil),
            ("file://localhost:/p", nil),
            ("file:p", nil),
            ("file:", nil),
            ("file:?/p", nil),
            ("file:///a%00b", nil),
            ("file:///a%zz", nil),
            ("file:///a%4", nil),
            ("https:///p", nil),
            ("/p", nil),
            ("file:////p", "//p"),
            ("file://?/p", nil),
            ("file://#/p", nil),
        ]
        for (url, path) in cases {
            #expect(FetcherLocalFiles.path(ofFileURL: url) == path, "\(url)")
        }
    }
}
