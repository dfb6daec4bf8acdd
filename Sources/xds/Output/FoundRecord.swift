import XDSSystem
import XDocSource
import XDocSourceArchive

/// One record `xds show` prints: a value found on a file, folder, orphan sidecar or archive
/// member, a TextBundle's own `info.json` record, or both. Built from the libraries' values and
/// rendered here only, as text for people (``text``) or as one JSON Lines object (``json``):
/// a field is added in this one place, to both renderings.
struct FoundRecord {
    /// Where an archive member was found.
    struct Member {
        /// The archive, exact bytes.
        var archive: DocumentSourceTreePath
        /// The member's name in it.
        var name: DocumentSourceTreePath
        /// The archive entry that held the value (shown as the store's location).
        var entry: DocumentSourceTreePath
    }

    /// The name shown, exact bytes: the file as given, a path met in a walk, `ARCHIVE!/MEMBER`.
    var file: DocumentSourceTreePath
    /// For an archive member: the archive, the member and its entry.
    var member: Member?
    /// The value and the store it was read from; nil for a TextBundle record alone.
    var stored: StoredDocumentSource?
    /// The TextBundle's own record (a `.textbundle` folder's or a `.textpack`'s `info.json`).
    var textBundle: TextBundleInfo?

    /// A file named by the user (or a path met in a walk), its value and its TextBundle record.
    init(file: DocumentSourceTreePath, _ stored: StoredDocumentSource?, textBundle: TextBundleInfo? = nil) {
        self.file = file
        self.stored = stored
        self.textBundle = textBundle
    }

    /// A file or folder found in a walk (or an orphan sidecar, under its own path).
    init(_ found: DocumentSourceTree.Found, textBundle: TextBundleInfo?) {
        self.init(file: found.path, found.stored, textBundle: textBundle)
    }

    /// An archive member, named `ARCHIVE!/MEMBER`.
    init(_ member: ArchiveMember, in archive: DocumentSourceTreePath) {
        self.init(file: member.path(in: archive), member.stored)
        self.member = Member(archive: archive, name: member.name, entry: member.entry)
    }

    // MARK: JSON

    /// The JSON Lines object, without the line break: `"file"`, `"archive"` and `"member"` for
    /// a member, then `"identifier"`, `"name"`, `"path"`, `"appInfoURL"` when present, `"store"`,
    /// `"other"` and `"warnings"` (only when there are any), then `"textbundle"`.
    var json: String {
        var object = JSONObject()
        fill(&object)
        return object.json
    }

    /// ``json`` and a line break, appended to `out` as bytes (a walk's batch of records).
    func appendJSONLine(to out: inout [UInt8]) {
        var object = JSONObject(continuing: &out)
        fill(&object)
        object.endLine(into: &out)
    }

    private func fill(_ object: inout JSONObject) {
        object.add("file", file)
        if let member {
            object.add("archive", member.archive)
            object.add("member", member.name)
        }
        if let stored {
            object.addFields(of: stored.source, store: stored.store.rawValue)
        }
        if let textBundle {
            object.addObject("textbundle") { bundle in
                for (key, value) in textBundle.fields { bundle.add(key, value) }
                if !textBundle.warnings.isEmpty { bundle.add("warnings", strings: textBundle.warnings) }
            }
        }
    }

    // MARK: Text

    /// The text for people: the name, then the value's fields aligned under it (the store, the
    /// other keys, warnings), then the TextBundle section. Everything is escaped
    /// (``VisibleText``, ``DocumentSourceTreePath/visible``).
    var text: String {
        var text = file.visible + "\n"
        if let stored { text += Self.text(stored, location: member?.entry.visible) }
        if let textBundle { text += Self.text(textBundle) }
        return text
    }

    /// The value's lines; `location`, when given, is the store's location already made visible
    /// (an archive entry's exact bytes).
    private static func text(_ stored: StoredDocumentSource, location: String?) -> String {
        let source = stored.source
        var rows: [(String, String)] = []
        for (key, value) in zip(DocumentSource.keys, [source.identifier, source.name, source.path, source.appInfoURL]) {
            if let value { rows.append((key, VisibleText.escaped(value))) }
        }
        let storeText = stored.store == .xattr ? stored.store.rawValue
            : "\(stored.store.rawValue) (\(location ?? VisibleText.escaped(stored.location)))"
        rows.append(("store", storeText))
        let width = rows.map { $0.0.count }.max()! + 1
        var text = ""
        for (key, value) in rows {
            text += "  " + (key + ":").padded(to: width) + " " + value + "\n"
        }
        return text + otherKeysText(source, indent: "  ")
    }

    /// A value's other keys (`other keys:`, then one aligned line a key, indented further) and
    /// its warnings, each line starting with `indent`: what `show` prints under the fields, and
    /// `where` under an x-document-source mark.
    static func otherKeysText(_ source: DocumentSource, indent: String) -> String {
        var text = ""
        let other = source.otherKeys.sorted { $0.key < $1.key }
        if !other.isEmpty {
            text += indent + "other keys:\n"
            let otherWidth = other.map { VisibleText.escaped($0.key).count }.max()! + 1
            for (key, value) in other {
                text += indent + "  " + (VisibleText.escaped(key) + ":").padded(to: otherWidth) + " " + HumanText.value(value) + "\n"
            }
        }
        for warning in source.warnings {
            text += indent + "warning: " + VisibleText.escaped(warning) + "\n"
        }
        return text
    }

    /// The TextBundle section, indented under the name: "  textbundle (info.json):" then one
    /// aligned line a key.
    private static func text(_ info: TextBundleInfo) -> String {
        let fields = info.fields
        var text = "  textbundle (info.json):\n"
        if fields.isEmpty { text += "    (none of its keys are set)\n" }
        let width = (fields.map { $0.key.count }.max() ?? 0) + 1
        for field in fields {
            // Strings as written (not quoted as other keys are), escaped.
            let value = if case .string(let string) = field.value { VisibleText.escaped(string) } else { HumanText.value(field.value) }
            text += "    " + (field.key + ":").padded(to: width) + " " + value + "\n"
        }
        for warning in info.warnings {
            text += "    warning: " + VisibleText.escaped(warning) + "\n"
        }
        return text
    }
}

extension String {
    /// The string followed by spaces up to `width` characters.
    func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
