#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDocSource
import XDSWalk

/// The stores of one file or folder as the marks' reader sees them: by path
/// (``ProvenanceFile``, XDocSource's `DocumentSourceFile`) or as the walk hands an entry over
/// (``ProvenanceTree``: XDSWalk's `FileTree.InspectedEntry`, read relative to its open folder).
/// Which names are asked for in which store is ``ProvenanceReading``'s, never a source's.
protocol ProvenanceSource {
    /// The attribute names as the source lists them.
    associatedtype AttributeNames: Sequence<ArraySlice<UInt8>>
    /// Every attribute name, as listed (`listxattr`).
    func listedAttributeNames() throws(FileAccessError) -> AttributeNames
    /// The value of the listed attribute `name`.
    func attributeValue(_ name: ArraySlice<UInt8>, text: String) throws(FileAccessError) -> DocumentSourceFile.AttributeValue
    /// The sidecar `._NAME`, parsed, or nil when there is none.
    func sidecar() throws(FileAccessError) -> AppleDouble?
    /// The companion file `NAME:Zone.Identifier`: its name, at most `limit` bytes, its size.
    func zoneFile(limit: Int) throws(FileAccessError) -> (name: String, bytes: [UInt8], size: Int)?
}

/// The marks' one table of stores and their one reading function, for a path and for the walk:
/// which names are wanted in which store (``ProvenanceNames``' table, in every road's spelling:
/// attribute names in the xattr and Samba-stream stores, plain names in the sidecar, the zone
/// file's name beside the file), in which order the stores come (``stores``), and how each
/// value is bounded before it is decoded.
enum ProvenanceReading {
    /// The stores of a file or folder, in the order marks are listed (SPEC §6): native
    /// attributes, Samba's streams (both from the one listing), the AppleDouble sidecar, the
    /// zone file. Written here only.
    static let stores: [ProvenanceStore] = [.xattr, .sambaStream, .appleDouble, .zoneFile]

    /// The values found, by store, in ``stores`` order.
    struct Found {
        /// One list per store of ``stores``, in its order (four lists, not a list of them: no
        /// array to allocate for an entry's one value, issue 35).
        private var xattr: [ProvenanceValue] = [], sambaStream: [ProvenanceValue] = []
        private var appleDouble: [ProvenanceValue] = [], zoneFile: [ProvenanceValue] = []

        /// Adds `value`, found in `store`.
        mutating func append(_ value: ProvenanceValue, in store: ProvenanceStore) {
            switch store {
            case .xattr: xattr.append(value)
            case .sambaStream: sambaStream.append(value)
            case .appleDouble: appleDouble.append(value)
            case .zoneFile: zoneFile.append(value)
            case .zip, .tar: return  // an archive's stores, never a file's
            }
        }

        /// Calls `body` with each store that has values, in ``stores`` order.
        func forEachStore(_ body: (ProvenanceStore, [ProvenanceValue]) -> Void) {
            for store in ProvenanceReading.stores {
                let values: [ProvenanceValue] = switch store {
                case .xattr: xattr
                case .sambaStream: sambaStream
                case .appleDouble: appleDouble
                case .zoneFile: zoneFile
                case .zip, .tar: []
                }
                if !values.isEmpty { body(store, values) }
            }
        }
    }

    /// The marks of `kinds` (nil: every kind) in every store of `source`, their values read
    /// when `readValues` (else names alone: what a strip or a dry run needs). A sidecar that
    /// is not AppleDouble goes to `malformedSidecar`, which rethrows it or keeps it; the
    /// other stores are read on.
    static func find(
        in source: some ProvenanceSource, kinds: Set<ProvenanceKind>?, readValues: Bool,
        malformedSidecar: (FileAccessError) throws(FileAccessError) -> Void
    ) throws(FileAccessError) -> Found {
        var found = Found()
        for rawName in try source.listedAttributeNames() {
            guard let match = ProvenanceNames.match(attributeName: rawName), kinds?.contains(match.kind) ?? true
            else { continue }
            let name = String(decoding: rawName, as: UTF8.self)
            let store: ProvenanceStore = match.isSambaStream ? .sambaStream : .xattr
            guard readValues else {
                found.append(ProvenanceValue(name: name, match: match, bytes: []), in: store)
                continue
            }
            switch try source.attributeValue(rawName, text: name) {
            case .absent: continue  // removed since the listing
            case .value(let bytes): found.append(ProvenanceValue(name: name, match: match, bytes: bytes), in: store)
            case .tooLarge: found.append(ProvenanceValue(name: name, match: match, bytes: [], tooLarge: true), in: store)
            }
        }
        var double: AppleDouble?
        do {
            double = try source.sidecar()
        } catch where error.kind == .malformedSidecar {
            try malformedSidecar(error)
        }
        for attribute in double?.attributes ?? [] {
            guard let match = ProvenanceNames.match(plainName: Array(attribute.name.utf8)), kinds?.contains(match.kind) ?? true
            else { continue }
            found.append(ProvenanceValue(name: attribute.name, match: match, bytes: attribute.value), in: .appleDouble)
        }
        if kinds?.contains(.zoneIdentifier) ?? true {
            let limit = ProvenanceDecoder.maximumSize(of: .zoneIdentifier)
            if let zone = try source.zoneFile(limit: readValues ? limit + 1 : 0) {
                let match = ProvenanceNames.Match(kind: .zoneIdentifier, field: nil, isSambaStream: false)
                let size = zone.size > zone.bytes.count ? zone.size : nil
                found.append(ProvenanceValue(name: zone.name, match: match, bytes: zone.bytes, size: size), in: .zoneFile)
            }
        }
        return found
    }

    /// The marks of what ``find(in:kinds:readValues:malformedSidecar:)`` found, decoded, in
    /// ``stores`` order (within a store in ``ProvenanceNames/table`` order).
    static func marks(_ found: Found) -> [ProvenanceMark] {
        var marks: [ProvenanceMark] = []
        found.forEachStore { store, values in
            let decoded = ProvenanceDecoder.marks(store: store, values: values)
            if marks.isEmpty { marks = decoded } else { marks += decoded }
        }
        return marks
    }

    /// One location per kind and store, in ``stores`` order.
    static func locations(_ found: Found) -> [ProvenanceMarkLocation] {
        var locations: [ProvenanceMarkLocation] = []
        found.forEachStore { store, values in
            locations += ProvenanceMarkLocation.grouped(store: store, values.map { ($0.name, $0.match) })
        }
        return locations
    }
}

/// A path's stores, through XDocSource's `DocumentSourceFile` (its wording, its sidecar
/// reader, links followed as it is told).
struct ProvenancePathSource: ProvenanceSource {
    let file: DocumentSourceFile

    func listedAttributeNames() throws(FileAccessError) -> [ArraySlice<UInt8>] {
        guard let names = try file.allAttributeNames() else {
            // No extended attributes here: the sidecar and zone file are the stores. A path
            // that does not exist is still an error.
            _ = try file.fileType()
            return []
        }
        return names.map { $0[...] }
    }

    func attributeValue(_ name: ArraySlice<UInt8>, text: String) throws(FileAccessError) -> DocumentSourceFile.AttributeValue {
        try file.attributeValue(named: text)
    }

    func sidecar() throws(FileAccessError) -> AppleDouble? {
        try file.readSidecarDouble()?.double
    }

    func zoneFile(limit: Int) throws(FileAccessError) -> (name: String, bytes: [UInt8], size: Int)? {
        guard let zone = try file.readFileBeside(named: { ProvenanceFile.zoneFileName(for: $0) }, limit: limit)
        else { return nil }
        return (zone.name, zone.bytes, zone.size)
    }
}

/// An entry of the walk: its one listing, values read relative to its open folder, its
/// sidecar and zone file from the folder's listing.
extension FileTree.InspectedEntry: ProvenanceSource {
    func listedAttributeNames() throws(FileAccessError) -> FileTree.AttributeNameList {
        attributeNames
    }

    func attributeValue(_ name: ArraySlice<UInt8>, text: String) throws(FileAccessError) -> DocumentSourceFile.AttributeValue {
        do {
            guard let bytes = try value(ofAttribute: name) else { return .absent }
            return .value(bytes)
        } catch where error.errorNumber == E2BIG {
            return .tooLarge
        }
    }

    func sidecar() throws(FileAccessError) -> AppleDouble? {
        try readSidecar()
    }

    func zoneFile(limit: Int) throws(FileAccessError) -> (name: String, bytes: [UInt8], size: Int)? {
        guard let companionName, let zone = try readCompanion(upTo: limit, describedAs: "zone file") else { return nil }
        return (String(decoding: companionName, as: UTF8.self), zone.bytes, zone.fileSize)
    }
}
