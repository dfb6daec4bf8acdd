// Labels a file, reads the label back, fetches and masks its app's icon, and scans a folder:
//
//   xds-example FOLDER APPINFO_URL
//
// FOLDER is a scratch folder (a file is created in it); APPINFO_URL an appInfo.json on an
// http(s) server (http is allowed here because the example runs against a loopback server).
import IconMask
import XDocSource
import XDocSourceFetch
import XDocSourceHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: xds-example FOLDER APPINFO_URL")
    exit(64)
}
let folder = arguments[1], appInfoURL = arguments[2]

// 1. Label a file with the app it came from.
let path = folder + "/report.txt"
let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
guard fd >= 0 else { print("cannot create \(path)"); exit(74) }
_ = "quarterly numbers\n".withCString { write(fd, $0, strlen($0)) }
close(fd)

let file = DocumentSourceFile(path: path)
try file.update(with: DocumentSource(identifier: "com.example.editor", name: "Editor",
                                     path: "docs/report.txt", appInfoURL: appInfoURL))

// 2. Read it back: the value and the store it came from.
guard let found = try file.read() else { print("no value read back"); exit(1) }
print("label: \(found.source.name ?? "?") (\(found.source.identifier ?? "?")), path \(found.source.path ?? "?"), store \(found.store)")

// 3. Fetch the app's icon list and the 58 px icon, then mask it as iOS draws it.
let fetcher = AppInfoFetcher(transport: CurlTransport(configuration: .fromEnvironment(allowHTTP: true)),
                             policy: FetchPolicy(allowHTTP: true),
                             cache: CacheSettings(directory: folder + "/cache"))
let icon = try await fetcher.iconImage(pixelSize: 58, from: .attribute(found.source.appInfoURL!))
let image = try PNGDecoder.decode(icon.bytes)
let masked = try IconMasker.mask(image, options: MaskOptions(sizePoints: 29, scale: 2))
let png = try PNGEncoder.encode(masked)
print("icon: \(icon.entry.width)x\(icon.entry.height) from \(icon.url) → masked \(masked.width)x\(masked.height), \(png.count) bytes of PNG")

// 4. Scan the folder for every labelled file.
var labelled: [String] = []
DocumentSourceTree(roots: [folder]).walk { event in
    if case .found(let found) = event { labelled.append(found.path.visible) }
    return .proceed
}
print("scan: \(labelled.count) labelled: \(labelled.joined(separator: ", "))")
