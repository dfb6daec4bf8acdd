// The tree walk's own cost, in process, without output: the built-in `x-document-source`
// walk of `show -r` against the same walk with a caller's inspector
// (`DocumentSourceTree.walk(inspecting:)`), on the same tree and threads.
//
//     xds-tree-bench MODE [-j N] ROOT...
//
// MODE: `builtin` (DocumentSourceTree.walk, what show -r walks), `inspect-xds` (an inspector
// that wants only the names the built-in walk reads, and reads and decodes the value: the same
// work through the inspector API), `inspect-marks` (an inspector that wants every name of
// XDSProvenance's table, reads each such value, every sidecar and zone file: what `where -r`
// walks). Prints the counts and the records. Build in release:
// `swift build -c release --product xds-tree-bench`; time whole runs with Benchmarks/tree_ab.py.
import XDSProvenance
import XDocSource

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `x-document-source` value of an entry, decoded, as the built-in walk reads it.
struct DocumentSourceInspector: DocumentSourceTreeInspector {
    static let names: [[UInt8]] = [Array("user.x-document-source".utf8), Array("user.DosStream.x-document-source:$DATA".utf8)]

    func wantsAttribute(named name: UnsafeBufferPointer<UInt8>) -> Bool {
        Self.names.contains { wanted in
            wanted.count == name.count && wanted.withUnsafeBufferPointer { memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0 }
        }
    }

    func inspect(_ entry: DocumentSourceTree.InspectedEntry) throws(DocumentSourceFileError) -> String? {
        for name in Self.names where entry.attributeNames.contains(name) {
            guard let bytes = try entry.value(ofAttribute: name) else { continue }
            do {
                return try DocumentSource(propertyList: bytes).name
            } catch {
                throw DocumentSourceFileError(.malformedValue, path: entry.path.lossyString, message: "\(error)")
            }
        }
        if let sidecar = try entry.readSidecar(), let bytes = sidecar.value(named: "x-document-source") {
            return try? DocumentSource(propertyList: bytes).name
        }
        return nil
    }
}

/// Every mark's raw bytes: the names of ProvenanceNames' table, sidecars, zone files.
struct MarksInspector: DocumentSourceTreeInspector {
    func wantsAttribute(named name: UnsafeBufferPointer<UInt8>) -> Bool {
        ProvenanceNames.match(attributeName: name) != nil
    }

    var companionSuffix: [UInt8]? { ProvenanceNames.zoneFileSuffix }

    func inspect(_ entry: DocumentSourceTree.InspectedEntry) throws(DocumentSourceFileError) -> Int? {
        var bytes = 0
        for name in entry.attributeNames where ProvenanceNames.match(attributeName: name) != nil {
            bytes += try entry.value(ofAttribute: name)?.count ?? 0
        }
        if let sidecar = try entry.readSidecar() {
            for attribute in sidecar.attributes where ProvenanceNames.match(plainName: attribute.name.utf8) != nil {
                bytes += attribute.value.count
            }
        }
        bytes += try entry.readCompanion(upTo: 65_536, describedAs: "zone file")?.bytes.count ?? 0
        return bytes > 0 ? bytes : nil
    }
}

func fail(_ message: String) -> Never {
    let line = "xds-tree-bench: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(64)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first else {
    fail("usage: xds-tree-bench builtin|inspect-xds|inspect-marks [-j N] ROOT...")
}
arguments.removeFirst()
var jobs = 1
if arguments.first == "-j", arguments.count > 1, let n = Int(arguments[1]) {
    jobs = n
    arguments.removeFirst(2)
}
let tree = DocumentSourceTree(roots: arguments, jobs: jobs)
var records = 0
var problems = 0
let counts: DocumentSourceTree.Counts
switch mode {
case "builtin":
    counts = tree.walk { event in
        switch event {
        case .found: records += 1
        case .problem: problems += 1
        case .progress: break
        }
        return .proceed
    }
case "inspect-xds", "inspect-marks":
    func visit<Record>(_ event: DocumentSourceTree.InspectionEvent<Record>) -> DocumentSourceTree.Decision {
        switch event {
        case .inspected: records += 1
        case .problem: problems += 1
        case .progress: break
        }
        return .proceed
    }
    counts = mode == "inspect-xds"
        ? tree.walk(inspecting: DocumentSourceInspector(), visit)
        : tree.walk(inspecting: MarksInspector(), visit)
default:
    fail("unknown mode \(mode)")
}
print("\(mode): files \(counts.files) folders \(counts.folders) records \(records) problems \(problems)")
