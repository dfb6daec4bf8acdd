internal import CZlib
import XDocSource

/// The `._` entries of ``ZipCopier``: each read (bounded, through ZipReader.swift's member
/// read) and cleaned, rewritten deflated as it was, or left out.
extension ZipCopier {
    /// What becomes of a `._` entry: nil to copy it as it is (nothing to drop, or not
    /// AppleDouble), `.drop` when it held only what goes or cannot be read (then said to
    /// `observe`: a copy never keeps an entry it could not look into). With `keeps` (the
    /// entry rule's ``ArchiveCopy/EntryRule/dropUnlessHolding(_:)``), left out whole unless
    /// it holds an attribute `keeps` accepts, else rebuilt with what the filter keeps.
    mutating func clean(_ entry: Entry, index: Int64, directory: ZipDirectory, work: inout ZipWork,
                        keeps: (@Sendable (String) -> Bool)? = nil) throws(ArchiveCopyError) -> Decision? {
        let name = DocumentSourceTreePath(bytes: entry.name)
        // APPNOTE 4.4.4: bit 0 encrypted, bit 6 strong encryption.
        if entry.flags & 0x41 != 0 { return unreadable(name, .encrypted) }
        guard entry.method == 0 || entry.method == 8 else { return unreadable(name, .compressionMethod(entry.method)) }
        guard entry.uncompressed <= Int64(appleDoubleLimit) else { return unreadable(name, .tooLarge(limit: appleDoubleLimit)) }
        let data = ZipMember(local: entry.local, compressed: entry.compressed, uncompressed: entry.uncompressed,
                               method: entry.method, crc: entry.crc)
        let bytes: [UInt8]
        switch data.read(source, directory: directory, entry: (index + 1, entry.name), limit: appleDoubleLimit, work: &work) {
        case .bytes(let read): bytes = read
        // Damage around the entry, the archive limit, a library or a read that failed: no copy.
        case .stopped: throw .archive(work.failure ?? directory.damaged("entry \(index + 1) cannot be read"))
        case .tooLarge: return unreadable(name, .tooLarge(limit: appleDoubleLimit))
        case .failed: return unreadable(name, .damaged)
        }
        let member = DocumentSourceTreePath(bytes: ArchiveReader.appleDoubleMember(entry.name) ?? entry.name)
        let cleaning = keeps.map { AppleDoubleCleaning.keepOnly(bytes, keeps: $0, filter: filter) }
            ?? AppleDoubleCleaning.clean(bytes, filter: filter)
        switch cleaning {
        case .dropEntry:
            report.droppedEntries += 1
            note(.entry(name))
            return .drop
        case .keep(let readable):
            if !readable { report.unreadAppleDoubleEntries += 1 }
            return nil
        case .unrewritable:
            return unreadable(name, .damaged)
        case .drop(let attributes, let names):
            report.droppedEntries += 1
            report.droppedAttributes += attributes
            note(.attributes(member: member, entry: name, names: names))
            return .drop
        case .replace(let file, let attributes, let names):
            report.rewrittenEntries += 1
            report.droppedAttributes += attributes
            note(.attributes(member: member, entry: name, names: names))
            let crc = file.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
            let data = entry.method == 8 ? try deflated(file) : file
            return .rewrite(Rewritten(data: data, crc: crc, size: file.count, method: UInt16(entry.method)))
        }
    }

    /// Leaves out a `._` entry that cannot be read, and says so.
    private mutating func unreadable(_ entry: DocumentSourceTreePath, _ reason: ArchiveCopy.UnreadableReason) -> Decision {
        report.unreadableEntries += 1
        note(.unreadable(entry: entry, reason: reason))
        return .drop
    }

    /// Raw deflate (as zip stores it) of `bytes`, at the best compression.
    func deflated(_ bytes: [UInt8]) throws(ArchiveCopyError) -> [UInt8] {
        guard czlib_available() != 0 else {
            throw .archive(ArchiveError(.unreadable, path: path, message: String(cString: czlib_load_error())))
        }
        var stream = z_stream()
        guard deflateInit2_(&stream, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .archive(ArchiveError(.unreadable, path: path, message: "zlib could not start: " + String(cString: czlib_load_error())))
        }
        defer { deflateEnd(&stream) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 64)
        let code = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard code == Z_STREAM_END else {
            throw .archive(ArchiveError(.unreadable, path: path, message: "zlib could not compress (code \(code))"))
        }
        output.removeLast(Int(stream.avail_out))
        return output
    }
}
