// libFuzzer entry for XDSProvenance's decoders (SPEC §6) and its URL text.
// Built by Fuzz/build.py. The first byte picks the kind (ProvenanceKind.allCases, modulo), the
// rest is the value; every input is also given to every other decoder and to ProvenanceURL.

@testable import XDSProvenance

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = input.first else { return 0 }
    let value = Array(input.dropFirst())
    let kinds = ProvenanceKind.allCases
    let first = kinds[Int(selector) % kinds.count]
    for kind in [first] + kinds.filter({ $0 != first }) {
        check(kind, value, ProvenanceDecoder.content(of: kind, value))
    }
    // The same value as a Samba stream (its NUL) and as a value over its bound.
    let match = ProvenanceNames.Match(kind: first, field: first == .xdg ? .url : nil, isSambaStream: true)
    let marks = ProvenanceDecoder.marks(store: .sambaStream, values: [
        ProvenanceValue(name: "n", match: match, bytes: value + [0]),
        ProvenanceValue(name: "m", match: match, bytes: value, size: 1 << 21),
    ])
    precondition(first == .xdg ? marks.count == 1 : marks.count == 2, "one mark per value, one xdg mark per store")
    checkURL(String(decoding: value, as: UTF8.self))
    return 0
}

/// What every decoded value must satisfy.
func check(_ kind: ProvenanceKind, _ value: [UInt8], _ content: ProvenanceMark.Content) {
    switch content {
    case .undecodable(let undecodable):
        precondition(undecodable.bytes.count <= UndecodableValue.maximumKept)
        precondition(Array(value.prefix(undecodable.bytes.count)) == undecodable.bytes, "kept bytes are the value's first")
        // A reason is one line of visible text: whatever the value holds never reaches it raw.
        precondition(!undecodable.reason.isEmpty)
        precondition(!undecodable.reason.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "control character in a reason")
    case .quarantine(let quarantine):
        precondition(kind == .quarantine)
        precondition(quarantine.flags.utf8.count == 4 && quarantine.flagBits <= 0xFFFF)
        precondition(value.count >= 4)
    case .whereFroms(let strings):
        precondition(kind == .whereFroms && strings.count <= ProvenanceDecoder.maximumWhereFromsCount)
    case .lastUsedDate(let time):
        precondition(kind == .lastUsedDate && (value.count == 16 || value.count == 17))
        precondition(time.nanoseconds >= 0 && time.nanoseconds < 1_000_000_000)
        _ = time.iso8601
    case .downloadedDate(let time):
        precondition(kind == .downloadedDate)
        _ = time.iso8601
    case .zoneIdentifier(let zone):
        precondition(kind == .zoneIdentifier)
        _ = zone.zoneName
    case .macOSProvenance(let bytes):
        precondition(kind == .macOSProvenance && bytes == value)
    case .xdg, .documentSource:
        break
    }
}

/// ProvenanceURL: credentials never survive, redaction is idempotent and leaves no query.
func checkURL(_ text: String) {
    let clean = ProvenanceURL.withoutCredentials(text)
    let redacted = ProvenanceURL.redacted(text)
    precondition(ProvenanceURL.withoutCredentials(clean) == clean, "withoutCredentials is idempotent")
    precondition(ProvenanceURL.redacted(redacted) == redacted, "redacted is idempotent")
    if ProvenanceURL.isURL(text) {
        precondition(!redacted.contains("?") && !redacted.contains("#"), "query or fragment left")
        if text.contains("://"), let host = ProvenanceURL.host(clean) {
            precondition(!host.contains("@"), "credentials in the host")
        }
    } else {
        precondition(clean == text && redacted == text, "text that is not a URL is kept")
    }
}
