/// A ``DocumentSourceTreeInspector`` with its record type erased, shared by every worker of a
/// walk: the walker stays one non-generic type (the `show -r` path is untouched by it), and
/// records travel to the calling thread as `any Sendable`, cast back there.
final class TreeInspection: Sendable {
    let wants: @Sendable (UnsafeBufferPointer<UInt8>) -> Bool
    let zoneOwner: @Sendable (ArraySlice<UInt8>) -> [UInt8]?
    let zoneName: @Sendable ([UInt8]) -> [UInt8]?
    let inspect: @Sendable (DocumentSourceTree.InspectedEntry) throws(DocumentSourceFileError) -> (any Sendable)?
    /// Whether entries may be claimed by name (``claims`` is asked only then).
    let claimsEntries: Bool
    let claims: @Sendable (ArraySlice<UInt8>) -> Bool
    /// nil: declined; `.some(record)`: taken, with the record if any.
    let inspectClaimed: @Sendable (DocumentSourceTree.ClaimedEntry) throws(DocumentSourceFileError) -> (any Sendable)??
    let walksFolders: Bool

    init<Inspector: DocumentSourceTreeInspector>(_ inspector: Inspector) {
        wants = { inspector.wantsAttribute(named: $0) }
        zoneOwner = { inspector.zoneFileOwner($0) }
        zoneName = { inspector.zoneFileName(for: $0) }
        inspect = { (entry) throws(DocumentSourceFileError) -> (any Sendable)? in
            guard let record = try inspector.inspect(entry) else { return nil }
            return record
        }
        claimsEntries = inspector.claimsEntries
        claims = { inspector.claimsEntry(named: $0) }
        inspectClaimed = { (entry) throws(DocumentSourceFileError) -> (any Sendable)?? in
            switch try inspector.inspect(claimed: entry) {
            case .declined: return nil
            case .taken(let record): return .some(record.map { $0 as any Sendable })
            }
        }
        walksFolders = inspector.walksFolders
    }

    /// Whether any name in the first `size` bytes of `list` (NUL-ended names) is wanted.
    func wantsAny(_ list: [UInt8], size: Int) -> Bool {
        list.withUnsafeBufferPointer { all in
            var start = 0
            while start < size {
                var end = start
                while end < size && all[end] != 0 { end += 1 }
                if end > start && wants(UnsafeBufferPointer(rebasing: all[start..<end])) { return true }
                start = end + 1
            }
            return false
        }
    }
}
