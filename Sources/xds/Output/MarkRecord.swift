import XDSProvenance
import XDSSystem
import XDocSource

/// One record `xds where` prints: every mark found on a file, folder, orphan sidecar or zone
/// file, or archive member (SPEC §6). Built from XDSProvenance's typed marks and rendered here
/// only, as text for people (``text(urls:)``) or as one JSON Lines object (``json(urls:)``):
/// a field is added in this one place, to both renderings.
struct MarkRecord {
    /// Where an archive member was found.
    struct Member {
        /// The archive, exact bytes.
        var archive: DocumentSourceTreePath
        /// The member's name in it.
        var name: DocumentSourceTreePath
    }

    /// The name shown, exact bytes: the file as given, a path met in a walk, `ARCHIVE!/MEMBER`.
    var file: DocumentSourceTreePath
    /// For an archive member: the archive and the member's name (JSON `archive`, `member`).
    var member: Member?
    /// The marks, in the library's order (store, then name table).
    var marks: [ProvenanceMark]

    init(file: DocumentSourceTreePath, member: Member? = nil, marks: [ProvenanceMark]) {
        self.file = file
        self.member = member
        self.marks = marks
    }

    /// The marks whose value does not decode (each a warning, and status 65).
    var undecodable: [(mark: ProvenanceMark, value: UndecodableValue)] {
        marks.compactMap { mark in
            if case .undecodable(let value) = mark.content { (mark, value) } else { nil }
        }
    }

    /// `KIND (STORE)`: how a mark is named in headings, warnings and `strip -n`.
    static func heading(kind: ProvenanceKind, store: ProvenanceStore) -> String {
        "\(kind.rawValue) (\(store.rawValue))"
    }

    // MARK: JSON

    /// The JSON Lines object, without the line break: `"file"` (`"archive"` and `"member"` for a
    /// member), then `"marks"`: per mark `"kind"`, `"store"`, `"name"` and the kind's fields
    /// under SPEC §6's keys. `urls` gives the text of every URL field (credentials hidden,
    /// `--redact`), `urlBytes` the bytes of one that is not UTF-8, before they are shown as hex.
    func json(urls: (String) -> String, urlBytes: ([UInt8]) -> [UInt8] = { $0 }) -> String {
        var object = JSONObject()
        fill(&object, urls: urls, urlBytes: urlBytes)
        return object.json
    }

    /// ``json(urls:urlBytes:)`` and a line break, appended to `out` as bytes (a walk's batch).
    func appendJSONLine(to out: inout [UInt8], urls: (String) -> String, urlBytes: ([UInt8]) -> [UInt8] = { $0 }) {
        var object = JSONObject(continuing: &out)
        fill(&object, urls: urls, urlBytes: urlBytes)
        object.endLine(into: &out)
    }

    private func fill(_ object: inout JSONObject, urls: (String) -> String, urlBytes: ([UInt8]) -> [UInt8]) {
        object.add("file", file)
        if let member {
            object.add("archive", member.archive)
            object.add("member", member.name)
        }
        object.addObjects("marks", marks) { mark, object in Self.fill(&object, mark, urls: urls, urlBytes: urlBytes) }
    }

    private static func fill(_ object: inout JSONObject, _ mark: ProvenanceMark, urls: (String) -> String,
                             urlBytes: ([UInt8]) -> [UInt8]) {
        object.add("kind", mark.kind.rawValue)
        object.add("store", mark.store.rawValue)
        object.add("name", mark.name)
        switch mark.content {
        case .documentSource(let source):
            // Its fields are show's, under one key: show's `name` and `store` would collide
            // with the mark's own.
            object.addObject("documentSource") { $0.addFields(of: source, url: urls) }
        case .quarantine(let quarantine):
            object.add("flags", quarantine.flags)
            object.add("flagNames", strings: quarantine.flagNames)
            if let time = quarantine.time { object.add("time", time.iso8601) }
            if let agent = quarantine.agent { object.add("agent", agent) }
            if let eventID = quarantine.eventID { object.add("eventID", eventID) }
        case .whereFroms(let strings):
            object.add("urls", strings: strings.map(urls))
        case .downloadedDate(let time), .lastUsedDate(let time):
            object.add("time", time.iso8601)
        case .macOSProvenance(let bytes):
            object.add("hex", Hex.string(bytes))
        case .xdg(let origin):
            for (key, value) in xdgRows(origin, urls: urls) { object.add(key, value) }
        case .zoneIdentifier(let zone):
            if let number = zone.zone { object.add("zone", json: String(number)) }
            if let name = zone.zoneName { object.add("zoneName", name) }
            if let host = zone.hostURL { object.add("hostURL", urls(host)) }
            if let referrer = zone.referrerURL { object.add("referrerURL", urls(referrer)) }
        case .undecodable(let value):
            object.add("hex", Hex.string(value.isURL ? urlBytes(value.bytes) : value.bytes))
            object.add("error", value.reason)
        }
    }

    /// The xdg fields present, under their JSON keys (URL fields through `urls`).
    private static func xdgRows(_ origin: XDGOrigin, urls: (String) -> String) -> [(String, String)] {
        XDGOrigin.Field.allCases.compactMap { field in
            guard let value = origin[field] else { return nil }
            let isURL = field.isURLField
            return (field.rawValue, isURL ? urls(value) : value)
        }
    }

    // MARK: Text

    /// The text for people: the name, then per mark `  KIND (STORE)` and its fields under it
    /// (labels are the JSON keys; values aligned in one column for the whole record), the
    /// attribute or file it was read from last. Everything is escaped (``VisibleText``,
    /// ``DocumentSourceTreePath/visible``).
    func text(urls: (String) -> String, urlBytes: ([UInt8]) -> [UInt8] = { $0 }) -> String {
        let rows = marks.map { Self.rows($0, urls: urls, urlBytes: urlBytes) }
        let width = rows.flatMap { $0.map(\.label.count) }.max().map { $0 + 1 } ?? 0
        var text = file.visible + "\n"
        for (mark, rows) in zip(marks, rows) {
            text += "  " + Self.heading(kind: mark.kind, store: mark.store) + "\n"
            for (label, lines) in rows {
                for (index, line) in lines.enumerated() {
                    text += "    " + (index == 0 ? label + ":" : "").padded(to: width) + " " + line + "\n"
                }
            }
            if case .documentSource(let source) = mark.content {
                text += FoundRecord.otherKeysText(source, indent: "    ")
            }
        }
        return text
    }

    /// A mark's rows: a label and the value's lines, escaped (a WhereFroms list has several).
    private static func rows(_ mark: ProvenanceMark, urls: (String) -> String,
                             urlBytes: ([UInt8]) -> [UInt8]) -> [(label: String, lines: [String])] {
        var rows: [(label: String, lines: [String])] = []
        func row(_ label: String, _ value: String) { rows.append((label, [VisibleText.escaped(value)])) }
        switch mark.content {
        case .documentSource(let source):
            for (key, value) in zip(DocumentSource.keys, [source.identifier, source.name, source.path, source.appInfoURL.map(urls)]) {
                if let value { row(key, value) }
            }
        case .quarantine(let quarantine):
            let names = quarantine.flagNames
            rows.append(("flags", [VisibleText.escaped(quarantine.flags) + (names.isEmpty ? "" : " (" + names.joined(separator: ", ") + ")")]))
            if let time = quarantine.time { row("time", time.iso8601) }
            if let agent = quarantine.agent { row("agent", agent) }
            if let eventID = quarantine.eventID { row("eventID", eventID) }
        case .whereFroms(let strings):
            rows.append(("urls", strings.isEmpty ? ["(none)"] : strings.map { VisibleText.escaped(urls($0)) }))
        case .downloadedDate(let time), .lastUsedDate(let time):
            row("time", time.iso8601)
        case .macOSProvenance(let bytes):
            row("hex", Hex.string(bytes))
        case .xdg(let origin):
            for (key, value) in xdgRows(origin, urls: urls) { row(key, value) }
        case .zoneIdentifier(let zone):
            if let number = zone.zone { rows.append(("zone", [String(number) + (zone.zoneName.map { " (\($0))" } ?? "")])) }
            if let host = zone.hostURL { row("hostURL", urls(host)) }
            if let referrer = zone.referrerURL { row("referrerURL", urls(referrer)) }
        case .undecodable(let value):
            row("hex", Hex.string(value.isURL ? urlBytes(value.bytes) : value.bytes))
            row("error", value.reason)
        }
        rows.append((mark.store == .zoneFile ? "file" : "attribute", [visibleName(mark.name)]))
        return rows
    }

    /// A mark's name as the text shows it: escaped (``VisibleText``), and U+F022 — the
    /// private-use character Samba's `vfs_fruit` (`fruit:encoding = private`) and `vfs_catia`
    /// put for a `:` in a stream name, which a terminal draws as nothing — written `\u{f022}`
    /// (SPEC §6). JSON keeps the character.
    static func visibleName(_ name: String) -> String {
        let escaped = VisibleText.escaped(name)
        guard escaped.unicodeScalars.contains("\u{F022}") else { return escaped }
        var out = ""
        for scalar in escaped.unicodeScalars {
            if scalar == "\u{F022}" { out += "\\u{f022}" } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}
