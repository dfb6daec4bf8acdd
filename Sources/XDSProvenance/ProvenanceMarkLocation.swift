/// Where marks of one kind were (or, with `-n`, would be) removed by ``ProvenanceFile/strip(_:dryRun:)``:
/// one kind in one store, with the attribute, stream, entry or file names.
public struct ProvenanceMarkLocation: Sendable, Equatable {
    /// The convention.
    public let kind: ProvenanceKind
    /// The store it was removed from.
    public let store: ProvenanceStore
    /// The names as found (attribute or stream names, sidecar entry names, the zone file's
    /// name), lossy text for names that are not UTF-8.
    public let names: [String]

    /// Creates one.
    public init(kind: ProvenanceKind, store: ProvenanceStore, names: [String]) {
        self.kind = kind
        self.store = store
        self.names = names
    }
}

extension ProvenanceMarkLocation {
    /// The locations of one store's marks, one per kind: kinds in ``ProvenanceNames/table``
    /// order, names in that order and then as found (what ``ProvenanceFile/strip(_:dryRun:)``
    /// and `ProvenanceTree`'s strip report alike).
    static func grouped(store: ProvenanceStore, _ found: [(name: String, match: ProvenanceNames.Match)]) -> [ProvenanceMarkLocation] {
        let ordered = found.enumerated()
            .sorted { (ProvenanceDecoder.tableOrder($0.element.match), $0.offset) < (ProvenanceDecoder.tableOrder($1.element.match), $1.offset) }
            .map(\.element)
        var byKind: [(kind: ProvenanceKind, names: [String])] = []
        for value in ordered {
            if let index = byKind.firstIndex(where: { $0.kind == value.match.kind }) {
                byKind[index].names.append(value.name)
            } else {
                byKind.append((value.match.kind, [value.name]))
            }
        }
        return byKind.map { ProvenanceMarkLocation(kind: $0.kind, store: store, names: $0.names) }
    }
}
