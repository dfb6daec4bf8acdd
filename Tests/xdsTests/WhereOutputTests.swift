import Foundation
import Testing
import XDSProvenance
import XDocSource
@testable import xds

/// How `xds where` renders XDSProvenance's typed marks (SPEC §6): JSON keys exactly as the
/// SPEC's table, the human layout, URLs through the caller's redaction, and `--summary`'s
/// bounded counts. (The binary on real attributes: WhereStripCLITests.)
@Suite("where: rendering marks and the summary")
struct WhereOutputTests {
    static let safari = ProvenanceMark(
        kind: .quarantine, store: .xattr, names: ["user.com.apple.quarantine"],
        content: .quarantine(Quarantine(flags: "0083", flagBits: 0x83, time: ProvenanceTime(seconds: 1_605_184_046),
                                        agent: "Safari", eventID: "5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F")))

    static var xdg: ProvenanceMark {
        var origin = XDGOrigin()
        origin.url = "https://user:pw@example.com/f.zip?token=1#x"
        origin.referrer = "https://example.com/page"
        origin.publisher = "wget"
        return ProvenanceMark(kind: .xdg, store: .sambaStream, names: ["user.xdg.origin.url", "user.xdg.publisher"],
                              content: .xdg(origin))
    }

    static let zone = ProvenanceMark(
        kind: .zoneIdentifier, store: .zoneFile, names: ["f.zip:Zone.Identifier"],
        content: .zoneIdentifier(ZoneIdentifier(zone: 3, hostURL: "https://dl.example.org/f.zip", referrerURL: nil)))

    static let undecodable = ProvenanceMark(
        kind: .lastUsedDate, store: .appleDouble, names: ["com.apple.lastuseddate#PS"],
        content: .undecodable(UndecodableValue(bytes: [1, 2, 0xff], reason: "not 16 bytes (3)")))

    /// A stand-in for ProvenanceURL in these tests: marks the text so that the test sees every
    /// URL went through it, and no other field did.
    static func marked(_ url: String) -> String { "<" + url + ">" }

    func object(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test("JSON: file, marks, and per kind the SPEC's keys in order")
    func jsonKeys() throws {
        let times = ProvenanceMark(kind: .downloadedDate, store: .tar, names: ["SCHILY.xattr.com.apple.metadata:kMDItemDownloadedDate"],
                                   content: .downloadedDate(ProvenanceTime(seconds: 0, nanoseconds: 250_000_000)!))
        let froms = ProvenanceMark(kind: .whereFroms, store: .xattr, names: ["user.com.apple.metadata:kMDItemWhereFroms"],
                                   content: .whereFroms(["https://a.example/x", "Subject line"]))
        let provenance = ProvenanceMark(kind: .macOSProvenance, store: .xattr, names: ["user.com.apple.provenance"],
                                        content: .macOSProvenance([0x01, 0x02, 0xab]))
        let record = MarkRecord(file: DocumentSourceTreePath("dl/f.zip"),
                                marks: [Self.safari, froms, times, provenance, Self.xdg, Self.zone, Self.undecodable])
        let line = record.json(urls: Self.marked)
        #expect(!line.contains("\n"))
        #expect(line.hasPrefix(#"{"file":"dl/f.zip","marks":[{"kind":"quarantine","store":"xattr","name":"user.com.apple.quarantine","flags":"0083","flagNames":["download","sandbox"],"time":"2020-11-12T12:27:26Z","agent":"Safari","eventID":"5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F"}"#))
        #expect(line.contains(#"{"kind":"where-froms","store":"xattr","name":"user.com.apple.metadata:kMDItemWhereFroms","urls":["<https://a.example/x>","<Subject line>"]}"#))
        #expect(line.contains(#""time":"1970-01-01T00:00:00.25Z"}"#))
        #expect(line.contains(#""hex":"0102ab"}"#))
        #expect(line.contains(#"{"kind":"xdg","store":"samba-stream","name":"user.xdg.origin.url, user.xdg.publisher","url":"<https://user:pw@example.com/f.zip?token=1#x>","referrer":"<https://example.com/page>","publisher":"wget"}"#))
        #expect(line.contains(#"{"kind":"zone-identifier","store":"zone-file","name":"f.zip:Zone.Identifier","zone":3,"zoneName":"internet","hostURL":"<https://dl.example.org/f.zip>"}"#))
        #expect(line.hasSuffix(#"{"kind":"last-used-date","store":"appledouble","name":"com.apple.lastuseddate#PS","hex":"0102ff","error":"not 16 bytes (3)"}]}"#))
        let parsed = try object(line)
        #expect((parsed["marks"] as? [Any])?.count == 7)
    }

    @Test("JSON: an x-document-source mark keeps show's keys under documentSource; members get archive and member")
    func documentSourceAndMember() throws {
        var source = DocumentSource(identifier: "com.example.editor", name: "Editor")
        source.path = "docs/a.md"
        let mark = ProvenanceMark(kind: .xDocumentSource, store: .zip, names: ["__MACOSX/d/._a.md"], content: .documentSource(source))
        let record = MarkRecord(file: DocumentSourceTreePath("t.zip!/d/a.md"),
                                member: .init(archive: DocumentSourceTreePath("t.zip"), name: DocumentSourceTreePath("d/a.md")),
                                marks: [mark])
        #expect(record.json(urls: Self.marked) == #"{"file":"t.zip!/d/a.md","archive":"t.zip","member":"d/a.md","marks":[{"kind":"x-document-source","store":"zip","name":"__MACOSX/d/._a.md","documentSource":{"identifier":"com.example.editor","name":"Editor","path":"docs/a.md","other":{}}}]}"#)
        #expect(record.text(urls: Self.marked) == """
            t.zip!/d/a.md
              x-document-source (zip)
                identifier: com.example.editor
                name:       Editor
                path:       docs/a.md
                attribute:  __MACOSX/d/._a.md

            """)
    }

    @Test("text: KIND (STORE), fields aligned under it, flags named, several URLs aligned, escapes")
    func humanLayout() {
        let froms = ProvenanceMark(kind: .whereFroms, store: .xattr, names: ["com.apple.metadata:kMDItemWhereFroms"],
                                   content: .whereFroms(["https://a.example/x", "bell\u{7} \u{1b}[31mred"]))
        let record = MarkRecord(file: DocumentSourceTreePath(bytes: Array("dl/n\u{1b}x".utf8) + [0xff]),
                                marks: [Self.safari, froms, Self.zone, Self.undecodable])
        #expect(record.text(urls: Self.marked) == """
            dl/n\\u{1b}x\\x{ff}
              quarantine (xattr)
                flags:     0083 (download, sandbox)
                time:      2020-11-12T12:27:26Z
                agent:     Safari
                eventID:   5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F
                attribute: user.com.apple.quarantine
              where-froms (xattr)
                urls:      <https://a.example/x>
                           <bell\\u{7} \\u{1b}[31mred>
                attribute: com.apple.metadata:kMDItemWhereFroms
              zone-identifier (zone-file)
                zone:      3 (internet)
                hostURL:   <https://dl.example.org/f.zip>
                file:      f.zip:Zone.Identifier
              last-used-date (appledouble)
                hex:       0102ff
                error:     not 16 bytes (3)
                attribute: com.apple.lastuseddate#PS

            """)
    }

    @Test("summary: files, kinds, stores, hosts (lower-cased, URLs only), agents; most first")
    func summaryCounts() {
        var summary = MarkSummary()
        summary.add([Self.safari, Self.xdg, Self.zone])
        summary.add([Self.safari])
        summary.add([])  // a file without marks is not counted
        let froms = ProvenanceMark(kind: .whereFroms, store: .xattr, names: ["w"],
                                   content: .whereFroms(["HTTPS://EXAMPLE.com/x", "Mail <a@b.example>", "relative/path"]))
        summary.add([froms])
        #expect(summary.text == """
            3  files
            2  kind   quarantine
            1  kind   where-froms
            1  kind   xdg
            1  kind   zone-identifier
            3  store  xattr
            1  store  samba-stream
            1  store  zone-file
            3  host   example.com
            1  host   dl.example.org
            2  agent  Safari
            1  agent  wget

            """)
        #expect(summary.json == #"{"files":3,"kinds":{"quarantine":2,"where-froms":1,"xdg":1,"zone-identifier":1},"stores":{"xattr":3,"samba-stream":1,"zone-file":1},"hosts":{"example.com":3,"dl.example.org":1},"agents":{"Safari":2,"wget":1}}"#)
    }

    @Test("summary: at most 1000 distinct hosts and agents, the rest counted as (other)")
    func summaryBounded() {
        var summary = MarkSummary()
        for index in 0..<1005 {
            var origin = XDGOrigin()
            origin.url = "https://h\(index).example/"
            origin.creator = "app \(index)"
            summary.add([ProvenanceMark(kind: .xdg, store: .xattr, names: ["user.xdg.origin.url"], content: .xdg(origin))])
        }
        summary.add([Self.safari])
        let rows = summary.rows
        #expect(rows.filter { $0.what == "host" }.count == 1001)
        #expect(rows.filter { $0.what == "agent" }.count == 1001)
        #expect(rows.contains { $0.what == "host" && $0.value == "(other)" && $0.count == 5 })
        // Safari came after 1000 agents were kept: it is one of the others.
        #expect(rows.contains { $0.what == "agent" && $0.value == "(other)" && $0.count == 6 })
        #expect(rows.first { $0.what == "host" }?.value == "(other)")  // most first
        #expect(rows.first?.count == 1006)
    }
}
