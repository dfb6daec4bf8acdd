/// A ``FileTreeInspector`` with its record type erased, shared by every worker of a
/// walk: the walker stays one non-generic type, and records travel to the calling thread as `any Sendable`, cast back there.
final class TreeInspection: Sendable {
    let wants: @Sendable (UnsafeBufferPointer<UInt8>) -> Bool
    let companionSuffix: [UInt8]?
    let inspect: @Sendable (FileTree.InspectedEntry) throws(FileAccessError) -> (any Sendable)?
    /// Whether entries may be claimed by name (``claims`` is asked only then).
    let claimsEntries: Bool
    let claims: @Sendable (ArraySlice<UInt8>) -> Bool
    /// nil: declined; `.some(record)`: taken, with the record if any.
    let inspectClaimed: @Sendable (FileTree.ClaimedEntry) throws(FileAccessError) -> (any Sendable)??
    let walksFolders: Bool
    let failuresNameTheEntry: Bool

    init<Inspector: FileTreeInspector>(_ inspector: Inspector) {
        wants = { inspector.wantsAttribute(named: $0) }
        companionSuffix = inspector.companionSuffix.flatMap { $0.isEmpty ? nil : $0 }
        inspect = { (entry) throws(FileAccessError) -> (any Sendable)? in
            guard let record = try inspector.inspect(entry) else { return nil }
            return record
        }
        claimsEntries = inspector.claimsEntries
        claims = { inspector.claimsEntry(named: $0) }
        inspectClaimed = { (entry) throws(FileAccessError) -> (any Sendable)?? in
            switch try inspector.inspect(claimed: entry) {
            case .declined: return nil
            case .taken(let record): return .some(record.map { $0 as any Sendable })
            }
        }
        walksFolders = inspector.walksFolders
        failuresNameTheEntry = inspector.failuresNameTheEntry
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
