import ArgumentParser
import XDocSource

extension XDS {
    /// `xds show`: prints the attribute.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show which app files came from (read the x-document-source attribute).",
            discussion: """
                Looks in the native attribute, then Samba's stream attribute \
                (user.DosStream.x-document-source:$DATA), then an AppleDouble sidecar ._NAME, \
                and says which store the value came from. Binary and XML property lists are read.

                Human output: the file name, then the fields aligned under it, the store, other \
                keys and warnings about keys of the wrong type (which are ignored, but kept when \
                the value is rewritten).

                --json prints JSON Lines: one object per file that has the attribute, with \
                "file", the keys "identifier", "name", "path", "appInfoURL" when present, "store" \
                ("xattr", "samba-stream" or "appledouble"), "other" (an object of the other keys) \
                and "warnings" (an array, only when there are any). In "other", property-list \
                data becomes a base64 string, dates ISO-8601 strings exact to the microsecond (e.g. \
                "2024-05-01T12:30:00Z", "2024-05-01T12:30:00.25Z"), UIDs {"CF$UID": n}, and \
                non-finite reals the strings "NaN", "Infinity", "-Infinity"; keys are sorted. \
                A date outside years 0001-9999 is written as its number of seconds since \
                2001-01-01, like a real (a JSON number), and in human output as \
                "SECONDS s since 2001-01-01".

                A file without the attribute gets "xds: FILE: no x-document-source attribute" on \
                standard error (no JSON line) and the exit status is 1.
                """
        )

        @Argument(help: "The files or folders to read.", completion: .file())
        var files: [String]

        @Flag(help: "Print JSON Lines, one object per file.")
        var json = false

        @Flag(name: .customLong("no-follow"),
              help: "Act on a symbolic link itself, not its target (an error on Linux, where links cannot carry user attributes).")
        var noFollow = false

        func run() throws {
            try Self.show(files, json: json, followSymlinks: !noFollow).finish()
        }

        /// Prints every file's attribute and returns the diagnostics (shared with the fast path).
        static func show(_ files: [String], json: Bool, followSymlinks: Bool) -> Diagnostics {
            var diagnostics = Diagnostics()
            var output = ""
            var shown = 0
            for file in files {
                guard diagnostics.accepts(file) else { continue }
                do {
                    guard let found = try DocumentSourceFile(path: file, followSymlinks: followSymlinks).read()
                    else {
                        diagnostics.fail(file, "no x-document-source attribute", status: .absent)
                        continue
                    }
                    if json {
                        output += jsonLine(file: file, found) + "\n"
                    } else {
                        if shown > 0 { output += "\n" }
                        output += humanText(file: file, found)
                    }
                    shown += 1
                } catch {
                    diagnostics.fail(file, error)
                }
            }
            print(output, terminator: "")
            return diagnostics
        }

        /// `xds show` without ArgumentParser, for the common plain command lines: parsing with
        /// it costs more than the rest of the command (type metadata and conformance lookups).
        /// Returns nil, leaving the work to ArgumentParser, for anything but `show` followed by
        /// file names, `--json` and `--no-follow`.
        static func fastPath(_ arguments: [String]) -> ExitStatus? {
            guard arguments.count >= 3, arguments[1] == "show" else { return nil }
            var files: [String] = []
            var json = false, noFollow = false
            for argument in arguments.dropFirst(2) {
                switch argument {
                case "--json": json = true
                case "--no-follow": noFollow = true
                case "help": return nil  // let ArgumentParser decide what that means
                default:
                    if argument.isEmpty || argument.hasPrefix("-") { return nil }
                    files.append(argument)
                }
            }
            guard !files.isEmpty else { return nil }
            return show(files, json: json, followSymlinks: !noFollow).worst
        }

        static func jsonLine(file: String, _ found: StoredDocumentSource) -> String {
            found.jsonLine(file: file)
        }

        static func humanText(file: String, _ found: StoredDocumentSource) -> String {
            let source = found.source
            var rows: [(String, String)] = []
            for (key, value) in zip(DocumentSource.keys, [source.identifier, source.name, source.path, source.appInfoURL]) {
                if let value { rows.append((key, HumanText.safe(value))) }
            }
            let storeText = found.store == .xattr ? found.store.rawValue : "\(found.store.rawValue) (\(HumanText.safe(found.location)))"
            rows.append(("store", storeText))
            let other = source.otherKeys.sorted { $0.key < $1.key }
            let width = rows.map { $0.0.count }.max()! + 1
            var text = HumanText.safe(file) + "\n"
            for (key, value) in rows {
                text += "  " + (key + ":").padded(to: width) + " " + value + "\n"
            }
            if !other.isEmpty {
                text += "  other keys:\n"
                let otherWidth = other.map { HumanText.safe($0.key).count }.max()! + 1
                for (key, value) in other {
                    text += "    " + (HumanText.safe(key) + ":").padded(to: otherWidth) + " " + HumanText.value(value) + "\n"
                }
            }
            for warning in source.warnings {
                text += "  warning: " + HumanText.safe(warning) + "\n"
            }
            return text
        }
    }
}

extension String {
    /// The string followed by spaces up to `width` characters.
    func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
