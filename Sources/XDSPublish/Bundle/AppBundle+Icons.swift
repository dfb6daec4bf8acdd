import XDocSource
internal import XDSSystem

extension AppBundle {
    /// The Info.plist keys the icon names come from, in the order they are read, as messages
    /// name them.
    public static let iconKeys = [
        "CFBundleIcons → CFBundlePrimaryIcon → CFBundleIconFiles",
        "CFBundleIcons~ipad → CFBundlePrimaryIcon → CFBundleIconFiles",
        "CFBundleIconFiles",
        "CFBundleIconFile",
    ]

    /// The file-name endings tried after a listed base name, before its extension: iOS adds
    /// the scale and then the device (`AppIcon76x76@2x~ipad.png`).
    static let variantSuffixes = ["", "@2x", "@3x", "~ipad", "@2x~ipad", "@3x~ipad", "~iphone", "@2x~iphone", "@3x~iphone"]

    /// The icon files the Info.plist names, found in ``iconFolder``.
    ///
    /// Names are read from `CFBundleIcons` → `CFBundlePrimaryIcon` → `CFBundleIconFiles`,
    /// the same under `CFBundleIcons~ipad`, then `CFBundleIconFiles`, then `CFBundleIconFile`
    /// (``iconKeys``); the files of every key are returned, in that order, each once. A name
    /// with or without its extension is resolved to the files that exist among `NAME.png`,
    /// `NAME@2x.png`, `NAME@3x.png`, `NAME~ipad.png` (and `@2x~ipad`, `@3x~ipad`, `~iphone`
    /// forms), plus `NAME.icns` for `CFBundleIconFile`, the macOS key. A name is matched
    /// exactly, else ignoring ASCII case (bundles are built on case-insensitive disks).
    /// Only regular files directly in the icon folder are returned: symbolic links and
    /// anything else are not icons.
    ///
    /// - Throws: ``AppBundleError`` of kind ``AppBundleError/Kind/unsafeIconName`` for a
    ///   name that is not a plain file name (`../x`, `a/b`, `.`, `..`);
    ///   ``AppBundleError/Kind/malformedInfoPlist`` for a key of the wrong type;
    ///   ``AppBundleError/Kind/assetCatalogOnly`` when no file is found but the app has an
    ///   asset catalog (`Assets.car` in the icon folder or a `CFBundleIconName`);
    ///   ``AppBundleError/Kind/noIcon`` when no file is found otherwise.
    public func iconFiles() throws(AppBundleError) -> [IconFile] {
        var listed: [(name: String, key: String)] = []
        var catalogNames: [String] = []
        for (key, label) in [("CFBundleIcons", "CFBundleIcons"), ("CFBundleIcons~ipad", "CFBundleIcons~ipad")] {
            guard let icons = info[key] else { continue }
            guard case .dictionary(let iconsDictionary) = icons else {
                throw wrongType(key, icons, expected: "a dictionary")
            }
            guard let primary = iconsDictionary["CFBundlePrimaryIcon"] else { continue }
            switch primary {
            case .dictionary(let primaryDictionary):
                if let files = primaryDictionary["CFBundleIconFiles"] {
                    for name in try strings(files, key: "\(label) → CFBundlePrimaryIcon → CFBundleIconFiles") {
                        listed.append((name, label))
                    }
                }
                if case .string(let catalog)? = primaryDictionary["CFBundleIconName"] { catalogNames.append(catalog) }
            case .string(let name):
                // Some macOS bundles give the primary icon's name directly.
                listed.append((name, label))
            default:
                throw wrongType("\(label) → CFBundlePrimaryIcon", primary, expected: "a dictionary")
            }
        }
        if let files = info["CFBundleIconFiles"] {
            for name in try strings(files, key: "CFBundleIconFiles") { listed.append((name, "CFBundleIconFiles")) }
        }
        if let file = info["CFBundleIconFile"] {
            listed.append((try string(file, key: "CFBundleIconFile"), "CFBundleIconFile"))
        }
        if case .string(let catalog)? = info["CFBundleIconName"] { catalogNames.append(catalog) }

        for entry in listed { try checkSafe(entry.name, key: entry.key) }

        var found: [IconFile] = []
        var seen = Set<String>()
        if !listed.isEmpty {
            let names = try folderNames()
            for entry in listed {
                for file in resolve(entry.name, key: entry.key, in: names) where seen.insert(file.fileName).inserted {
                    found.append(file)
                }
            }
        }
        if !found.isEmpty { return found }

        let hasCatalog = BundleFiles.type(of: BundleFiles.join(iconFolder, "Assets.car"), followLinks: false) == .regularFile
        let looked = "looked at \(Self.iconKeys.joined(separator: "; "))"
        if hasCatalog || !catalogNames.isEmpty {
            var what: [String] = []
            if hasCatalog { what.append("Assets.car") }
            if let name = catalogNames.first { what.append("CFBundleIconName \(VisibleText.quoted(name))") }
            throw AppBundleError(.assetCatalogOnly, file: infoPlistPath,
                                 message: "the app's icon is only in an asset catalog (\(what.joined(separator: ", "))), which is not read; no icon file is listed (\(looked))")
        }
        if listed.isEmpty {
            throw AppBundleError(.noIcon, file: infoPlistPath, message: "the Info.plist names no icon (\(looked))")
        }
        let names = listed.map { VisibleText.quoted($0.name) }
        throw AppBundleError(.noIcon, file: infoPlistPath,
                             message: "none of the icons the Info.plist names (\(names.joined(separator: ", "))) is a file in \(VisibleText.quoted(iconFolder))")
    }

    /// Refuses a name that is not a plain file name: one that could reach outside the icon folder.
    private func checkSafe(_ name: String, key: String) throws(AppBundleError) {
        let problem: String? =
            if name.isEmpty { "is empty" }
            else if name == "." || name == ".." { "is '\(name)', a folder" }
            else if name.contains("/") { "contains '/'; icons are named by file name only" }
            else if name.unicodeScalars.contains("\0") { "contains a NUL character" }
            else { nil }
        if let problem {
            throw AppBundleError(.unsafeIconName, file: infoPlistPath,
                                 message: "the icon name \(VisibleText.quoted(name)) in \(key) \(problem); it is not read")
        }
    }

    /// The names in the icon folder, keyed exactly and by ASCII lower case.
    private func folderNames() throws(AppBundleError) -> (exact: Set<String>, folded: [String: [String]]) {
        // `Contents/Resources` (or `Resources` beside a named `Contents/Info.plist`) is a folder
        // of the bundle: a symbolic link there could point anywhere and is not followed, as an
        // icon file that is a link is not. (For an iOS bundle the icon folder is the bundle.)
        if layout != .iOS, iconFolder != BundleFiles.folder(of: infoPlistPath), BundleFiles.isSymbolicLink(iconFolder) {
            throw AppBundleError(.unreadable, file: iconFolder, message: "is a symbolic link, which is not followed inside a bundle")
        }
        let names: [String]
        do {
            names = try BundleFiles.names(in: iconFolder)
        } catch where error.kind == .notFound {
            return ([], [:])
        }
        var folded: [String: [String]] = [:]
        for name in names { folded[Self.fold(name), default: []].append(name) }
        return (Set(names), folded)
    }

    /// ASCII lower case (what a case-insensitive disk ignores for the names Xcode writes).
    private static func fold(_ name: String) -> String {
        String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// The files a listed name stands for.
    private func resolve(_ name: String, key: String,
                         in names: (exact: Set<String>, folded: [String: [String]])) -> [IconFile] {
        let folded = Self.fold(name)
        var base = name
        var formats: [(IconFile.Format, String)]
        if folded.hasSuffix(".png") {
            base = String(name.dropLast(4))
            formats = [(.png, String(name.suffix(4)))]
        } else if folded.hasSuffix(".icns") {
            base = String(name.dropLast(5))
            formats = [(.icns, String(name.suffix(5)))]
        } else {
            formats = [(.png, ".png")]
            if key == "CFBundleIconFile" { formats.append((.icns, ".icns")) }
        }
        var files: [IconFile] = []
        for (format, ext) in formats {
            let suffixes = format == .icns ? [""] : Self.variantSuffixes
            for suffix in suffixes {
                let candidate = base + suffix + ext
                let onDisk: String
                if names.exact.contains(candidate) {
                    onDisk = candidate
                } else if let matches = names.folded[Self.fold(candidate)], matches.count == 1 {
                    onDisk = matches[0]
                } else {
                    continue
                }
                let path = BundleFiles.join(iconFolder, onDisk)
                guard BundleFiles.type(of: path, followLinks: false) == .regularFile else { continue }
                let lower = suffix.lowercased()
                let scale = lower.contains("@3x") ? 3 : lower.contains("@2x") ? 2 : Self.scale(inBase: base)
                files.append(IconFile(path: path, fileName: onDisk, format: format, scale: scale,
                                      isIPad: lower.contains("~ipad") || Self.fold(base).hasSuffix("~ipad"), key: key))
            }
        }
        return files
    }

    /// 2 or 3 when a listed name carries its scale itself (`Icon@2x.png`), else 1.
    private static func scale(inBase base: String) -> Int {
        let folded = fold(base)
        if folded.contains("@3x") { return 3 }
        if folded.contains("@2x") { return 2 }
        return 1
    }

    /// The strings of an array value, or a malformed-Info.plist error naming `key`.
    private func strings(_ value: PropertyListValue, key: String) throws(AppBundleError) -> [String] {
        guard case .array(let items) = value else { throw wrongType(key, value, expected: "an array of strings") }
        var result: [String] = []
        for item in items {
            guard case .string(let name) = item else { throw wrongType(key, item, expected: "an array of strings", element: true) }
            result.append(name)
        }
        return result
    }

    private func wrongType(_ key: String, _ value: PropertyListValue, expected: String, element: Bool = false) -> AppBundleError {
        AppBundleError(.malformedInfoPlist, file: infoPlistPath,
                       message: element ? "\(key) holds \(value.typeNameInSentence); it must be \(expected)"
                                        : "\(key) is \(value.typeNameInSentence), not \(expected)")
    }
}
