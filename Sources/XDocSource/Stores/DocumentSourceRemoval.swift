import XDSWalk
/// What ``DocumentSourceFile/remove(sidecar:)`` did: the stores it cleared, and where a value can
/// still be read afterwards, so a caller can say why `show` still finds one.
public struct DocumentSourceRemoval: Sendable, Equatable {
    /// One place that still holds a value after the removal.
    public struct Remaining: Sendable, Equatable {
        /// The store.
        public var store: DocumentSourceStore
        /// The attribute name, or the sidecar's path, as ``StoredDocumentSource/location``.
        public var location: String
        /// Why it is still there: nil for an AppleDouble sidecar (a separate file `remove`
        /// leaves alone), the failure when removing it was tried and refused.
        public var failure: DocumentSourceFileError?

        /// Creates an entry.
        public init(store: DocumentSourceStore, location: String, failure: DocumentSourceFileError? = nil) {
            self.store = store
            self.location = location
            self.failure = failure
        }
    }

    /// The stores the value was removed from, in reading order; empty when none had one.
    public var removed: [DocumentSourceStore]
    /// The places a reader still finds a value in, in reading order; empty when the file
    /// reads as having no value. A malformed sidecar is not listed (it holds no readable value).
    public var remaining: [Remaining]

    /// Creates a result.
    public init(removed: [DocumentSourceStore], remaining: [Remaining] = []) {
        self.removed = removed
        self.remaining = remaining
    }
}

extension DocumentSourceRemoval {
    /// Clears the attribute stores, the native attribute and then each Samba stream name, for
    /// a file (``DocumentSourceFile/remove(sidecar:)``, by path) and for an entry of a walk
    /// (`DocumentSourceTree.Found.remove(sidecar:)`, by descriptor): the one order and the
    /// one rule for failures. `remove` removes one attribute (true: there was a value);
    /// a failure is put in words by `words`. When `endsQuietly` says a failure only means
    /// "no attributes here", the result so far comes back with `ended` true; otherwise a
    /// failure before anything changed is thrown, and one after a change leaves a Samba
    /// stream that `stillHolds` a value listed as remaining.
    static func clearingAttributes(
        remove: (String) throws(ExtendedAttributeFailure) -> Bool,
        words: (ExtendedAttributeFailure) -> DocumentSourceFileError,
        endsQuietly: (DocumentSourceStore, DocumentSourceFileError) -> Bool,
        stillHolds: (String) -> Bool
    ) throws(DocumentSourceFileError) -> (removal: DocumentSourceRemoval, ended: Bool) {
        var result = DocumentSourceRemoval(removed: [])
        for (store, name) in [(DocumentSourceStore.xattr, DocumentSourceFile.attributeName)]
            + SambaStream.attributeNames.map({ (DocumentSourceStore.sambaStream, $0) })
        {
            do {
                if try remove(name), !result.removed.contains(store) { result.removed.append(store) }
            } catch {
                let failure = words(error)
                if endsQuietly(store, failure) { return (result, true) }
                // Nothing changed yet: the failure is the answer.
                guard !result.removed.isEmpty else { throw failure }
                if store == .sambaStream, stillHolds(name) {
                    result.remaining.append(.init(store: .sambaStream, location: name, failure: failure))
                }
            }
        }
        return (result, false)
    }
}
