import Foundation
import Testing
import XDSTestSupport
@testable import XDocSource
@testable import XDocSourceArchive

/// The entry names `unzip -Z1` lists.
private func unzipNames(_ zip: String) async throws -> [String] {
    let run = try await ProcessRunner.run("/bin/sh", ["-c", "unzip -Z1 '\(zip)'"])
    guard run.status == 0 else { throw ArchiveTestFailure(description: "unzip -Z1 \(zip): \(run)") }
    return run.stdout.split(separator: "\n").map(String.init)
}

/// A zip with a member carrying a value in its `__MACOSX/._NAME` entry (stored, so zipalign
/// aligns it), and a plain member.
private func makeTaggedZip(_ zip: String) async throws {
    try await makeTestArchive(["out": zip, "entries": [
        ["name": "docs/report.txt", "data": "hello", "method": "stored"],
        ["name": "__MACOSX/docs/._report.txt", "appledouble": ["value": sourceValue("com.example.z", "Z")], "method": "stored"],
        ["name": "plain.txt", "data": String(repeating: "p", count: 5000)],
    ]])
}

@Suite("Zip end records: extra-field padding, zip64 over a bad classic record (issue 27)")
struct ZipEndRecordTests {
    /// Android's zipalign pads local headers' extra fields with zeros (here to 4096 bytes);
    /// padding that is not a whole extra header (libarchive's test_read_format_zip_extra_padding
    /// layout: a zero-type empty field, a UT field, a zero-type 4-byte field, 3 bytes) in both the
    /// local and central headers is skipped too. Each lists as unzip lists it.
    @Test func paddedExtraFieldsAreSkipped() async throws {
        let tmp = TemporaryFolder()
        let zip = tmp.path + "/in.zip"
        try await makeTaggedZip(zip)
        try await shell("cd '\(tmp.path)' && zipalign -f 4096 in.zip aligned.zip && zipalign -c 4096 aligned.zip")
        _ = tmp.file("pad.py", """
            import zipfile
            padding = b'\\0\\0\\0\\0' + b'UT\\x09\\0\\x03' + bytes(8) + b'\\0\\0\\x04\\0' + bytes(4) + bytes(3)
            with zipfile.ZipFile('in.zip') as old, zipfile.ZipFile('padded.zip', 'w') as new:
                for info in old.infolist():
                    data = old.read(info)
                    info.extra = padding
                    new.writestr(info, data)

            """)
        try await shell("cd '\(tmp.path)' && python3 pad.py && unzip -tq padded.zip && unzip -tq aligned.zip")
        for name in ["aligned.zip", "padded.zip"] {
            let path = tmp.path + "/" + name
            let result = try scanArchive(path)
            #expect(result.problems.isEmpty, "\(name)")
            #expect(result.members.map(\.name.lossyString) == ["docs/report.txt"], "\(name)")
            #expect(result.byName["docs/report.txt"]?.stored.source.identifier == "com.example.z")
            #expect(result.summary.entries == (try await unzipNames(path)).count, "\(name)")
        }
        // zipalign really padded: the stored ._ entry's data starts on a 4096-byte boundary.
        let aligned = try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/aligned.zip"))
        #expect(aligned.count > 8192)
    }

    /// A zip64 zip (Info-ZIP `zip -fz`) whose classic end record is invalid (every field
    /// 0xFFFF, as in libarchive's test_read_format_zip_with_invalid_traditional_eocd, issue 869)
    /// is read through its zip64 end record, as unzip and libarchive read it (before: "a zip
    /// split across several files (multi-volume) is not read"). Without a zip64 record the same
    /// damage is still refused, and so is a zip64 record that says another disk.
    @Test func zip64RecordIsReadWhenTheClassicOneIsInvalid() async throws {
        let tmp = TemporaryFolder()
        try await makeTaggedZip(tmp.path + "/in.zip")
        try await shell("""
            cd '\(tmp.path)' && mkdir files && cd files && unzip -q ../in.zip && \
            zip -q -X -fz -r ../z64.zip docs __MACOSX plain.txt && zip -q -X -r ../classic.zip docs __MACOSX plain.txt
            """)
        // Every field of the classic end record after its signature made 0xFF (comment length too: 0).
        _ = tmp.file("damage.py", """
            import sys
            path, disk = sys.argv[1], int(sys.argv[2])
            data = bytearray(open(path, 'rb').read())
            at = data.rindex(b'PK\\x05\\x06')
            data[at + 4:at + 20] = b'\\xff' * 16
            data[at + 20:at + 22] = bytes(2)
            del data[at + 22:]
            if disk >= 0:  # the zip64 record's "number of this disk"
                z = data.rindex(b'PK\\x06\\x06')
                data[z + 16:z + 20] = disk.to_bytes(4, 'little')
            open(path, 'wb').write(bytes(data))

            """)
        try await shell("cd '\(tmp.path)' && cp z64.zip bad64.zip && cp z64.zip otherdisk.zip && cp classic.zip bad.zip && "
                  + "python3 damage.py bad64.zip -1 && python3 damage.py otherdisk.zip 1 && python3 damage.py bad.zip -1")
        let names = try await unzipNames(tmp.path + "/bad64.zip")
        #expect(names.contains("__MACOSX/docs/._report.txt"))
        for name in ["z64.zip", "bad64.zip"] {
            let result = try scanArchive(tmp.path + "/" + name)
            #expect(result.problems.isEmpty, "\(name)")
            #expect(result.members.map(\.name.lossyString) == ["docs/report.txt"], "\(name)")
            #expect(result.summary.entries == names.count, "\(name)")
        }
        for name in ["bad.zip", "otherdisk.zip"] {
            do {
                _ = try scanArchive(tmp.path + "/" + name)
                Issue.record("\(name): no error")
            } catch {
                #expect(error.kind == .malformed)
                #expect(error.message == "not a readable archive (zip): a zip split across several files (multi-volume) is not read")
            }
        }
    }
}
