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
