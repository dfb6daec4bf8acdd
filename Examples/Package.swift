// swift-tools-version: 6.0
// A small program that uses the xds libraries the way an app would (see README.md here).
// `make examples` (part of `make test`) builds and runs it against a loopback server.
import PackageDescription

let package = Package(
    name: "xds-example",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "xds", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "xds-example",
            dependencies: [
                .product(name: "XDocSource", package: "xds"),
                .product(name: "XDocSourceFetch", package: "xds"),
                .product(name: "XDocSourceHTTP", package: "xds"),
                .product(name: "IconMask", package: "xds"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
