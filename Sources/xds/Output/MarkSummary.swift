import XDSProvenance
import XDSSystem
import XDocSource

/// `xds where -r --summary`: counts instead of records (SPEC §6): files with a mark, marks per
/// kind and per store, URLs per host and marks per agent. Memory stays bounded whatever the
/// tree: at most ``maximumDistinct`` hosts and as many agents are kept, the rest are counted
/// as `(other)`.
struct MarkSummary {
    /// The most distinct hosts, and the most distinct agents, counted by name.
    static let maximumDistinct = 1000
    /// What the values past ``maximumDistinct`` are counted as.
    static let other = "(other)"

    /// Files (and folders, orphans, archive members) with at least one mark.
    private(set) var files = 0
    private(set) var kinds: [ProvenanceKind: Int] = [:]
    private(set) var stores: [ProvenanceStore: Int] = [:]
    private(set) var hosts = BoundedCounts(limit: maximumDistinct)
    private(set) var agents = BoundedCounts(limit: maximumDistinct)

    /// Counts one record's marks.
    mutating func add(_ marks: [ProvenanceMark]) {
        guard !marks.isEmpty else { return }
        files += 1
        for mark in marks {
            kinds[mark.kind, default: 0] += 1
            stores[mark.store, default: 0] += 1
            switch mark.content {
            case .quarantine(let quarantine):
                if let agent = quarantine.agent { agents.add(agent) }
            case .whereFroms(let strings):
                for string in strings { addHost(of: string) }
            case .xdg(let origin):
                for url in [origin.url, origin.referrer].compactMap({ $0 }) { addHost(of: url) }
                for agent in [origin.publisher, origin.creator].compactMap({ $0 }) { agents.add(agent) }
            case .zoneIdentifier(let zone):
                for url in [zone.hostURL, zone.referrerURL].compactMap({ $0 }) { addHost(of: url) }
            case .documentSource, .downloadedDate, .lastUsedDate, .macOSProvenance, .undecodable:
                break
            }
        }
    }

    /// Counts the host of `text` when it is a URL with one (a WhereFroms list also holds Mail's
    /// From and Subject, which are not): ``ProvenanceURL/host(_:)``, lower-cased, never the
    /// credentials.
    private mutating func addHost(of text: String) {
        guard let host = ProvenanceURL.host(text) else { return }
        hosts.add(host)
    }

    /// The rows: `(count, what, value)`, groups in the order files, kind, store, host, agent,
    /// each most first (then by value).
    var rows: [(count: Int, what: String, value: String?)] {
        var rows: [(count: Int, what: String, value: String?)] = [(files, "files", nil)]
        func group(_ what: String, _ counts: [(String, Int)]) {
            for (value, count) in Self.mostFirst(counts) { rows.append((count, what, value)) }
        }
        group("kind", kinds.map { ($0.key.rawValue, $0.value) })
        group("store", stores.map { ($0.key.rawValue, $0.value) })
        group("host", hosts.entries)
        group("agent", agents.entries)
        return rows
    }

    /// `COUNT  WHAT  VALUE` lines, counts right-aligned, values escaped.
    var text: String {
        let rows = rows
        let width = rows.map { String($0.count).count }.max() ?? 1
        var text = ""
        for row in rows {
            let count = String(row.count)
            let line = String(repeating: " ", count: width - count.count) + count + "  "
            if let value = row.value {
                text += line + row.what.padded(to: 5) + "  " + VisibleText.escaped(value) + "\n"
            } else {
                text += line + row.what + "\n"
            }
        }
        return text
    }

    /// One JSON object: `{"files": N, "kinds": {…}, "stores": {…}, "hosts": {…}, "agents": {…}}`,
    /// each object's keys most first.
    var json: String {
        var object = JSONObject()
        object.add("files", json: String(files))
        func group(_ key: String, _ counts: [(String, Int)]) {
            var inner = JSONObject()
            for (value, count) in Self.mostFirst(counts) { inner.add(value, json: String(count)) }
            object.add(key, inner)
        }
        group("kinds", kinds.map { ($0.key.rawValue, $0.value) })
        group("stores", stores.map { ($0.key.rawValue, $0.value) })
        group("hosts", hosts.entries)
        group("agents", agents.entries)
        return object.json
    }

    private static func mostFirst(_ counts: [(String, Int)]) -> [(String, Int)] {
        counts.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
    }
}

/// Counts per name for at most `limit` distinct names; later names count as
/// ``MarkSummary/other``.
struct BoundedCounts {
    let limit: Int
    private var counts: [String: Int] = [:]
    private var others = 0

    init(limit: Int) { self.limit = limit }

    mutating func add(_ name: String) {
        if counts[name] != nil || counts.count < limit {
            counts[name, default: 0] += 1
        } else {
            others += 1
        }
    }

    /// Every name and its count, `(other)` last when some were not kept.
    var entries: [(String, Int)] {
        counts.map { ($0.key, $0.value) } + (others > 0 ? [(MarkSummary.other, others)] : [])
    }
}
