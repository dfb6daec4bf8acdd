import Foundation

/// The declarations of .swiftinterface text introduced after a macOS version, and where Swift
/// source text names them (PlatformLineTests says what is matched and what is left out).
struct NewerAPICatalogue {
    /// One declaration of an interface.
    struct Declaration: CustomStringConvertible, Hashable {
        enum Kind: Hashable { case type, initialiser, function, property }
        var kind: Kind
        /// The enclosing type's last name component ("String" for `extension Swift.String`).
        var owner: String?
        var name: String
        /// The first argument label: "" for no arguments, "_" for an unlabelled one.
        var label: String?
        var macOS: String = ""

        var description: String {
            let prefix = owner.map { "\($0)." } ?? ""
            switch kind {
            case .type, .property: return "\(prefix)\(name) (macOS \(macOS))"
            case .initialiser, .function: return "\(prefix)\(name)(\(label ?? "")\(label == "" ? "" : ":")…) (macOS \(macOS))"
            }
        }

        /// The same declaration whatever its version: what an older overload shares with it.
        var key: Declaration { Declaration(kind: kind, owner: kind == .property ? nil : owner, name: name, label: label) }
    }

    let above: Int
    private(set) var newer: [Declaration] = []
    private var older: Set<Declaration> = []
    private var newTypes: Set<String> = []

    init(above major: Int) { above = major }

    /// Adds the declarations of one interface.
    mutating func read(_ interface: String) {
        var depth = 0
        var owners: [(depth: Int, name: String, newer: String?)] = []
        var pending: String?
        for raw in interface.split(separator: "\n") {
            var line = raw.trimmingCharacters(in: .whitespaces)[...]
            if line.hasPrefix("#") || line.hasPrefix("//") { continue }
            while line.hasPrefix("@") {
                let attribute = Self.leadingAttribute(line)
                if let version = Self.macOSVersion(attribute), let major = Int(version.split(separator: ".")[0]),
                   major > above { pending = version }
                line = line.dropFirst(attribute.count).drop { $0 == " " }
            }
            if line.isEmpty { continue }
            let introduced = pending ?? owners.last?.newer
            pending = nil
            let opens = line.filter { $0 == "{" }.count, closes = line.filter { $0 == "}" }.count
            if let (keyword, rest) = Self.declarationKeyword(line) {
                record(keyword, rest, owner: owners.last, introduced: introduced, opens: opens > closes,
                       depth: depth, owners: &owners)
            }
            depth += opens - closes
            while let last = owners.last, depth <= last.depth { owners.removeLast() }
        }
    }

    private mutating func record(_ keyword: String, _ rest: Substring, owner: (depth: Int, name: String, newer: String?)?,
                                 introduced: String?, opens: Bool, depth: Int,
                                 owners: inout [(depth: Int, name: String, newer: String?)]) {
        let name = String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." })
        let last = String(name.split(separator: ".").last ?? "")
        switch keyword {
        case "extension":
            if opens { owners.append((depth, last, introduced)) }
            return
        case "struct", "class", "enum", "protocol", "actor", "typealias":
            if opens { owners.append((depth, last, introduced)) }
            if let introduced {
                newTypes.insert(last)
                newer.append(Declaration(kind: .type, owner: owner?.name, name: last, label: nil, macOS: introduced))
            }
            return
        default: break
        }
        // Members of a type that is itself new are reached only through its name.
        if let owner, newTypes.contains(owner.name) { return }
        var declaration: Declaration
        switch keyword {
        case "init", "init?", "init!":
            declaration = Declaration(kind: .initialiser, owner: owner?.name, name: "init", label: Self.firstLabel(rest))
        case "func":
            guard !last.isEmpty else { return }
            declaration = Declaration(kind: .function, owner: owner?.name, name: last,
                                      label: Self.firstLabel(rest.dropFirst(last.count)))
        case "var", "let":
            guard !last.isEmpty else { return }
            declaration = Declaration(kind: .property, owner: owner?.name, name: last, label: nil)
        default: return
        }
        if let introduced {
            declaration.macOS = introduced
            newer.append(declaration)
        } else {
            older.insert(declaration.key)
        }
    }

    /// The lines of `sources` that name a newer declaration outside `#available`, as
    /// `path:line: declaration`.
    func uses(in sources: [(String, [Substring])]) -> [String] {
        let own = Self.ownNames(sources)
        var byName: [String: [Declaration]] = [:]
        var seen: Set<String> = []
        // Overloads told apart by types only (Sequence<UInt8>, Sequence<Int8>) are one finding.
        for declaration in newer where !older.contains(declaration.key) && seen.insert(declaration.description).inserted {
            switch declaration.kind {
            case .type:
                if declaration.owner == nil && own.contains(declaration.name) { continue }
                byName[declaration.name, default: []].append(declaration)
            case .initialiser:
                guard let owner = declaration.owner, declaration.label != "_" else { continue }
                byName[owner, default: []].append(declaration)
            case .function, .property:
                if own.contains(declaration.name) { continue }
                if declaration.label == "_" && older.contains(where: { $0.name == declaration.name }) { continue }
                if declaration.kind == .property && older.contains(where: { $0.name == declaration.name }) { continue }
                byName[declaration.name, default: []].append(declaration)
            }
        }
        var findings: [String] = []
        for (path, lines) in sources {
            var depth = 0
            // The scope a `#available`/`@available` line guards: its level, and whether it opened yet.
            var guarded: (level: Int, entered: Bool)?
            for (index, line) in lines.enumerated() {
                let trimmed = line.drop { $0 == " " }
                let opens = line.filter { $0 == "{" }.count, closes = line.filter { $0 == "}" }.count
                defer {
                    depth += opens - closes
                    if let scope = guarded {
                        if depth > scope.level { guarded?.entered = true } else if scope.entered { guarded = nil }
                    }
                }
                if trimmed.hasPrefix("//") || trimmed.hasPrefix("*") || trimmed.hasPrefix("/*") { continue }
                if line.contains("#available(") || line.contains("@available(") {
                    // `guard #available` covers the rest of its scope; the others the scope they open.
                    guarded = line.contains("guard #available(") ? (depth - 1, true) : (depth, false)
                    continue
                }
                if guarded != nil { continue }
                for (token, range) in Self.identifiers(line) {
                    for declaration in byName[token] ?? [] where Self.names(declaration, line, range) {
                        findings.append("\(path):\(index + 1): \(declaration)")
                    }
                }
            }
        }
        return findings
    }

    // MARK: Text

    private static func names(_ declaration: Declaration, _ line: Substring, _ range: Range<String.Index>) -> Bool {
        let before = line[..<range.lowerBound], after = line[range.upperBound...]
        if before.hasSuffix("func ") || before.hasSuffix("var ") || before.hasSuffix("let ") { return false }
        let call = declaration.label.map { $0 == "" ? "()" : $0 == "_" ? "(" : "(\($0):" } ?? "("
        switch declaration.kind {
        case .type:
            return declaration.owner.map { before.hasSuffix("\($0).") } ?? true
        case .initialiser:
            return after.hasPrefix(call) || after.hasPrefix(".init" + call)
        case .function:
            return after.hasPrefix(call)
        case .property:
            return before.hasSuffix(".")
        }
    }

    /// The names the package declares itself: a use of one is taken to be the package's.
    private static func ownNames(_ sources: [(String, [Substring])]) -> Set<String> {
        var names: Set<String> = []
        let keywords: Set<String> = ["struct", "class", "enum", "protocol", "actor", "typealias", "func", "var", "let", "case"]
        for (_, lines) in sources {
            for line in lines {
                let tokens = identifiers(line).map(\.0)
                for (word, next) in zip(tokens, tokens.dropFirst()) where keywords.contains(word) { names.insert(next) }
            }
        }
        return names
    }

    private static func identifiers(_ line: Substring) -> [(String, Range<String.Index>)] {
        var result: [(String, Range<String.Index>)] = []
        var index = line.startIndex
        while index < line.endIndex {
            guard line[index].isLetter || line[index] == "_" else { index = line.index(after: index); continue }
            let start = index
            while index < line.endIndex, line[index].isLetter || line[index].isNumber || line[index] == "_" {
                index = line.index(after: index)
            }
            result.append((String(line[start..<index]), start..<index))
        }
        return result
    }

    /// The attribute at the start of `line`, with its parenthesised arguments.
    private static func leadingAttribute(_ line: Substring) -> Substring {
        var index = line.index(after: line.startIndex)
        while index < line.endIndex, line[index].isLetter || line[index].isNumber || line[index] == "_" {
            index = line.index(after: index)
        }
        guard index < line.endIndex, line[index] == "(" else { return line[..<index] }
        var level = 0
        while index < line.endIndex {
            if line[index] == "(" { level += 1 }
            if line[index] == ")" { level -= 1; if level == 0 { return line[...index] } }
            index = line.index(after: index)
        }
        return line
    }

    /// "15.0" for `@available(macOS 15.0, iOS 18.0, *)`; nil for other attributes.
    private static func macOSVersion(_ attribute: Substring) -> String? {
        guard attribute.hasPrefix("@available("), let range = attribute.range(of: "macOS ") else { return nil }
        let version = attribute[range.upperBound...].prefix { $0.isNumber || $0 == "." }
        return version.isEmpty ? nil : String(version)
    }

    /// The declaring keyword after the modifiers, and the text after it.
    private static func declarationKeyword(_ line: Substring) -> (String, Substring)? {
        let keywords: Set<Substring> = ["extension", "struct", "class", "enum", "protocol", "actor", "typealias",
                                        "init", "init?", "init!", "func", "var", "let"]
        var rest = line
        while let word = rest.split(separator: " ", maxSplits: 1).first {
            let head = word.prefix { $0 != "(" && $0 != "<" }
            if keywords.contains(head) {
                return (String(head), rest.dropFirst(head.count).drop { $0 == " " })
            }
            // Modifiers only (public, final, mutating, nonisolated(unsafe), …) before the keyword.
            guard word.allSatisfy({ $0.isLetter || $0 == "(" || $0 == ")" || $0 == "_" }) else { return nil }
            rest = rest.dropFirst(word.count).drop { $0 == " " }
        }
        return nil
    }

    /// The first argument label of `(label name: T, …)`: "" for `()`, "_" for none.
    private static func firstLabel(_ rest: Substring) -> String? {
        var text = rest
        if text.hasPrefix("<") {
            var level = 0
            for (offset, character) in text.enumerated() {
                if character == "<" { level += 1 }
                if character == ">" { level -= 1; if level == 0 { text = text.dropFirst(offset + 1); break } }
            }
        }
        guard text.hasPrefix("(") else { return nil }
        let inside = text.dropFirst()
        if inside.hasPrefix(")") { return "" }
        return String(inside.prefix { $0 != " " && $0 != ":" })
    }
}
