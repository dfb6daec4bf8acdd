// libFuzzer entry for XDSProvenance's decoders (SPEC §6) and its URL text.
// Built by Fuzz/build.py. The first byte picks the kind (ProvenanceKind.allCases, modulo), the
// rest is the value; every input is also given to every other decoder and to ProvenanceURL.

@testable import XDSProvenance
import XDSSystem

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
        // Values that hold URLs are kept without the credentials SPEC §6's rule finds in them.
        let holdsURLs = kind == .whereFroms || kind == .zoneIdentifier || kind == .xdg
        let shown = holdsURLs ? ProvenanceURL.withoutCredentials(bytes: value) : value
        precondition(Array(shown.prefix(undecodable.bytes.count)) == undecodable.bytes, "kept bytes are the value's first")
        precondition(undecodable.isURL == (kind == .xdg), "only a URL field gets --redact's cut")
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

/// ProvenanceURL (SPEC §6's one rule): no user information the rule finds survives, in text or
/// bytes; both forms are idempotent and agree; a redacted text has no query or fragment after
/// its first authority; a text without an authority is kept; a host never holds credentials.
func checkURL(_ text: String) {
    let clean = ProvenanceURL.withoutCredentials(text)
    let redacted = ProvenanceURL.redacted(text)
    precondition(ProvenanceURL.withoutCredentials(clean) == clean, "withoutCredentials is idempotent")
    precondition(ProvenanceURL.redacted(redacted) == redacted, "redacted is idempotent")
    precondition(ProvenanceURL.withoutCredentials(bytes: Array(text.utf8)) == Array(clean.utf8), "bytes and text agree")
    precondition(ProvenanceURL.redacted(bytes: Array(text.utf8)) == Array(redacted.utf8), "bytes and text agree")
    var found = false
    URLRedaction.forEachAuthority(Array(text.utf8)) { _ in
        found = true
        return false
    }
    if !found { precondition(clean == text && redacted == text, "text without an authority is kept") }
    for output in [clean, redacted] { checkNoUserInfo(Array(output.utf8)) }
    var firstEnd: Int?
    let redactedBytes = Array(redacted.utf8)
    URLRedaction.forEachAuthority(redactedBytes) { authority in
        firstEnd = authority.range.upperBound
        return false
    }
    if let firstEnd {
        precondition(!redactedBytes[firstEnd...].contains { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }, "query or fragment left")
    }
    precondition(!(ProvenanceURL.host(text)?.contains("@") ?? false), "credentials in the host")
    // The start of a longer value: the same, and an authority running to its end is all `***`.
    let prefix = ProvenanceURL.withoutCredentials(prefix: Array(text.utf8))
    checkNoUserInfo(prefix)
    URLRedaction.forEachAuthority(prefix) { authority in
        if authority.range.upperBound == prefix.count { precondition(Array(prefix[authority.range]) == Array("***".utf8), "open authority shown") }
        return true
    }
}

/// Every authority the rule finds holds at most `***` before its last `@`.
func checkNoUserInfo(_ bytes: [UInt8]) {
    URLRedaction.forEachAuthority(bytes) { authority in
        if let at = authority.userInfoEnd {
            precondition(Array(bytes[authority.range.lowerBound..<at]) == Array("***".utf8), "user information shown")
        }
        return true
    }
}
