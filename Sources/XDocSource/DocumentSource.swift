/// Placeholder; the attribute model arrives with the core work.
public struct DocumentSource: Sendable, Equatable {
    public init() {}
}
