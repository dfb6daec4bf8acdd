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
