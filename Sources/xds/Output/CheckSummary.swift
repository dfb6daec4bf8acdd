import XDSProvenance
import XDocSource
import XDSSystem

/// The last line of `xds check` (SPEC §6 "Before publishing"): `N found (COUNTS); to remove
/// them: COMMAND[; COMMAND…]`, gathered finding by finding. N counts the lines above; COUNTS is
/// `COUNT WORD` per kind (else `what` word), most first, then alphabetical. The commands carry
/// `--keep` for each `--allow` and put their paths after `--`, quoted for a POSIX shell
/// (``ShellQuote``); a path holding a control character or bytes that are not UTF-8 is left
/// out, and the line then ends `(N more to clean by hand, listed above)`.
struct CheckSummary {
    /// The paths `check` was given, as given.
    let roots: [String]
    /// The `--allow` words, in order.
    let allow: [String]
    /// `--names-only`.
    let namesOnly: Bool

    private(set) var total = 0
    private var counts: [String: Int] = [:]
    private var diskRoots: [Int] = []
    private var names: [DocumentSourceTreePath] = []
    private var archives: [DocumentSourceTreePath] = []
    private var byHand = 0

    init(roots: [String], allow: [String], namesOnly: Bool) {
        self.roots = roots
        self.allow = allow
        self.namesOnly = namesOnly
    }

    /// Counts one finding and notes the command that removes it.
    mutating func add(_ finding: MacMetadataFinding) {
        total += 1
        counts[finding.countWord, default: 0] += 1
        if finding.isInArchive {
            if !Self.isQuotable(finding.file) {
                byHand += 1
            } else if !archives.contains(finding.file) {
                archives.append(finding.file)
            }
        } else if namesOnly {
            if !Self.isQuotable(finding.file) {
                byHand += 1
            } else if !names.contains(finding.file) {
                names.append(finding.file)
            }
        } else if let root = Self.root(of: finding.file, in: roots) {
            if !Self.isQuotable(DocumentSourceTreePath(roots[root])) {
                byHand += 1
            } else if !diskRoots.contains(root) {
                diskRoots.append(root)
            }
        } else {
            byHand += 1
        }
    }

    /// The last line with its line break, or nil when nothing was found.
    var line: String? {
        guard total > 0 else { return nil }
        let ordered = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        var text = "\(total) found (" + ordered.map { "\($0.value) \($0.key)" }.joined(separator: ", ") + ")"
        let commands = self.commands
        if !commands.isEmpty { text += "; to remove them: " + commands.joined(separator: "; ") }
        if byHand > 0 { text += " (\(byHand) more to clean by hand, listed above)" }
        return text + "\n"
    }

    /// The commands, in order: the disk's, the names', each archive's.
    var commands: [String] {
        var result: [String] = []
        let keep = allow.isEmpty ? "" : " --keep " + allow.joined(separator: ",")
        if !diskRoots.isEmpty {
            result.append("xds strip -r --mac-metadata" + keep + " -- " + diskRoots.map { Self.quoted(roots[$0]) }.joined(separator: " "))
        }
        if !names.isEmpty {
            let only = MacMetadataSelection.nameWords.map(\.rawValue).filter { !allow.contains($0) }
            let otherKeep = allow.filter { word in !MacMetadataSelection.nameWords.contains { $0.rawValue == word } }
            let keepNames = otherKeep.isEmpty ? "" : " --keep " + otherKeep.joined(separator: ",")
            let list = names.map { ShellQuote.word($0.lossyString) }.joined(separator: " ")
            result.append("xds strip --mac-metadata --only " + only.joined(separator: ",") + keepNames + " -- " + list)
            result.append("git rm -r -q --cached --ignore-unmatch -- " + list)
        }
        for archive in archives {
            let path = ShellQuote.word(archive.lossyString)
            let clean = ShellQuote.word(archive.lossyString + ".clean")
            result.append("xds strip --mac-metadata" + keep + " -o " + clean + " -- " + path + " && mv -- " + clean + " " + path)
        }
        return result
    }

    /// The index of the root of `roots` a path on disk was found under.
    /// A root `DIR/._NAME` counts what is found under `DIR/NAME`, the file it describes (its
    /// marks and Apple attributes are named under it).
    static func root(of path: DocumentSourceTreePath, in roots: [String]) -> Int? {
        roots.indices.first { index in
            let root = Array(roots[index].utf8)
            let bytes = path.bytes
            guard bytes.starts(with: root) else { return bytes == described(bySidecar: root) }
            return bytes.count == root.count || root.last == UInt8(ascii: "/") || bytes[root.count] == UInt8(ascii: "/")
        }
    }

    /// `DIR/NAME` for a path `DIR/._NAME`; nil for any other.
    private static func described(bySidecar path: [UInt8]) -> [UInt8]? {
        let start = path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        guard path.count - start > 2, path[start] == UInt8(ascii: "."), path[start + 1] == UInt8(ascii: "_") else { return nil }
        return Array(path[..<start]) + path[(start + 2)...]
    }

    private static func quoted(_ text: String) -> String { ShellQuote.word(text) }

    /// Whether a path can be put in a command: UTF-8 without control characters.
    static func isQuotable(_ path: DocumentSourceTreePath) -> Bool {
        guard let text = String(validatingUTF8Bytes: path.bytes) else { return false }
        return !text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }
}
