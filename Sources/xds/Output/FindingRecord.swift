#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XDSProvenance
import XDSSystem
import XDocSource
import XDocSourceArchive

/// How `xds check` and `xds strip --mac-metadata -n` print one finding (SPEC §6 "Before
/// publishing"): the text line both print, `check --json`'s object and `check --github`'s
/// workflow command.
enum FindingRecord {
    /// `PATH: WHAT…`: `DIR/._a.png: sidecar`, `a.png: quarantine (xattr)`, `a.png: apple-attribute
    /// user.com.apple.FinderInfo`, `A.tar!/a: pax-record SCHILY.fflags`; with its line break.
    static func line(_ finding: MacMetadataFinding) -> String {
        finding.path.visible + ": " + detail(finding) + "\n"
    }

    /// What follows `PATH: `.
    static func detail(_ finding: MacMetadataFinding) -> String {
        switch finding.what {
        case .mark:
            guard let kind = finding.kind, let store = finding.store else { return "mark" }
            return MarkRecord.heading(kind: kind, store: store)
        case .appleAttribute, .paxRecord:
            guard let name = finding.name else { return finding.what.rawValue }
            return finding.what.rawValue + " " + visibleName(name)
        default:
            return finding.what.rawValue
        }
    }

    /// An attribute name as text output shows it: escaped, Samba's U+F022 as `\u{f022}`.
    static func visibleName(_ name: String) -> String {
        replacing(VisibleText.escaped(name), ["\u{F022}": "\\u{f022}"])
    }

    /// The JSON Lines object (without its line break): `file`, `archive`, `member`, `what`,
    /// `kind`, `store`, `name`, each only where it applies.
    static func json(_ finding: MacMetadataFinding) -> String {
        var object = JSONObject()
        object.add("file", finding.path)
        if let member = finding.member {
            object.add("archive", finding.file)
            object.add("member", member)
        }
        object.add("what", finding.what.rawValue)
        if let kind = finding.kind { object.add("kind", kind.rawValue) }
        if let store = finding.store { object.add("store", store.rawValue) }
        if let name = finding.name { object.add("name", name) }
        return object.json
    }

    // MARK: GitHub Actions

    /// `::error file=PATH::WHAT[ KIND (STORE)][ NAME][ in MEMBER]`, escaped as actions/toolkit's
    /// `command.ts` escapes (`escapeProperty`, `escapeData`); with its line break.
    static func github(_ finding: MacMetadataFinding) -> String {
        var message = finding.what.rawValue
        if let kind = finding.kind, let store = finding.store { message += " " + MarkRecord.heading(kind: kind, store: store) }
        if let name = finding.name { message += " " + name }
        if let member = finding.member { message += " in " + member.visible }
        return githubError(file: finding.file, message)
    }

    /// `::error file=PATH::cannot be read (REASON)[ in ENTRY]` (PATH: the archive for an entry).
    static func githubUnreadable(_ path: DocumentSourceTreePath, reason: String, in entry: DocumentSourceTreePath? = nil) -> String {
        githubError(file: path, "cannot be read (\(reason))" + (entry.map { " in " + $0.visible } ?? ""))
    }

    static func githubError(file: DocumentSourceTreePath, _ message: String) -> String {
        "::error file=" + escapeProperty(relative(file)) + "::" + escapeData(message) + "\n"
    }

    /// actions/toolkit `escapeData`: `%` → `%25`, CR → `%0D`, LF → `%0A`.
    static func escapeData(_ text: String) -> String {
        replacing(text, ["%": "%25", "\r": "%0D", "\n": "%0A"])
    }

    /// actions/toolkit `escapeProperty`: as ``escapeData(_:)``, and `:` → `%3A`, `,` → `%2C`.
    static func escapeProperty(_ text: String) -> String {
        replacing(text, ["%": "%25", "\r": "%0D", "\n": "%0A", ":": "%3A", ",": "%2C"])
    }

    /// The path relative to the working directory (as GitHub annotates files): `./` dropped, an
    /// absolute path below the working directory made relative; non-UTF-8 bytes as `\x{NN}`.
    static func relative(_ path: DocumentSourceTreePath) -> String {
        var text = path.visible
        while text.hasPrefix("./") { text.removeFirst(2) }
        if text.hasPrefix("/"), let cwd = workingDirectory, text.hasPrefix(cwd + "/") {
            text.removeFirst(cwd.count + 1)
        }
        return text
    }

    /// `text` with each scalar of `table` replaced by its text (scalar by scalar: CR LF is two).
    static func replacing(_ text: String, _ table: [Unicode.Scalar: String]) -> String {
        guard text.unicodeScalars.contains(where: { table[$0] != nil }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if let replacement = table[scalar] { out += replacement } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// The working directory, when it can be named.
    static let workingDirectory: String? = {
        guard let pointer = getcwd(nil, 0) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }()

    /// The reason word of an archive entry that cannot be read (SPEC §6).
    static func reason(_ problem: ArchiveProblem) -> String {
        switch problem.kind {
        case .encrypted: return "encrypted"
        case .tooLarge: return "over 64 MiB"
        case .tooManyEntries: return "too many entries"
        default:
            let words = problem.message.split(separator: " ")
            if let at = words.firstIndex(of: "method"), at > words.startIndex, words[at - 1] == "compression",
                at + 1 < words.endIndex
            {
                let number = words[at + 1].prefix { $0.isNumber }
                if !number.isEmpty { return "compression method \(number)" }
            }
            return "damaged"
        }
    }
}
