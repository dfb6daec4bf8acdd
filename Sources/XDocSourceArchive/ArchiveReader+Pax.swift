#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import CArchive
internal import XDSSystem
import XDocSource

// A tar member's extended attributes for an attribute scan, from its pax records as stored.
//
// libarchive's attribute list (archive_entry_xattr_next) cannot be used alone: it merges the
// two spellings libarchive's writer puts in every pax header (archive_write_set_format_pax.c:
// `LIBARCHIVE.xattr.NAME` with NAME URL-encoded and the value base64, then
// `SCHILY.xattr.NAME`, NAME URL-encoded too, the value raw) into two nameless copies, and its
// base64 decoder skips what is not base64 and decodes the rest. So when that list holds an
// attribute asked for, the member's pax records are read again, raw, from where libarchive
// says the member's headers start (archive_read_header_position), and the attributes come
// from them; the list is the fallback when that fails.

extension ArchiveReader {
    /// The attributes asked for of a tar member's extended-attribute header, each keyword
    /// once, one spelling of equal values once, values bounded.
    mutating func paxAttributes(_ archive: OpaquePointer, _ entry: OpaquePointer,
                                _ isWanted: (ArchiveAttributeOrigin, [UInt8]) -> Bool, member: DocumentSourceTreePath) {
        var attributeName: UnsafePointer<CChar>?
        var value: UnsafeRawPointer?
        var size = 0
        // libarchive lists an entry's attributes newest first (each one read is put in front):
        // gathered, then turned back to the header's order, so the first of a name wins.
        var listed: [(name: [UInt8], value: UnsafeRawPointer?, size: Int)] = []
        while archive_entry_xattr_next(entry, &attributeName, &value, &size) == ARCHIVE_OK {
            guard let attributeName else { continue }
            let name = Array(UnsafeRawBufferPointer(start: attributeName, count: strlen(attributeName)))
            guard isWanted(.paxHeader, name) else { continue }
            listed.append((name, value, size))
        }
        guard !listed.isEmpty else { return }
        let limit = scanner.limits.maximumAttributeValueSize
        var found: [ArchiveAttribute] = []
        var tooLarge: [([UInt8], Int)] = []
        let position = archive_read_header_position(archive)
        if let records = headerRereader?.paxRecords(at: position, maximumSize: Self.paxHeaderLimit(scanner.limits)),
           records.contains(where: { PaxXattr($0).map { isWanted(.paxHeader, $0.name) } ?? false }) {
            // Sets, not searches of what was kept: a 1 MiB pax header holds some 40 000 records.
            var keywords = Set<[UInt8]>()
            var values = Set<PaxXattr.Key>()
            for record in records {
                guard let attribute = PaxXattr(record), isWanted(.paxHeader, attribute.name),
                      keywords.insert(record.keyword).inserted else { continue }
                guard attribute.value.count <= limit else {
                    tooLarge.append((attribute.name, attribute.value.count))
                    continue
                }
                guard values.insert(attribute.key).inserted else { continue }
                found.append(ArchiveAttribute(name: attribute.name, value: attribute.value, keyword: record.keyword,
                                              valueIsNotBase64: attribute.notBase64))
            }
        } else {
            // A set, not a search of what was kept: a 1 MiB pax header holds some 40 000 names.
            var seen = Set<[UInt8]>()
            for (name, value, size) in listed.reversed() {
                guard seen.insert(name).inserted else { continue }
                // libarchive holds the header in memory already; the bound keeps it from being
                // copied again and handed on (a WhereFroms of a million URLs is damage, not a mark).
                guard size <= limit else {
                    tooLarge.append((name, size))
                    continue
                }
                found.append(ArchiveAttribute(name: name, value: value.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []))
            }
        }
        for (name, size) in tooLarge {
            let nameText = DocumentSourceTreePath(bytes: name).visible
            report(.valueTooLarge, member,
                   "the attribute \(nameText) of \(member.visible) is \(size) bytes, more than the \(ArchiveScanner.Limits.sizeText(Int64(limit))) read: skipped")
            if summary.stopped { return }
        }
        reportAttributes(found, member: member, entry: member, origin: .paxHeader)
    }

    /// The most bytes of one pax header read again: as much as a clean copy holds (TarCopier).
    static func paxHeaderLimit(_ limits: ArchiveScanner.Limits) -> Int {
        max(limits.maximumAppleDoubleSize, AppleDouble.maximumFileSize)
    }
}

/// One extended attribute of a pax record, as libarchive and GNU tar read it.
struct PaxXattr {
    /// The name: `SCHILY.xattr.NAME`'s NAME as stored, `LIBARCHIVE.xattr.NAME`'s URL-decoded.
    let name: [UInt8]
    /// The value: raw, or base64-decoded; the text as stored when ``notBase64``.
    let value: [UInt8]
    /// Whether a `LIBARCHIVE.xattr` value is not valid base64 (``value`` is then as stored).
    let notBase64: Bool

    static let schily = Array("SCHILY.xattr.".utf8)
    static let libarchive = Array("LIBARCHIVE.xattr.".utf8)

    /// What tells two spellings of one value apart from two values: the name URL-decoded in
    /// both spellings (libarchive's writer encodes it in both), the value, and a value that is
    /// not base64 (never equal to another).
    struct Key: Hashable {
        let name: [UInt8]
        let value: [UInt8]
        let notBase64: Bool
    }

    var key: Key { Key(name: Hex.percentDecoded(name) ?? name, value: value, notBase64: notBase64) }

    /// The attribute of a record, or nil when it is no extended attribute (or a
    /// `LIBARCHIVE.xattr` name with a malformed escape, which libarchive skips too).
    init?(_ record: PaxRecord) {
        let keyword = record.keyword
        if keyword.count > Self.schily.count, keyword.starts(with: Self.schily) {
            name = Array(keyword.dropFirst(Self.schily.count))
            value = Array(record.value)
            notBase64 = false
        } else if keyword.count > Self.libarchive.count, keyword.starts(with: Self.libarchive),
                  let decoded = Hex.percentDecoded(keyword.dropFirst(Self.libarchive.count)) {
            name = decoded
            if let bytes = Self.base64Decoded(record.value) {
                value = bytes
                notBase64 = false
            } else {
                value = Array(record.value)
                notBase64 = true
            }
        } else {
            return nil
        }
    }

    /// Base64 (RFC 4648's alphabet) as libarchive writes it, without `=` padding, or with it;
    /// nil for anything else: another character (a line break included), padding not at the
    /// end or too much of it, or a last group of one character.
    static func base64Decoded(_ text: some Collection<UInt8>) -> [UInt8]? {
        var body = Array(text)
        var padding = 0
        while body.last == UInt8(ascii: "=") {
            body.removeLast()
            padding += 1
        }
        if padding > 0 { guard padding <= 2, (body.count + padding) % 4 == 0 else { return nil } }
        guard body.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(body.count * 3 / 4)
        var bits: UInt32 = 0
        var count = 0
        for byte in body {
            let digit: UInt8
            switch byte {
            case 65...90: digit = byte - 65
            case 97...122: digit = byte - 71
            case 48...57: digit = byte + 4
            case UInt8(ascii: "+"): digit = 62
            case UInt8(ascii: "/"): digit = 63
            default: return nil
            }
            bits = bits << 6 | UInt32(digit)
            count += 6
            if count >= 8 {
                count -= 8
                out.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
            }
        }
        return out
    }
}

/// The decompressed stream of a tar that libarchive is scanning, read a second time, forward
/// only and only as far as asked: the raw headers of the members whose pax records are needed
/// (``ArchiveReader/paxAttributes(_:_:_:member:)``). A plain tar is read where asked
/// (`pread`); a compressed one through its own descriptor and decoder, started on first use,
/// under the same archive limit. Any failure makes it answer nil from then on (libarchive's
/// own scan reports the damage).
final class TarHeaderRereader {
    private let source: ArchiveSource
    private let path: DocumentSourceTreePath
    private let compression: TarCompression
    private let limit: Int64
    private var stream: TarStreamReader?
    private var streamDescriptor: Int32 = -1
    /// For a compressed stream: the offset of `pending`'s first byte.
    private var position: Int64 = 0
    private var pending: [UInt8] = []
    private var failed = false

    init(source: ArchiveSource, path: DocumentSourceTreePath, compression: TarCompression, limit: Int64) {
        self.source = source
        self.path = path
        self.compression = compression
        self.limit = limit
    }

    deinit {
        stream = nil  // its decoder first: it reads the descriptor
        if streamDescriptor >= 0 { SystemCall.close(streamDescriptor) }
    }

    /// The records of the pax headers (`x`, Solaris `X`) of the member whose headers start at
    /// `offset`, up to its own header (global pax, GNU long-name and volume and Solaris ACL
    /// headers are passed over); nil when they cannot be read or are malformed, or one is over
    /// `maximumSize` bytes. The caller falls back to libarchive's list when they do not hold
    /// the attributes that list has.
    func paxRecords(at offset: Int64, maximumSize: Int) -> [PaxRecord]? {
        guard offset >= 0, !failed else { return nil }
        var at = offset
        var records: [PaxRecord] = []
        // A member has a few headers in front of its own (libarchive allows any number; a
        // hundred is damage).
        for _ in 0..<100 {
            guard let header = bytes(at: at, count: 512), header.count == 512, TarHeader.checksumHolds(header),
                  let size = TarHeader.size(header) else { return nil }
            switch header[156] {
            case UInt8(ascii: "x"), UInt8(ascii: "X"):
                guard size <= Int64(maximumSize), let data = bytes(at: at + 512, count: Int(size)), data.count == Int(size),
                      let parsed = PaxRecord.parse(data) else { return nil }
                records += parsed
            case UInt8(ascii: "g"), UInt8(ascii: "L"), UInt8(ascii: "K"), UInt8(ascii: "A"), UInt8(ascii: "V"):
                break  // the other headers libarchive reads before a member's own (Solaris ACL, GNU volume)
            default:
                return records
            }
            guard size <= Int64.max / 2 else { return nil }
            at += 512 + (size + 511) / 512 * 512
        }
        return nil
    }

    /// `count` bytes at `offset` of the decompressed stream (fewer at its end); nil on failure
    /// or, for a compressed stream, behind what was already read.
    private func bytes(at offset: Int64, count: Int) -> [UInt8]? {
        if compression == .none {
            do throws(ArchiveError) {
                return try count == 0 ? [] : source.bytes(at: offset, count: count, path: path)
            } catch {
                return fail()
            }
        }
        guard offset >= position else { return nil }
        if stream == nil, !startStream() { return fail() }
        // Drop what lies before `offset`, then fill up to `count`.
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while position + Int64(pending.count) < offset + Int64(count) {
            if position + Int64(pending.count) <= offset {
                position += Int64(pending.count)
                pending.removeAll(keepingCapacity: true)
            }
            let stream = self.stream!
            let read = chunk.withUnsafeMutableBytes { raw -> Int? in
                do throws(ArchiveError) { return try stream.read(into: raw) } catch { return nil }
            }
            guard let read else { return fail() }
            if read == 0 { break }
            pending += chunk[0..<read]
        }
        let start = Int(min(Int64(pending.count), offset - position))
        let result = Array(pending[start..<min(pending.count, start + count)])
        // Nothing before `offset` is asked for again.
        position += Int64(start)
        pending.removeFirst(start)
        return result
    }

    /// Starts the second decoder on a descriptor of its own: the same file (device and inode
    /// checked), read from its start.
    private func startStream() -> Bool {
        var original = stat(), opened = stat()
        let fd = ArchiveReader.withCPath(path) { name in SystemCall.retrying { open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK) } }
        guard fd >= 0 else { return false }
        guard fstat(source.descriptor, &original) == 0, fstat(fd, &opened) == 0,
              original.st_dev == opened.st_dev, original.st_ino == opened.st_ino else {
            SystemCall.close(fd)
            return false
        }
        streamDescriptor = fd
        do throws(ArchiveError) {
            stream = try TarStreamReader(source: ArchiveSource(descriptor: fd, size: source.size), path: path,
                                         compression: compression, limit: limit)
        } catch {
            return false
        }
        return true
    }

    private func fail() -> [UInt8]? {
        failed = true
        return nil
    }
}
