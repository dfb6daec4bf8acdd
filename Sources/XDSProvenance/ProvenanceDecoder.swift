internal import XDSSystem

/// The decoders of every kind (SPEC §6): a mark's raw bytes to ``ProvenanceMark/Content``.
///
/// Every value is data written by someone else. Each kind has a bound checked before its
/// value is read or parsed (``maximumSize(of:)``), property lists go through XDocSource's
/// checks (the binary validator before any parse), and nothing here trusts a count, offset or
/// encoding it has not checked. A value that does not decode is not an error: it becomes
/// ``ProvenanceMark/Content/undecodable(_:)`` with its first bytes and the reason in words, so
/// that the file's other marks are still read.
///
/// One trailing NUL byte, as Netatalk (`ea = samba`) and Samba keep values, is tolerated by
/// every decoder but ``ProvenanceKind/macOSProvenance`` (opaque bytes, shown as they are);
/// Samba's own NUL is taken off first by ``ProvenanceNames/storedValue(_:kind:isSambaStream:)``.
public enum ProvenanceDecoder {
    /// The largest value of `kind` that is decoded: 1 MiB for a WhereFroms list, 64 KiB for
    /// every other kind (the Linux limit of one attribute, and SPEC §6's bound of a
    /// `Zone.Identifier` or quarantine value). A larger value is damaged data.
    public static func maximumSize(of kind: ProvenanceKind) -> Int {
        kind == .whereFroms ? 1 << 20 : 1 << 16
    }

    /// The most strings a WhereFroms list may hold (a browser writes two, Mail three).
    public static let maximumWhereFromsCount = 1000

    /// Decodes one value of `kind` (for ``ProvenanceKind/xdg``, as its ``XDGOrigin/url``;
    /// use ``xdg(_:)`` for the fields of one store).
    public static func content(of kind: ProvenanceKind, _ bytes: [UInt8]) -> ProvenanceMark.Content {
        guard bytes.count <= maximumSize(of: kind) else { return tooLarge(kind, bytes, size: bytes.count) }
        switch kind {
        case .xDocumentSource: return DocumentSourceDecoding.decode(bytes)
        case .quarantine: return QuarantineDecoding.decode(bytes)
        case .whereFroms: return WhereFromsDecoding.decode(bytes)
        case .downloadedDate: return DownloadedDateDecoding.decode(bytes)
        case .lastUsedDate: return LastUsedDateDecoding.decode(bytes)
        case .macOSProvenance: return .macOSProvenance(bytes)
        case .xdg: return xdg([(.url, bytes)])
        case .zoneIdentifier: return ZoneIdentifierDecoding.decode(bytes)
        }
    }

    /// The one ``ProvenanceKind/xdg`` mark of the fields found in one store (the first value
    /// of a field wins when one is given twice).
    /// The values are UTF-8 text (freedesktop's rule); one that is not makes the mark undecodable.
    public static func xdg(_ fields: [(field: XDGOrigin.Field, value: [UInt8])]) -> ProvenanceMark.Content {
        var origin = XDGOrigin()
        for (field, value) in fields where origin[field] == nil {
            guard value.count <= maximumSize(of: .xdg) else { return tooLarge(.xdg, value, size: value.count, field: field) }
            guard let text = String(validatingUTF8Bytes: TextDecoding.droppingOneNUL(value[...])) else {
                let reason = "the xdg \(field.rawValue) is not UTF-8 text"
                // A URL field gets SPEC §6's credential rule on its bytes before they are kept.
                if field.isURLField { return .undecodable(UndecodableValue(hidingCredentialsIn: value, reason: reason, isURL: true)) }
                return TextDecoding.undecodable(value, reason)
            }
            origin[field] = text
        }
        return .xdg(origin)
    }

    /// The marks of one store's values, in ``ProvenanceNames/table`` order (values of one kind
    /// in the order given): one mark per value, but one ``ProvenanceKind/xdg`` mark for all the
    /// xdg values of the store (its ``ProvenanceMark/names`` in table order). Samba's trailing
    /// NUL is taken off here; a value over its bound is an undecodable mark.
    public static func marks(store: ProvenanceStore, values: [ProvenanceValue]) -> [ProvenanceMark] {
        // The common store of one value: its mark, with nothing to order.
        if values.count == 1, let value = values.first, value.match.kind != .xdg {
            return [ProvenanceMark(kind: value.match.kind, store: store, names: [value.name], content: content(of: value))]
        }
        var marks: [(order: Int, mark: ProvenanceMark)] = []
        var xdgValues: [(order: Int, value: ProvenanceValue)] = []
        for value in values {
            let order = tableOrder(value.match)
            if value.match.kind == .xdg {
                xdgValues.append((order, value))
                continue
            }
            marks.append((order, ProvenanceMark(
                kind: value.match.kind, store: store, names: [value.name], content: content(of: value))))
        }
        if !xdgValues.isEmpty {
            let sorted = xdgValues.enumerated().sorted { ($0.element.order, $0.offset) < ($1.element.order, $1.offset) }.map(\.element)
            let content: ProvenanceMark.Content
            if let over = sorted.first(where: { $0.value.isOverLimit }) {
                content = tooLarge(.xdg, over.value.bytes, size: over.value.size, field: over.value.match.field ?? .url)
            } else if let encoded = sorted.first(where: { $0.value.encodingError != nil }) {
                content = notDecoded(encoded.value, reason: encoded.value.encodingError!)
            } else {
                content = xdg(sorted.map { ($0.value.match.field ?? .url, Array(stored($0.value))) })
            }
            marks.append((sorted[0].order, ProvenanceMark(kind: .xdg, store: store, names: sorted.map(\.value.name), content: content)))
        }
        return marks.enumerated().sorted { ($0.element.order, $0.offset) < ($1.element.order, $1.offset) }.map(\.element.mark)
    }

    /// One value decoded as its kind, Samba's NUL taken off, its bound checked first.
    public static func content(of value: ProvenanceValue) -> ProvenanceMark.Content {
        if value.isOverLimit { return tooLarge(value.match.kind, value.bytes, size: value.size, field: value.match.field ?? .url) }
        if let error = value.encodingError { return notDecoded(value, reason: error) }
        if value.match.kind == .xdg { return xdg([(value.match.field ?? .url, Array(stored(value)))]) }
        return content(of: value.match.kind, Array(stored(value)))
    }

    /// The position of a name's kind (and xdg field) in ``ProvenanceNames/table``: the order
    /// marks are listed in within a store (every xdg field at the first xdg row).
    static func tableOrder(_ match: ProvenanceNames.Match) -> Int {
        let table = ProvenanceNames.table
        if match.kind == .xdg {
            let first = table.firstIndex { $0.kind == .xdg } ?? 0
            let row = table.firstIndex { $0.kind == .xdg && $0.field == match.field } ?? first
            return first * 100 + row
        }
        return (table.firstIndex { $0.kind == match.kind } ?? table.count) * 100
    }

    private static func stored(_ value: ProvenanceValue) -> ArraySlice<UInt8> {
        ProvenanceNames.storedValue(value.bytes, kind: value.match.kind, isSambaStream: value.match.isSambaStream)
    }

    /// A value whose stored form could not be decoded (a `LIBARCHIVE.xattr` value that is not
    /// base64): shown as stored, with the URL rule run over it when its kind holds URLs, as
    /// for a value over its bound.
    static func notDecoded(_ value: ProvenanceValue, reason: String) -> ProvenanceMark.Content {
        let kind = value.match.kind
        let isURL = kind == .xdg && (value.match.field ?? .url).isURLField
        guard isURL || kind == .whereFroms || kind == .zoneIdentifier else {
            return .undecodable(UndecodableValue(bytes: value.bytes, reason: reason))
        }
        return .undecodable(UndecodableValue(hidingCredentialsIn: value.bytes, reason: reason, isURL: isURL))
    }

    /// The undecodable mark of a value over its bound (`field`: which xdg field it is, the
    /// `url` when not given, as ``content(of:_:)`` decodes an xdg value). A value
    /// that holds URLs (an xdg `url` or `referrer`, a WhereFroms list, a `Zone.Identifier`) is
    /// kept without the credentials SPEC §6's rule finds in what was read of it.
    static func tooLarge(_ kind: ProvenanceKind, _ bytes: [UInt8], size: Int?,
                         field: XDGOrigin.Field? = nil) -> ProvenanceMark.Content {
        let limit = maximumSize(of: kind)
        let sizeText = size.map { "is \(ByteCount.words($0))" } ?? "is larger than the filesystem's limit"
        let reason = "the \(kind) value \(sizeText), more than the \(ByteCount.words(limit)) accepted (damaged data)"
        let isURL = kind == .xdg && (field ?? .url).isURLField
        guard isURL || kind == .whereFroms || kind == .zoneIdentifier else {
            return .undecodable(UndecodableValue(bytes: bytes, reason: reason))
        }
        return .undecodable(UndecodableValue(hidingCredentialsIn: bytes, reason: reason, isURL: isURL,
                                             complete: (size ?? bytes.count) <= bytes.count))
    }
}
