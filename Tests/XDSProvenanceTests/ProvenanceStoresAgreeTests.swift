import Foundation
import Testing
import XDSProvenance
import XDSTestSupport
import XDocSourceArchive
@testable import XDocSource
@testable import XDSWalk

/// A mark decodes the same in every store: a file's attribute, its sidecar, and the same
/// attribute carried into a tar by GNU tar `--xattrs`.
@Suite struct ProvenanceStoresAgreeTests {
    @Test func quarantineAndWhereFromsInAFileASidecarAndATar() async throws {
        let folder = TemporaryFolder()
        let tree = folder.folder("tree")
        let path = folder.file("tree/a.dmg")
        try ExtendedAttributes.setValue(MarkBytes.exiftoolQuarantine, named: "user.com.apple.quarantine", atPath: path, followSymlinks: true)
        try ExtendedAttributes.setValue(MarkBytes.exiftoolWhereFroms, named: "user.com.apple.metadata:kMDItemWhereFroms", atPath: path, followSymlinks: true)
        folder.write("tree/._a.dmg", bytes: appleDoubleBytes(attributes: [
            ("com.apple.quarantine", MarkBytes.exiftoolQuarantine), ("com.apple.metadata:kMDItemWhereFroms", MarkBytes.exiftoolWhereFroms),
        ]))
        let run = try await ProcessRunner.run("/bin/sh", ["-c", "cd '\(tree)' && tar --xattrs --xattrs-include='user.*' -cf ../a.tar a.dmg"])
        #expect(run.status == 0, "\(run)")

        let fileMarks = try ProvenanceFile(path: path).read()
        #expect(fileMarks.map { "\($0.kind) (\($0.store))" } == [
            "quarantine (xattr)", "where-froms (xattr)", "quarantine (appledouble)", "where-froms (appledouble)",
        ])
        var tarMarks: [ProvenanceMark] = []
        _ = try ProvenanceArchive(path: folder.path + "/a.tar", limits: .init())!.scan { event in
            if case .member(let member) = event { tarMarks += member.marks }
            return .proceed
        }
        #expect(tarMarks.map { "\($0.kind) (\($0.store))" } == ["quarantine (tar)", "where-froms (tar)"])
        let expected: [ProvenanceMark.Content] = [
            ProvenanceDecoder.content(of: .quarantine, MarkBytes.exiftoolQuarantine), .whereFroms(["https://exiftool.org/test/sample.jpg"]),
        ]
        guard case .quarantine(let quarantine) = expected[0] else { Issue.record("\(expected[0])"); return }
        #expect(quarantine.agent == "Safari" && quarantine.flagNames == ["sandbox"])
        #expect(fileMarks.map(\.content) == expected + expected)
        #expect(tarMarks.map(\.content) == expected)
    }
}
