internal import CZlib
import XDocSource

/// The `._` entries of ``ZipCopier``: each read (bounded, through ZipReader.swift's member
/// read) and cleaned, rewritten deflated as it was, or left out.
extension ZipCopier {
    /// What becomes of a `._` entry: nil to copy it as it is.
    mutating func clean(_ entry: Entry, index: Int64, directory: ZipDirectory,
                                work: inout ZipWork) throws(ArchiveCopyError) -> Decision? {
        let encrypted = entry.flags & 0x41 != 0
        guard !encrypted, entry.method == 0 || entry.method == 8, entry.uncompressed <= Int64(appleDoubleLimit) else {
            report.unreadAppleDoubleEntries += 1
            return nil
        }
        let member = ZipMember(local: entry.local, compressed: entry.compressed, uncompressed: entry.uncompressed,
                               method: entry.method, crc: entry.crc)
        let bytes: [UInt8]
        switch member.read(source, directory: directory, entry: (index + 1, entry.name), limit: appleDoubleLimit, work: &work) {
        case .bytes(let read): bytes = read
        case .stopped: throw .archive(work.failure ?? directory.damaged("entry \(index + 1) cannot be read"))
        case .tooLarge, .failed:
            report.unreadAppleDoubleEntries += 1
            return nil
        }
        switch AppleDoubleCleaning.clean(bytes, filter: filter) {
        case .keep(let readable):
            if !readable { report.unreadAppleDoubleEntries += 1 }
            return nil
        case .drop(let attributes):
            report.droppedEntries += 1
            report.droppedAttributes += attributes
            return .drop
        case .replace(let file, let attributes):
            report.rewrittenEntries += 1
            report.droppedAttributes += attributes
            let crc = file.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
            let data = entry.method == 8 ? try deflated(file) : file
            return .rewrite(Rewritten(data: data, crc: crc, size: file.count, method: UInt16(entry.method)))
        }
    }

    /// Raw deflate (as zip stores it) of `bytes`, at the best compression.
    func deflated(_ bytes: [UInt8]) throws(ArchiveCopyError) -> [UInt8] {
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
