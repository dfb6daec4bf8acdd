import Foundation
import Testing

/// The examples in README.md and docs/*.md, read as the doc tests run them (docs/doc-examples.md
/// is the syntax, for doc writers): each ```console block is a list of `$ ` command lines, each
/// followed by the output it must print (standard output and error as a terminal shows them);
/// each ```swift block is a program that must compile.
struct DocBlock: CustomTestStringConvertible, Sendable {
    /// One command of a console block and what it must print.
    struct Command: Sendable {
        /// The command line as bash gets it (continuation lines joined with their newlines).
        var text: String
        /// The 1-based line of its `$ ` in the Markdown file.
        var line: Int
        /// The expected output, one pattern a line (see ``DocOutputMatcher``).
        var expected: [String] = []
        /// The expected exit status (a `# exit N` line; 0 when there is none).
        var status: Int32 = 0
    }

    /// The Markdown file, relative to the repository root (README.md, docs/commands.md).
    var file: String
    /// The 1-based line of the opening fence.
    var line: Int
    /// The fence's language: console or swift.
    var language: String
    /// The words after the language on the fence line (a Swift block names there the packages
    /// it needs beside this one).
    var needs: [String] = []
    /// The lines between the fences.
    var body: [String]

    var testDescription: String { "\(file):\(line)" }

    /// `file:line` of a line of the block's body (0-based index into ``body``).
    func location(ofBodyLine index: Int) -> String { "\(file):\(line + 1 + index)" }

    /// The commands of a console block, or a description of what is malformed in it.
    func commands() throws -> [Command] {
        var commands: [Command] = []
        var index = 0
        while index < body.count {
            let text = body[index]
            if text.hasPrefix("$ ") {
                var command = Command(text: String(text.dropFirst(2)), line: line + 1 + index)
                // A command line ending in a backslash goes on over the next line, as in a shell.
                while command.text.hasSuffix("\\"), index + 1 < body.count {
                    index += 1
                    command.text += "\n" + body[index]
                }
                commands.append(command)
            } else if commands.isEmpty {
                throw Malformed(where: location(ofBodyLine: index), what: "output before the first `$ ` command line")
            } else if let status = DocBlock.exitStatus(text) {
                commands[commands.count - 1].status = status
            } else {
                commands[commands.count - 1].expected.append(text)
            }
            index += 1
        }
        if commands.isEmpty { throw Malformed(where: "\(file):\(line)", what: "a console block without a `$ ` command line") }
        return commands
    }

    /// N from a `# exit N` line.
    static func exitStatus(_ line: String) -> Int32? {
        guard line.hasPrefix("# exit ") else { return nil }
        return Int32(line.dropFirst("# exit ".count))
    }

    /// A block the runner cannot read.
    struct Malformed: Error, CustomStringConvertible {
        var `where`: String
        var what: String
        var description: String { "\(`where`): \(what)" }
    }

    /// The Markdown files whose examples are run: README.md and docs/*.md.
    static func markdownFiles(root: URL) -> [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    /// Every fenced block of `language` in the Markdown files under `root`.
    static func all(_ language: String, root: URL) -> [DocBlock] {
        markdownFiles(root: root).flatMap { file -> [DocBlock] in
            guard let text = try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8) else { return [] }
            return blocks(in: text, file: file).filter { $0.language == language }
        }
    }

    /// The fenced blocks of a Markdown text (CommonMark's backtick fences): a line of three or
    /// more backticks and an info string without one opens a block (the info string's first
    /// word is its language); a line of at least as many backticks alone closes it. A fence
    /// may be indented (in a list item): as many spaces are taken off each line of its body.
    static func blocks(in text: String, file: String) -> [DocBlock] {
        var blocks: [DocBlock] = []
        var open: (block: DocBlock, fence: Int, indent: Int)?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let indent = line.prefix { $0 == " " }.count
            let fence = line.dropFirst(indent).prefix { $0 == "`" }.count
            let rest = line.dropFirst(indent + fence)
            if var current = open {
                if fence >= current.fence && rest.allSatisfy({ $0 == " " }) {
                    blocks.append(current.block)
                    open = nil
                } else {
                    let margin = min(current.indent, line.prefix { $0 == " " }.count)
                    current.block.body.append(String(line.dropFirst(margin)))
                    open = current
                }
            } else if fence >= 3 && !rest.contains("`") {
                let words = rest.split(separator: " ").map(String.init)
                open = (DocBlock(file: file, line: index + 1, language: words.first ?? "", needs: Array(words.dropFirst()),
                                 body: []), fence, indent)
            }
        }
        return blocks
    }
}

/// Compares a command's output with the lines a doc shows. Each expected line is, by its form:
/// * `...` alone: any number of lines, none included;
/// * ending in ` (re)`: the rest is a regular expression the whole line must match;
/// * ending in ` (any order)`: a run of such lines matches as many output lines in any order
///   (walk order); `[..]` may be used in them;
/// * otherwise the line itself, where `[..]` stands for any text within the line.
enum DocOutputMatcher {
    static let anyOrder = " (any order)"
    static let regex = " (re)"

    /// Whether `actual` (output lines) matches `expected` (the doc's lines).
    static func matches(_ expected: [String], _ actual: [String]) -> Bool {
        match(expected[...], actual[...])
    }

    private static func match(_ expected: ArraySlice<String>, _ actual: ArraySlice<String>) -> Bool {
        guard let first = expected.first else { return actual.isEmpty }
        if first == "..." {
            var rest = actual
            while true {
                if match(expected.dropFirst(), rest) { return true }
                if rest.isEmpty { return false }
                rest = rest.dropFirst()
            }
        }
        if first.hasSuffix(anyOrder) {
            let group = expected.prefix { $0.hasSuffix(anyOrder) }
            guard actual.count >= group.count else { return false }
            let patterns = group.map { String($0.dropLast(anyOrder.count)) }
            guard assign(patterns[...], Array(actual.prefix(group.count))) else { return false }
            return match(expected.dropFirst(group.count), actual.dropFirst(group.count))
        }
        guard let line = actual.first, lineMatches(first, line) else { return false }
        return match(expected.dropFirst(), actual.dropFirst())
    }

    /// Whether each pattern can be given its own line (a small backtracking search: a group is a
    /// handful of lines).
    private static func assign(_ patterns: ArraySlice<String>, _ lines: [String]) -> Bool {
        guard let pattern = patterns.first else { return lines.isEmpty }
        for (index, line) in lines.enumerated() where lineMatches(pattern, line) {
            var rest = lines
            rest.remove(at: index)
            if assign(patterns.dropFirst(), rest) { return true }
        }
        return false
    }

    /// One expected line against one output line.
    static func lineMatches(_ pattern: String, _ line: String) -> Bool {
        if pattern.hasSuffix(regex) {
            let source = "^(?:" + pattern.dropLast(regex.count) + ")$"
            guard let expression = try? NSRegularExpression(pattern: source) else { return false }
            return expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
        }
        guard pattern.contains("[..]") else { return pattern == line }
        // [..]: the literal pieces in order, anything between them.
        let pieces = pattern.components(separatedBy: "[..]")
        let source = "^" + pieces.map(NSRegularExpression.escapedPattern(for:)).joined(separator: ".*") + "$"
        guard let expression = try? NSRegularExpression(pattern: source) else { return false }
        return expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
    }
}
