internal import XDSSystem
import XDocSource

/// A zip's end records as they were (the classic one with its comment, the zip64 one when
/// there is one), written again for the new directory.
struct ZipEndRecords {
    /// The classic end record and the comment after it.
    let classic: [UInt8]
    /// The zip64 end record (its 56 fixed bytes), when the zip has one.
    let zip64: [UInt8]?

    static func read(_ source: ArchiveSource, directory: ZipDirectory, path: DocumentSourceTreePath) throws(ArchiveError) -> ZipEndRecords {
        // The last end record whose comment fits the file (as ZipDirectory.locate finds it).
        let tailCount = Int(min(source.size, 22 + 65_535))
        let tailStart = source.size - Int64(tailCount)
        let tail = try source.bytes(at: tailStart, count: tailCount, path: path)
        var at = tail.count - 22
        while at >= 0 {
            if tail[at] == 0x50, tail[at + 1] == 0x4B, tail[at + 2] == 5, tail[at + 3] == 6,
               at + 22 + Int(LittleEndian.uint16(tail, at: at + 20)) <= tail.count { break }
            at -= 1
        }
        guard at >= 0 else { throw directory.damaged("no end-of-central-directory record") }
        let length = 22 + Int(LittleEndian.uint16(tail, at: at + 20))
        let classic = Array(tail[at..<at + length])
        var zip64: [UInt8]?
        if directory.end != tailStart + Int64(at) {
            let record = try source.bytes(at: directory.end, count: 56, path: path)
            if record.count == 56, LittleEndian.uint32(record, at: 0) == 0x0606_4B50 { zip64 = record }
        }
        return ZipEndRecords(classic: classic, zip64: zip64)
    }

    /// Writes the end records of a directory of `entries` at `directoryStart` (as recorded)
    /// of `directorySize` bytes: the zip64 record and locator when the zip had them or a value
    /// needs them, then the classic record with the old comment; a field saturated in the old
    /// record stays so when a zip64 record carries the value.
    func write(entries: Int64, directoryStart: Int64, directorySize: Int64, correction: Int64,
               to out: inout CopyOutput) throws(ArchiveCopyError) {
        let le = ZipCopier.le
        let needs64 = zip64 != nil || entries >= 0xFFFF || directoryStart >= 0xFFFF_FFFF || directorySize >= 0xFFFF_FFFF
        if needs64 {
            let recordAt = out.position - correction
            let versions = zip64.map { Array($0[12..<16]) } ?? le(45, 2) + le(45, 2)
            var record = le(0x0606_4B50, 4) + le(44, 8) + versions + le(0, 4) + le(0, 4)
            record += le(UInt64(entries), 8) + le(UInt64(entries), 8)
            record += le(UInt64(directorySize), 8) + le(UInt64(directoryStart), 8)
            try out.write(record)
            try out.write(le(0x0706_4B50, 4) + le(0, 4) + le(UInt64(recordAt), 8) + le(1, 4))
        }
        func field(_ value: Int64, at offset: Int, width: Int) -> [UInt8] {
            let saturated: UInt64 = width == 2 ? 0xFFFF : 0xFFFF_FFFF
            let old = LittleEndian.unsigned(classic, at: offset, width: width)
            if UInt64(value) >= saturated || (needs64 && old == saturated) { return le(saturated, width) }
            return le(UInt64(value), width)
        }
        var record = Array(classic[0..<8])
        record += field(entries, at: 8, width: 2) + field(entries, at: 10, width: 2)
        record += field(directorySize, at: 12, width: 4) + field(directoryStart, at: 16, width: 4)
        record += classic[20...]
        try out.write(record)
    }
}
