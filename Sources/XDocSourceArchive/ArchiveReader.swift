#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import CArchive
internal import XDSSystem
import XDocSource

/// One scan of one archive through libarchive (the only file that reaches it). Streams
/// headers, reads only `._NAME` entries and a `.textpack`'s `info.json`, each bounded.
struct ArchiveReader {
    /// What a scan reports: ``ArchiveScanner/scan(_:)``'s members, or
    /// ``ArchiveScanner/scanAttributes(named:_:)``'s attributes, and problems.
    enum Event {
        case member(ArchiveMember)
        case attributes(ArchiveMemberAttributes)
        case problem(ArchiveProblem)
    }

    /// What a scan looks for in members' attributes.
    enum Wanted {
        /// `x-document-source`, decoded (`xds show`).
        case documentSource
        /// The attributes whose names the closure accepts, raw.
        case attributes((ArchiveAttributeOrigin, [UInt8]) -> Bool)
    }

    let scanner: ArchiveScanner
    let wanted: Wanted
    let visit: (Event) -> DocumentSourceTree.Decision
    let source: ArchiveSource
    var summary = ArchiveScanner.Summary()
    private var rootInfoFound = false
    /// An attribute scan's second reader of a tar's headers, for the raw pax records.
    var headerRereader: TarHeaderRereader?

    var archivePath: DocumentSourceTreePath { scanner.path }
    private var store: DocumentSourceStore { scanner.kind == .zip ? .zip : .tar }

    /// The attribute names read from tar headers: Linux's, and the plain name of a tar made on macOS.
    static let attributeNames = ["user.x-document-source", "x-document-source"]

    static func isRegularFile(_ path: DocumentSourceTreePath) -> Bool {
        var info = stat()
        return withCPath(path) { stat($0, &info) } == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    init(scanner: ArchiveScanner, wanted: Wanted = .documentSource,
         visit: @escaping (Event) -> DocumentSourceTree.Decision) throws(ArchiveError) {
        self.scanner = scanner
        self.wanted = wanted
        self.visit = visit
        let path = scanner.path
        let fd = Self.withCPath(path) { name in
            SystemCall.retrying { open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        }
        guard fd >= 0 else {
            let code = errno
            throw ArchiveError(code == ENOENT || code == ENOTDIR ? .notFound : .unreadable,
                               path: path, message: Errno(rawValue: code).words)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            SystemCall.close(fd)
            throw ArchiveError(.unreadable, path: path, message: Errno(rawValue: code).words)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            SystemCall.close(fd)
            throw ArchiveError(.malformed, path: path, message: "is not a regular file, so not read as an archive")
        }
        source = ArchiveSource(descriptor: fd, size: Int64(info.st_size))
    }

    // MARK: - The scan

    mutating func run() throws(ArchiveError) -> ArchiveScanner.Summary {
        defer { SystemCall.close(source.descriptor) }
        switch scanner.kind {
        case .zip:
            // Our own reader of the central directory (ZipReader.swift): members are skipped by
            // offset, never inflated, and names stay the exact bytes stored.
            try runZip()
        case .tar:
            try runTar()
        }
        return summary
    }

    private mutating func runTar() throws(ArchiveError) {
        guard carchive_available() != 0 else {
            throw ArchiveError(.unreadable, path: archivePath,
                               message: String(cString: carchive_load_error()))
        }
        guard let archive = archive_read_new() else {
            throw ArchiveError(.unreadable, path: archivePath, message: "out of memory")
        }
        defer { archive_read_free(archive) }
        archive_read_support_format_tar(archive)
        archive_read_support_format_gnutar(archive)
        archive_read_support_format_empty(archive)  // an empty file is an empty tar, as tar says
        // Keep `._NAME` entries as entries (on macOS libarchive folds them into metadata).
        archive_read_set_format_option(archive, "tar", "mac-ext", nil)
        // One decoder at most, chosen by the magic bytes (TarCompression), with bidding
        // bypassed: nothing is stacked on it, and nothing else runs (no external programs, no
        // recursion into nested compressed data).
        let compression = try TarCompression.detect { (offset: Int64, count: Int) throws(ArchiveError) -> [UInt8] in
            try source.bytes(at: offset, count: count, path: archivePath)
        }
        if compression == .compress {
            // libarchive 3.6.2's compress decoder reads its header as soon as it is appended,
            // before there is anything to read (a crash): it is chosen by bidding instead, with
            // no other bidder registered, and a second layer of it is refused after the open.
            guard archive_read_support_filter_compress(archive) == ARCHIVE_OK else {
                let words = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
                throw ArchiveError(.unreadable, path: archivePath,
                                   message: "cannot decompress compress with this libarchive (\(Self.sentence(words)))")
            }
        } else if compression != .none {
            // ARCHIVE_WARN too is refused: a libarchive built without the library would run an
            // external program (`lz4 -d`…) instead.
            guard archive_read_append_filter(archive, compression.filterCode) == ARCHIVE_OK else {
                let words = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
                throw ArchiveError(.unreadable, path: archivePath,
                                   message: "cannot decompress \(compression.rawValue) with this libarchive (\(Self.sentence(words)))")
            }
        }

        // Names are the bytes the archive stores. libarchive converts a UTF-8 name (pax, a
        // zip's UTF-8 flag) to the locale's charset and to Unicode NFC on the way; in the C locale
        // that conversion fails for anything but ASCII, and libarchive then keeps the name as
        // stored (ustar and GNU names are never converted). Per thread only.
        let plain = newlocale(LC_CTYPE_MASK, "C", nil)
        let previous = plain.map { uselocale($0) }
        defer {
            if let previous { uselocale(previous) }
            if let plain { freelocale(plain) }
        }

        let opened = archive_read_open2(
            archive, Unmanaged.passUnretained(source).toOpaque(), nil, archiveRead, archiveSkip, nil)
        // Bidding found compress data inside the compress data (no tar starts with its magic):
        // decompressed once only, as any other nesting, so not a tar. The bidding itself
        // decompressed a few bytes per layer, at most 25 layers (libarchive's bound).
        if compression == .compress, archive_filter_count(archive) > 2 {
            throw ArchiveError(.malformed, path: archivePath,
                               message: "not a readable archive (tar): compress data inside compress data (decompressed once only)")
        }
        guard opened == ARCHIVE_OK || opened == ARCHIVE_WARN else { throw notATar(archive, compression) }
        // A decoder that fails on its first bytes (damaged or cut-short data) leaves its error
        // and nothing to read, which libarchive's "empty" format takes for an empty archive:
        // an empty compressed stream is one, a damaged one is not (gzip's decoder, which can
        // fail without words: EmptyStreamCheck, after the first header).
        if compression != .none, source.readFailure == nil, let words = archive_error_string(archive) {
            throw ArchiveError(.malformed, path: archivePath,
                               message: "damaged archive (tar, \(compression.rawValue)): \(Self.sentence(String(cString: words)))")
        }

        if case .attributes = wanted {
            headerRereader = TarHeaderRereader(source: source, path: archivePath, compression: compression,
                                               limit: scanner.limits.maximumDecompressedSize)
        }
        let compressed = compression != .none
        var entry: OpaquePointer?
        while true {
            if summary.entries >= scanner.limits.maximumEntries {
                report(.tooManyEntries, nil,
                       "has more than \(scanner.limits.maximumEntries) entries: the scan stopped there")
                summary.stopped = true
                break
            }
            if compressed { try checkDecompressed(archive) }
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF {
                if summary.entries == 0,
                   let words = try EmptyStreamCheck.damage(archive, compression: compression, source: source, path: archivePath) {
                    throw ArchiveError(.malformed, path: archivePath,
                                       message: "damaged archive (tar, \(compression.rawValue)): \(Self.sentence(words))")
                }
                break
            }
            if status == ARCHIVE_RETRY {
                summary.entries += 1
                continue
            }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                throw summary.entries == 0 ? notATar(archive, compression) : failure(archive, while: "damaged archive")
            }
            summary.entries += 1
            if compressed { try checkDecompressed(archive) }
            examine(archive, entry)
            if summary.stopped { break }
            // Skipping a member of a compressed tar decompresses it: done here in steps, the
            // bound checked at each (libarchive would skip it whole in the next header call).
            if compressed { try skipData(archive) }
        }
    }

    /// Throws ``ArchiveError/Kind/limitReached`` once more than the limit has been decompressed.
    private func checkDecompressed(_ archive: OpaquePointer) throws(ArchiveError) {
        let limit = scanner.limits.maximumDecompressedSize
        guard archive_filter_bytes(archive, 0) > limit else { return }
        throw Self.limitReached(limit, path: archivePath)
    }

    /// The error of a scan that stopped at the archive limit (a tar's or a zip's alike).
    static func limitReached(_ limit: Int64, path: DocumentSourceTreePath) -> ArchiveError {
        ArchiveError(.limitReached, path: path,
                     message: "stopped after decompressing \(ArchiveScanner.Limits.sizeText(limit)) (the archive limit)",
                     limit: limit)
    }

    /// Reads (and drops) the rest of the current member's data, a block at a time.
    private func skipData(_ archive: OpaquePointer) throws(ArchiveError) {
        var block: UnsafeRawPointer?
        var size = 0
        var offset: la_int64_t = 0
        while true {
            try checkDecompressed(archive)
            let status = archive_read_data_block(archive, &block, &size, &offset)
            if status == ARCHIVE_EOF { return }
            if status < ARCHIVE_WARN { throw failure(archive, while: "damaged archive") }
        }
    }

    /// The error for a tar that cannot be read from its start. When the bytes are no compressed
    /// data but the name says they are, that is the likelier mistake, and the words say it.
    private func notATar(_ archive: OpaquePointer, _ compression: TarCompression) -> ArchiveError {
        if compression == .none, source.readFailure == nil, let named = TarCompression(fileName: archivePath.bytes) {
            return ArchiveError(.malformed, path: archivePath,
                                message: "not a readable archive (tar): not \(named.rawValue) data, as its name says, nor a plain tar")
        }
        return failure(archive, while: "not a readable archive")
    }

    /// The error for a failed libarchive call: an I/O error when our read failed, else bad data.
    private func failure(_ archive: OpaquePointer, while doing: String) -> ArchiveError {
        if let code = source.readFailure {
            return ArchiveError(.unreadable, path: archivePath, message: "cannot read the archive: " + code.words)
        }
        let words = archive_error_string(archive).map { String(cString: $0) } ?? "it ends early or is damaged"
        let kindName = scanner.kind == .zip ? "zip" : "tar"
        return ArchiveError(.malformed, path: archivePath, message: "\(doing) (\(kindName)): \(Self.sentence(words))")
    }

    /// libarchive's message made one line: control characters escaped, no trailing period.
    static func sentence(_ words: String) -> String {
        var text = VisibleText.escaped(words)
        while text.hasSuffix(".") || text.hasSuffix(" ") { text.removeLast() }
        guard let first = text.first else { return "unknown error" }
        // "Truncated input" → "truncated input", but "ZIP decompression" stays as it is.
        let second = text.dropFirst().first
        return second?.isUppercase == true ? text : first.lowercased() + text.dropFirst()
    }

    // MARK: - One entry

    private mutating func examine(_ archive: OpaquePointer, _ entry: OpaquePointer) {
        let name = Self.pathBytes(entry)
        let entryPath = DocumentSourceTreePath(bytes: name)
        let isFile = archive_entry_filetype(entry) & 0o170000 == 0o100000  // AE_IFMT, AE_IFREG (casts in C, not imported)

        // Extended-attribute headers (tar, pax): the member itself carries the value.
        if case .attributes(let isWanted) = wanted {
            if archive_entry_xattr_reset(entry) > 0 {
                paxAttributes(archive, entry, isWanted, member: entryPath)
                if summary.stopped { return }
            }
        } else if archive_entry_xattr_reset(entry) > 0 {
            var attributeName: UnsafePointer<CChar>?
            var value: UnsafeRawPointer?
            var size = 0
            var found: [UInt8]?
            while archive_entry_xattr_next(entry, &attributeName, &value, &size) == ARCHIVE_OK {
                guard let attributeName, found == nil,
                    Self.attributeNames.contains(String(cString: attributeName))
                else { continue }
                found = value.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
            }
            if let found { decodeValue(found, member: entryPath, entry: entryPath) }
            if summary.stopped { return }
        }

        // AppleDouble metadata libarchive has already attached (macOS builds with mac-ext on).
        var metadataSize = 0
        if let metadata = archive_entry_mac_metadata(entry, &metadataSize), metadataSize > 0 {
            let bytes = Array(UnsafeRawBufferPointer(start: metadata, count: metadataSize))
            appleDouble(bytes, member: entryPath, entry: entryPath)
            if summary.stopped { return }
        }

        guard isFile else { return }
        let encrypted = archive_entry_is_data_encrypted(entry) == 1 || archive_entry_is_encrypted(entry) == 1
        let declared = archive_entry_size_is_set(entry) != 0 ? Int64(archive_entry_size(entry)) : nil
        fileMember(name, encrypted: encrypted, declaredSize: declared) { limit in
            Self.readData(archive, limit: limit)
        }
    }

    /// What reading a member's data gave.
    enum DataRead {
        /// All of it, within the bound.
        case bytes([UInt8])
        /// More than the bound (nil: found while reading; else the size the archive declares).
        case tooLarge(declared: Int64?)
        /// It could not be read, in words.
        case failed(String)
        /// The archive cannot be read further (damage around this member, or the archive
        /// limit): nothing is reported for the member, the reader throws why.
        case stopped
    }

    /// A regular file member: a `._NAME` entry is read as AppleDouble, a `.textpack`'s
    /// `info.json` captured; `read(limit)` reads the data, at most `limit` bytes.
    mutating func fileMember(_ name: [UInt8], encrypted: Bool, declaredSize: Int64?, read: (Int) -> DataRead) {
        let entryPath = DocumentSourceTreePath(bytes: name)
        if let member = Self.appleDoubleMember(name) {
            if encrypted {
                report(.encrypted, entryPath, "\(entryPath.visible) is encrypted: skipped")
                return
            }
            let limit = scanner.limits.maximumAppleDoubleSize
            switch Self.bounded(declaredSize, limit, read) {
            case .bytes(let bytes):
                appleDouble(bytes, member: DocumentSourceTreePath(bytes: member), entry: entryPath)
            case .tooLarge(let declared?):
                report(.tooLarge, entryPath, "\(entryPath.visible) is \(declared) bytes, more than the \(limit) read: skipped")
            case .tooLarge(nil):
                report(.tooLarge, entryPath, "\(entryPath.visible) is more than \(limit) bytes: skipped")
            case .failed(let words):
                report(.unreadableEntry, entryPath, "\(entryPath.visible) cannot be read: \(words)")
            case .stopped:
                return
            }
        } else if scanner.isTextPack, let atRoot = Self.infoJSONPlace(name) {
            guard summary.textBundleInfo == nil || (atRoot && !rootInfoFound) else { return }
            // As for a .textbundle folder, an info.json that cannot be used is a warning
            // (Summary.textBundleInfoProblem), not a problem of the archive.
            if encrypted {
                summary.textBundleInfoProblem = "\(entryPath.visible) is encrypted (not read)"
                return
            }
            let limit = scanner.limits.maximumInfoJSONSize
            switch Self.bounded(declaredSize, limit, read) {
            case .bytes(let bytes):
                summary.textBundleInfo = bytes
                summary.textBundleInfoProblem = nil
                rootInfoFound = atRoot
            case .tooLarge:
                summary.textBundleInfoProblem = "info.json is larger than \(ArchiveScanner.Limits.sizeText(Int64(limit)))"
            case .failed(let words):
                summary.textBundleInfoProblem = "info.json cannot be read (\(words))"
            case .stopped:
                return
            }
        }
    }

    private static func bounded(_ declared: Int64?, _ limit: Int, _ read: (Int) -> DataRead) -> DataRead {
        if let declared, declared > Int64(limit) { return .tooLarge(declared: declared) }
        return read(limit)
    }

    /// Reads the current libarchive entry's data, at most `limit` bytes: a bomb is never
    /// inflated whole.
    private static func readData(_ archive: OpaquePointer, limit: Int) -> DataRead {
        var bytes: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = block.withUnsafeMutableBytes { buffer in
                archive_read_data(archive, buffer.baseAddress, buffer.count)
            }
            if count == 0 { return .bytes(bytes) }
            if count < 0 {
                let words = archive_error_string(archive).map { String(cString: $0) } ?? "its data is damaged"
                return .failed(sentence(words))
            }
            guard bytes.count + count <= limit else { return .tooLarge(declared: nil) }
            bytes += block[0..<count]
        }
    }

    private mutating func appleDouble(_ bytes: [UInt8], member: DocumentSourceTreePath, entry: DocumentSourceTreePath) {
        let double: AppleDouble
        do {
            double = try AppleDouble(bytes: bytes)
        } catch {
            report(.malformedAppleDouble, entry, "\(entry.visible) is a malformed AppleDouble file: \(error)")
            return
        }
        if case .attributes(let isWanted) = wanted {
            // Values lie within the entry's first 64 KiB (AppleDouble.attributeAreaLimit), so
            // under the value bound: nothing more to check.
            var found: [ArchiveAttribute] = []
            var seen = Set<[UInt8]>()
            for attribute in double.attributes {
                let name = Array(attribute.name.utf8)
                guard isWanted(.appleDouble, name), seen.insert(name).inserted else { continue }
                found.append(ArchiveAttribute(name: name, value: attribute.value))
            }
            // An entry holding nothing asked for is still reported when the empty name is
            // wanted: a caller that asks about every `._` entry (xds check).
            if found.isEmpty, isWanted(.appleDouble, []) {
                summary.tagged += 1
                emit(.attributes(ArchiveMemberAttributes(name: member, entry: entry, origin: .appleDouble, attributes: [])))
                return
            }
            reportAttributes(found, member: member, entry: entry, origin: .appleDouble)
            return
        }
        guard let value = double.value(named: DocumentSourceFile.plainAttributeName) else { return }
        decodeValue(value, member: member, entry: entry)
    }

    private mutating func decodeValue(_ value: [UInt8], member: DocumentSourceTreePath, entry: DocumentSourceTreePath) {
        guard value.count <= DocumentSourceFile.maximumValueSize else {
            report(.malformedValue, entry, "the x-document-source value of \(member.visible) (in \(entry.visible)) is larger than 64 KiB")
            return
        }
        do {
            let source = try SambaStream.decode(value) { (bytes) throws(PropertyListError) in
                try DocumentSource(propertyList: bytes)
            }
            summary.tagged += 1
            let stored = StoredDocumentSource(source: source, store: store, location: entry.lossyString)
            emit(.member(ArchiveMember(name: member, entry: entry, stored: stored)))
        } catch {
            report(.malformedValue, entry, "malformed x-document-source value of \(member.visible) (in \(entry.visible)): \(error)")
        }
    }

    /// Reports the attributes asked for that one entry holds for one member (none: nothing).
    mutating func reportAttributes(_ attributes: [ArchiveAttribute], member: DocumentSourceTreePath,
                                           entry: DocumentSourceTreePath, origin: ArchiveAttributeOrigin) {
        guard !attributes.isEmpty else { return }
        summary.tagged += 1
        emit(.attributes(ArchiveMemberAttributes(name: member, entry: entry, origin: origin, attributes: attributes)))
    }

    mutating func report(_ kind: ArchiveProblem.Kind, _ entry: DocumentSourceTreePath?, _ message: String) {
        summary.problems += 1
        emit(.problem(ArchiveProblem(kind: kind, entry: entry, message: message)))
    }

    mutating func emit(_ event: Event) {
        if visit(event) == .stop { summary.stopped = true }
    }

    // MARK: - Names

    /// The entry's name, exact bytes (libarchive's multibyte form, as stored).
    static func pathBytes(_ entry: OpaquePointer) -> [UInt8] {
        if let name = archive_entry_pathname(entry) ?? archive_entry_pathname_utf8(entry) {
            return Array(UnsafeRawBufferPointer(start: name, count: strlen(name)))
        }
        return []
    }

    /// The member an AppleDouble entry describes, or nil when `name` is not one: `DIR/._NAME`
    /// → `DIR/NAME`, and `__MACOSX/DIR/._NAME` → `DIR/NAME`.
    static func appleDoubleMember(_ name: [UInt8]) -> [UInt8]? {
        let dot = UInt8(ascii: "."), underscore = UInt8(ascii: "_"), slash = UInt8(ascii: "/")
        let start = (name.lastIndex(of: slash).map { $0 + 1 }) ?? 0
        guard name.count - start > 2, name[start] == dot, name[start + 1] == underscore else { return nil }
        var member = Array(name[..<start]) + name[(start + 2)...]
        let sequestered = Array("__MACOSX/".utf8)
        if member.starts(with: sequestered) { member.removeFirst(sequestered.count) }
        return member
    }

    /// For a TextBundle's `info.json`: true at the root, false exactly one folder down (not in
    /// `__MACOSX`), nil for any other name.
    static func infoJSONPlace(_ name: [UInt8]) -> Bool? {
        let info = Array("info.json".utf8)
        if name == info { return true }
        guard name.count > info.count + 1, name.suffix(info.count + 1) == [UInt8(ascii: "/")] + info else { return nil }
        let folder = name.dropLast(info.count + 1)
        guard !folder.isEmpty, !folder.contains(UInt8(ascii: "/")), Array(folder) != Array("__MACOSX".utf8)
        else { return nil }
        return false
    }

    static func withCPath<R>(_ path: DocumentSourceTreePath, _ body: (UnsafePointer<CChar>) -> R) -> R {
        var bytes = path.bytes.map { CChar(bitPattern: $0) }
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

extension ArchiveScanner {
    /// The libarchive xds would load for tar archives, for `xds --version` and bug reports:
    /// "libarchive 3.6.2 (/usr/lib/…/libarchive.so.13.6.2)", or why none can be (loads it).
    public static var libarchiveDescription: String { String(cString: carchive_description()) }
}
