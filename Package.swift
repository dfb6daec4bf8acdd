// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "xds",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "XDocSource", targets: ["XDocSource"]),
        .library(name: "IconMask", targets: ["IconMask"]),
        .executable(name: "xds", targets: ["xds"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
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

        .target(
            name: "XDocSource",
            dependencies: ["CPlist", "CXattr"]
        ),
        .target(
            name: "IconMask",
            dependencies: ["CZlib", "CDeflate"]
        ),
        .executableTarget(
            name: "xds",
            dependencies: [
                "XDocSource",
                "IconMask",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "xds-bench",
            dependencies: ["IconMask", "CDeflate"],
            path: "Benchmarks/xds-bench"
        ),

        .testTarget(name: "XDocSourceTests", dependencies: ["XDocSource"]),
        .testTarget(name: "IconMaskTests", dependencies: ["IconMask"], exclude: ["Golden"]),
        .testTarget(name: "xdsTests", dependencies: ["xds", "XDocSource", "IconMask"]),
    ],
    swiftLanguageModes: [.v6]
)
