import XDocSource

/// `com.apple.metadata:kMDItemWhereFroms`: a binary property list, an array of strings (a
/// browser's file URL then the page; Mail's From, Subject and Message-ID). Over 1 MiB or
/// 1 000 strings is damaged data: the count is read from the binary plist's trailer and root
/// object header before anything is parsed, then XDocSource's validator and coder read it.
enum WhereFromsDecoding {
    static func decode(_ raw: [UInt8]) -> ProvenanceMark.Content {
        let limit = ProvenanceDecoder.maximumWhereFromsCount
        if let count = BinaryPlistPeek.rootArrayCount(raw), count > limit {
            return TextDecoding.undecodableHidingCredentials(raw, "the WhereFroms list holds \(count) strings, more than the \(limit) accepted (damaged data)")
        }
        let root: PropertyListValue
        switch PlistDecoding.decode(raw, maximumSize: ProvenanceDecoder.maximumSize(of: .whereFroms)) {
        case .success(let value): root = value
        case .failure(let error): return TextDecoding.undecodableHidingCredentials(raw, "malformed WhereFroms list: \(error)")
        }
        guard case .array(let items) = root else {
            return TextDecoding.undecodableHidingCredentials(raw, "the WhereFroms value is \(root.typeNameInSentence), not an array of strings")
        }
        guard items.count <= limit else {
            return TextDecoding.undecodableHidingCredentials(raw, "the WhereFroms list holds \(items.count) strings, more than the \(limit) accepted (damaged data)")
        }
        var strings: [String] = []
        strings.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else {
                return TextDecoding.undecodableHidingCredentials(raw, "item \(index + 1) of the WhereFroms list is \(item.typeNameInSentence), not a string")
            }
            strings.append(text)
        }
        return .whereFroms(strings)
    }
}
