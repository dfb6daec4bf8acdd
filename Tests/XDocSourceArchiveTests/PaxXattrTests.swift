import Testing
@testable import XDocSourceArchive

/// The pax records of extended attributes as ArchiveReader+Pax.swift reads them again (issue
/// 31): `LIBARCHIVE.xattr.` values are base64 as libarchive's archive_write_set_format_pax.c
/// writes it (no padding) or padded, anything else is "not base64" rather than decoded around
/// (libarchive's reader skips what is not base64 and decodes the rest).
@Suite("PaxXattr: the two spellings of a pax attribute, read raw")
struct PaxXattrTests {
    func record(_ keyword: String, _ value: [UInt8]) -> PaxRecord {
        PaxRecord.make(Array(keyword.utf8), value)
    }

    @Test func base64() {
        #expect(PaxXattr.base64Decoded(Array("MDA4Mjs1ZmFkMmEyZTtTYWZhcmk7AA".utf8)) == Array("0082;5fad2a2e;Safari;\u{0}".utf8))
        #expect(PaxXattr.base64Decoded(Array("YQ".utf8)) == [0x61])
        #expect(PaxXattr.base64Decoded(Array("YQ==".utf8)) == [0x61])
        #expect(PaxXattr.base64Decoded(Array("YWI=".utf8)) == [0x61, 0x62])
        #expect(PaxXattr.base64Decoded([]) == [])
        #expect(PaxXattr.base64Decoded(Array("+/+/".utf8)) == [0xFB, 0xFF, 0xBF])
        for bad in ["YQ=", "Y", "YQ===", "Y=Q=", "YQ\n", "YW*i", "YW_i", "YWJj\nZA", " YQ", "YQ=="  + "YQ"] {
            #expect(PaxXattr.base64Decoded(Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    @Test func spellings() throws {
        let schily = try #require(PaxXattr(record("SCHILY.xattr.user.a%EF%80%A2b", [0x61, 0])))
        #expect(schily.name == Array("user.a%EF%80%A2b".utf8), "SCHILY names as stored (as GNU tar and libarchive read them)")
        #expect(schily.value == [0x61, 0] && !schily.notBase64)
        let libarchive = try #require(PaxXattr(record("LIBARCHIVE.xattr.user.a%EF%80%A2b", Array("YQA".utf8))))
        #expect(libarchive.name == Array("user.a\u{F022}b".utf8))
        #expect(libarchive.key == schily.key, "one attribute, one value: one key")
        let bad = try #require(PaxXattr(record("LIBARCHIVE.xattr.user.a", Array("Y*QA".utf8))))
        #expect(bad.notBase64 && bad.value == Array("Y*QA".utf8))
        #expect(PaxXattr(record("LIBARCHIVE.xattr.user.%4", Array("YQ".utf8))) == nil, "a malformed escape, skipped as libarchive does")
        #expect(PaxXattr(record("SCHILY.acl.access", [])) == nil)
        #expect(PaxXattr(record("path", Array("a".utf8))) == nil)
    }
}
