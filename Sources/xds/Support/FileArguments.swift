/// Command-line file names that `xds` cannot reach.
///
/// Linux file names are bytes; Swift's `CommandLine.arguments` repairs one that is not valid
/// UTF-8 (invalid bytes become U+FFFD), so the repaired name would name another, usually
/// absent, file: "no such file or folder" about a file that `ls` shows. Such names are told
/// apart here and refused in words instead.
enum FileArguments {
    /// The arguments whose bytes are not valid UTF-8, as `CommandLine.arguments` spells them.
    static let notUTF8: Swift.Set<String> = {
        var names = Swift.Set<String>()
        for index in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[index] else { continue }
            if String(validatingCString: raw) == nil { names.insert(String(cString: raw)) }
        }
        return names
    }()

    /// Why `file` cannot be used, or nil when it can.
    static func problem(_ file: String) -> String? {
        guard !notUTF8.isEmpty, notUTF8.contains(file) else { return nil }
        return "the file name is not valid UTF-8, which xds cannot handle (rename the file)"
    }
}
