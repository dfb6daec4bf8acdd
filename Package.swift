// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "xds",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "XDocSource", targets: ["XDocSource"]),
        .library(name: "IconMask", targets: ["IconMask"]),
        .library(name: "XDocSourceHTTP", targets: ["XDocSourceHTTP"]),
        .library(name: "XDSPublish", targets: ["XDSPublish"]),
        .executable(name: "xds", targets: ["xds"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `make docs`: the DocC catalogs of XDocSource, IconMask and XDSPublish.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // C libraries, each reached from one Swift file only.
        .systemLibrary(
            name: "CPlist",
            pkgConfig: "libplist-2.0",
            providers: [.apt(["libplist-dev"]), .brew(["libplist"])]
        ),
        .target(name: "CXattr"),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .systemLibrary(
            name: "CDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]
        ),
        // Reading zip and tar archives (show ARCHIVE, show -r): members are listed, never extracted.
        // libarchive's headers are needed to build (Debian libarchive-dev); the library itself is
        // loaded with dlopen when an archive is first read (see Sources/CArchive/include/carchive.h).
        .target(name: "CArchive"),
        // HTTP(S) for XDocSourceHTTP: the system's libcurl (Debian libcurl4, macOS's own). Its
        // headers are needed to build (Debian libcurl4-openssl-dev); the library itself is loaded
        // with dlopen on the first request (see Sources/CCurl/include/ccurl.h).
        .target(name: "CCurl"),
        // The commit `xds --version` names (written by scripts/build-info.sh before `make build`).
        .target(name: "CBuildInfo"),

        // The POSIX and text plumbing shared by XDocSource and xds (package access only): one
        // EINTR policy, errno in words, a big-endian reader, the escaper for text shown to people.
        .target(name: "XDSSystem"),

        .target(
            name: "XDocSource",
            dependencies: ["CPlist", "CXattr", "CArchive", "CZlib", "XDSSystem"]
        ),
        // The HTTP transport over the system's libcurl, in its own target so that a program using
        // only XDocSource (attributes) builds no HTTP code (SPEC §6).
        .target(name: "XDocSourceHTTP", dependencies: ["XDocSource", "XDSSystem", "CCurl"]),
        .target(
            name: "IconMask",
            dependencies: ["CZlib", "CDeflate"]
        ),
        // Publishing an app's icons (xds appinfo): reads the bundle with XDocSource, decodes and
        // resizes with IconMask. Its own target because neither library may depend on the other.
        .target(
            name: "XDSPublish",
            dependencies: ["XDocSource", "IconMask"]
        ),
        .executableTarget(
            name: "xds",
            dependencies: [
                "XDocSource",
                "XDocSourceHTTP",
                "IconMask",
                "XDSPublish",
                "XDSSystem",
                "CBuildInfo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "xds-bench",
            dependencies: ["IconMask", "CDeflate"],
            path: "Benchmarks/xds-bench"
        ),

        // What the three test targets share (Foundation only): the one process runner, temporary
        // folders, the repository root, the `xds` binary and the fixtures in Tests/Fixtures.
        .target(name: "XDSTestSupport", path: "Tests/XDSTestSupport"),

        .testTarget(name: "XDocSourceTests", dependencies: ["XDocSource", "XDSTestSupport"]),
        .testTarget(name: "IconMaskTests", dependencies: ["IconMask", "XDSTestSupport"], exclude: ["Golden"]),
        .testTarget(
            name: "XDocSourceHTTPTests",
            dependencies: ["XDocSourceHTTP", "XDSTestSupport"]
        ),
        .testTarget(name: "xdsTests", dependencies: ["xds", "XDocSource", "IconMask", "XDSTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
