extension XDS.Show {
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
}
