// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "xds",
    // macOS 13: no module uses Synchronization (Mutex, Atomic need macOS 15); the one lock is
    // XDSSystem's Lock (StartupLinkTests checks that Synchronization is not linked), and the one
    // UTF-8 check is XDSSystem's String(validatingUTF8Bytes:), not String(validating:as:) (macOS
    // 15). XDSSystemTests' PlatformLineTests finds standard-library calls above the line.
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "XDocSource", targets: ["XDocSource"]),
        .library(name: "XDocSourceFetch", targets: ["XDocSourceFetch"]),
        .library(name: "XDocSourceArchive", targets: ["XDocSourceArchive"]),
        .library(name: "IconMask", targets: ["IconMask"]),
        .library(name: "XDocSourceHTTP", targets: ["XDocSourceHTTP"]),
        .library(name: "XDSPublish", targets: ["XDSPublish"]),
        .library(name: "XDSProvenance", targets: ["XDSProvenance"]),
        .library(name: "XDSWalk", targets: ["XDSWalk"]),
        .executable(name: "xds", targets: ["xds"]),
    ],
    dependencies: [
        // swift-argument-parser 1.8.2 with its Foundation import taken out (Vendor/swift-argument-parser/README.md).
        .package(path: "Vendor/swift-argument-parser"),
        // `make docs`: the DocC catalogs of XDocSource, IconMask and XDSPublish.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // C libraries, each reached from one Swift file per module that uses it where the
        // library is a tool of the module (CPlist: XDocSource's PropertyList.swift; CXattr:
        // XDSWalk's ExtendedAttributes.swift; CZlib and CDeflate: IconMask's
        // PNG/Compression.swift), so the rest of the module speaks Swift. Two exceptions, where
        // the library is the module's subject and a Swift wrapper would only restate its API:
        // CCurl in XDocSourceHTTP (CurlTransport.swift, the calls, and CurlErrors.swift, the
        // CURLcode table turned into FetchError words); CArchive and CZlib in
        // XDocSourceArchive, whose files each use another part of them: libarchive's reading
        // (ArchiveReader.swift, its pax attributes in ArchiveReader+Pax.swift, the read callbacks
        // in ArchiveSource.swift), its writing filters (TarStream.swift), its filter and format
        // codes (TarCompression.swift, EmptyStreamCheck.swift); zlib's inflate and crc32
        // (ZipReader.swift, EmptyStreamCheck.swift) and deflate (ZipCopier+AppleDouble.swift).
        //
        // None of the libraries is linked: their headers are needed to build (Debian
        // libplist-dev, zlib1g-dev, libdeflate-dev, libarchive-dev, libcurl4-openssl-dev), and
        // each module opens its library with dlopen when first called (CLibraryLoader), so that a
        // command pays only for the libraries it uses (start-up, Benchmarks/RESULTS.md).
        .target(name: "CLibraryLoader"),
        .target(name: "CPlist", dependencies: ["CLibraryLoader"]),
        .target(name: "CXattr"),
        .target(name: "CZlib", dependencies: ["CLibraryLoader"]),
        .target(name: "CDeflate", dependencies: ["CLibraryLoader"]),
        // Reading zip and tar archives (show ARCHIVE, show -r): members are listed, never extracted.
        .target(name: "CArchive", dependencies: ["CLibraryLoader"]),
        // HTTP(S) for XDocSourceHTTP: the system's libcurl (Debian libcurl4, macOS's own).
        .target(name: "CCurl", dependencies: ["CLibraryLoader"]),
        // The commit `xds --version` names (written by scripts/build-info.sh before `make build`).
        .target(name: "CBuildInfo"),
        // The command line from main's argc and argv, handed to Swift's CommandLine before main:
        // the runtime's own way reads /proc, which a chroot or sandbox may not have (issue 24).
        .target(name: "CProcessArguments"),

        // The POSIX and text plumbing shared by the modules and xds (package access, but for
        // AtomicFile, which XDocSource names for library users, and URLReference, which
        // XDocSourceFetch names): one EINTR policy, errno in words, the bounded file read,
        // temporary files and the atomic write, the URL parser (RFC 3986) and beside it the
        // rule that keeps credentials out of URL text (URLRedaction, the same scanner of
        // schemes and authorities), byte order, hex and path text, the UTF-8 check, byte counts
        // in words, the escaper for text shown to people, the strict JSON reader and the JSON
        // string escaper, calendar arithmetic in integers and the ISO 8601 writer.
        .target(name: "XDSSystem"),

        // The tree walk: folders, the work pool, descriptors and long paths, entries read
        // relative to their folder (the extended-attribute calls, by path and by folder), archives
        // handed over by name, and the inspection hook (FileTreeInspector) through which each
        // reader reads what it wants; its errors (FileAccessError) and paths (TreePath). Below
        // XDocSource and XDSProvenance, which are its two readers (x-document-source; the marks
        // and the Mac metadata), each saying in one table which names it reads in which store:
        // the walk knows no attribute name and no store, so a new reader or store touches
        // neither it nor the other reader.
        .target(name: "XDSWalk", dependencies: ["CXattr", "XDSSystem"]),

        // The attribute: the model, property-list coding, the stores, reading and writing on a
        // path, and its reader of the tree walk (DocumentSourceTree over XDSWalk). What a
        // program that only reads and writes attributes builds.
        .target(
            name: "XDocSource",
            dependencies: ["CPlist", "XDSWalk", "XDSSystem"]
        ),
        // The icon list: the appInfo.json model and icon choice, URL references (XDSSystem's
        // parser, named here), the network policy, the fetcher and its HTTP cache. The transport
        // is a protocol (HTTPTransport).
        // Beside XDocSource, not above it: the plumbing it shares with it is XDSSystem's.
        .target(name: "XDocSourceFetch", dependencies: ["XDSSystem"]),
        // The HTTP transport over the system's libcurl, in its own target so that a program using
        // XDocSourceFetch with a client of its own builds no curl code.
        .target(name: "XDocSourceHTTP", dependencies: ["XDocSourceFetch", "XDSSystem", "CCurl"]),
        // Values inside zip, .textpack and tar archives (libarchive by dlopen, zips by our own
        // reader over zlib), apart so that attribute-only programs build neither.
        .target(name: "XDocSourceArchive", dependencies: ["XDocSource", "XDSSystem", "CArchive", "CZlib"]),
        .target(
            name: "IconMask",
            dependencies: ["CZlib", "CDeflate"]
        ),
        // Publishing an app's icons (xds appinfo, set --from-bundle): reads the bundle (Info.plist
        // with XDocSource's coder), decodes and resizes with IconMask, writes appInfo.json with
        // XDocSourceFetch's model. Its own target because IconMask may not depend on XDocSource.
        .target(
            name: "XDSPublish",
            dependencies: ["XDocSource", "XDocSourceFetch", "IconMask", "XDSSystem"]
        ),
        // Every mark of where a file came from (SPEC §6: quarantine, WhereFroms, xdg,
        // Zone.Identifier, … beside x-document-source), typed, in every store XDocSource and
        // XDocSourceArchive read: what `xds where` and `xds strip` print and remove.
        .target(
            name: "XDSProvenance",
            dependencies: ["XDocSource", "XDocSourceArchive", "XDSWalk", "XDSSystem"]
        ),
        .executableTarget(
            name: "xds",
            dependencies: [
                "XDSProvenance",
                "XDSWalk",
                "XDocSource",
                "XDocSourceFetch",
                "XDocSourceArchive",
                "XDocSourceHTTP",
                "IconMask",
                "XDSPublish",
                "XDSSystem",
                "CBuildInfo",
                "CProcessArguments",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "xds-bench",
            dependencies: ["IconMask", "CDeflate"],
            path: "Benchmarks/xds-bench"
        ),
        .executableTarget(
            name: "xds-tree-bench",
            dependencies: ["XDocSource", "XDSProvenance", "XDSWalk"],
            path: "Benchmarks/xds-tree-bench"
        ),

        // What the test targets share (Foundation only): the one process runner, temporary
        // folders, the repository root, the `xds` binary and the fixtures in Tests/Fixtures.
        // XDSTestSupport waits for programs off Swift Testing's pool; CTestWidth (linked into the
        // test process through it) caps the tests run at once at twice the cores, as Swift
        // Testing starts them all at once otherwise (Tests/CTestWidth/width.c).
        .target(name: "CTestWidth", path: "Tests/CTestWidth"),
        .target(name: "XDSTestSupport", dependencies: ["CTestWidth"], path: "Tests/XDSTestSupport"),

        // One test target per module, named after it: a test file lives with the module whose
        // behaviour it checks, and each target depends on that module, what its tests build
        // values with, and XDSTestSupport. xdsTests runs the `xds` binary.
        .testTarget(name: "XDSSystemTests", dependencies: ["XDSSystem", "XDSTestSupport"]),
        // XDSWalk for the extended-attribute calls the tests set values with.
        .testTarget(name: "XDocSourceTests", dependencies: ["XDocSource", "XDSWalk", "XDSTestSupport"]),
        // XDocSource for one check: the calendar's other user, PropertyListDate.
        .testTarget(
            name: "XDocSourceFetchTests",
            dependencies: ["XDocSourceFetch", "XDSSystem", "XDocSource", "XDSTestSupport"]
        ),
        .testTarget(
            name: "XDocSourceHTTPTests",
            dependencies: ["XDocSourceHTTP", "XDocSourceFetch", "XDSTestSupport"]
        ),
        .testTarget(
            name: "XDocSourceArchiveTests",
            dependencies: ["XDocSourceArchive", "XDocSource", "XDSWalk", "XDSTestSupport"]
        ),
        .testTarget(name: "IconMaskTests", dependencies: ["IconMask", "XDSTestSupport"], exclude: ["Golden"]),
        .testTarget(
            name: "XDSPublishTests",
            dependencies: ["XDSPublish", "XDocSource", "XDocSourceFetch", "XDSTestSupport"]
        ),
        .testTarget(
            name: "XDSProvenanceTests",
            dependencies: ["XDSProvenance", "XDocSource", "XDocSourceArchive", "XDSWalk", "XDSTestSupport"]
        ),
        .testTarget(
            name: "xdsTests",
            dependencies: ["xds", "XDocSource", "XDocSourceFetch", "XDocSourceArchive", "IconMask", "XDSSystem",
                           "XDSTestSupport", "CProcessArguments"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
