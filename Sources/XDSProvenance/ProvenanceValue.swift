/// One stored value of a mark, as a store hands it over before decoding: its name as found,
/// what the name table says it is, and its bytes (for a value over its bound, only as many as
/// were read). ``ProvenanceDecoder/marks(store:values:)`` turns a store's values into marks.
public struct ProvenanceValue: Sendable, Equatable {
    /// The attribute, stream or entry name as found (lossy text for names that are not UTF-8).
    public let name: String
    /// What the name is (``ProvenanceNames/match(attributeName:)`` and its siblings).
    public let match: ProvenanceNames.Match
    /// The value as stored: Samba's trailing NUL is still there when ``ProvenanceNames/Match/isSambaStream``.
    public let bytes: [UInt8]
    /// The value's whole size, when more than ``bytes`` (a value over its bound is not read
    /// whole); nil when ``bytes`` is all of it. Nil with empty ``bytes`` and ``isOverLimit``
    /// when the size is unknown.
    public let size: Int?
    /// Whether the store refused the value as too large before reading it (a native attribute
    /// over 64 KiB) or ``size`` says it is over its kind's bound.
    public var isOverLimit: Bool {
        oversize || (size ?? bytes.count) > ProvenanceDecoder.maximumSize(of: match.kind)
    }
    private let oversize: Bool
    /// Why ``bytes`` are not the value but its encoding as stored, which does not decode (a
    /// `LIBARCHIVE.xattr` pax record that is not valid base64: "not valid base64"); nil for a
    /// value as it is. Such a value is an undecodable mark, shown as the bytes stored.
    public let encodingError: String?

    /// Creates one; `size` is the whole value's size when `bytes` holds only its start;
    /// `tooLarge` says the store refused it unread; `encodingError` says `bytes` are an
    /// encoding of the value that does not decode.
    public init(name: String, match: ProvenanceNames.Match, bytes: [UInt8], size: Int? = nil, tooLarge: Bool = false,
                encodingError: String? = nil) {
        self.name = name
        self.match = match
        self.bytes = bytes
        self.size = size
        self.oversize = tooLarge
        self.encodingError = encodingError
    }
}
