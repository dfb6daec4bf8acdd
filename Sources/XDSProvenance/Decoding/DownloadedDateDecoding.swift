import XDocSource

/// `com.apple.metadata:kMDItemDownloadedDate`: a property list array of dates; the first is
/// the time (a lone date is taken too). No date first in the list is undecodable.
enum DownloadedDateDecoding {
    static func decode(_ raw: [UInt8]) -> ProvenanceMark.Content {
        let root: PropertyListValue
        switch PlistDecoding.decode(raw, maximumSize: ProvenanceDecoder.maximumSize(of: .downloadedDate)) {
        case .success(let value): root = value
        case .failure(let error): return TextDecoding.undecodable(raw, "malformed downloaded-date list: \(error)")
        }
        var first = root
        if case .array(let items) = root {
            guard let item = items.first else {
                return TextDecoding.undecodable(raw, "the downloaded-date list holds no date")
            }
            first = item
        }
        guard case .date(let secondsSince2001) = first else {
            return TextDecoding.undecodable(raw, "the downloaded-date value holds \(first.typeNameInSentence), not a date")
        }
        guard let time = PlistDecoding.time(secondsSince2001) else {
            return TextDecoding.undecodable(raw, "the downloaded date \(secondsSince2001) is not a time that can be shown")
        }
        return .downloadedDate(time)
    }
}
