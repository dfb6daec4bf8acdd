import XDSSystem

/// Prints `xds: SUBJECT: reason` lines on standard error and remembers the worst status,
/// so a command can go on with the next file and exit with the highest code at the end.
struct Diagnostics {
    private(set) var worst: ExitStatus = .success

    /// Reports one failure about `subject` (usually a file path) and records its status.
    /// Both parts are escaped with ``VisibleText``, so a hostile file name or value cannot
    /// split the line, drive the terminal or hide characters. The reason keeps its `\` as they
    /// are: the libraries quote input text in their messages already escaped.
    mutating func fail(_ subject: String, _ reason: String, status: ExitStatus) {
        Diagnostics.printError("xds: \(VisibleText.escaped(subject)): \(VisibleText.escapedMessage(reason))")
        record(status)
    }

    /// Whether `file` can be used; if not, reports why (status 66) so the caller skips it.
    mutating func accepts(_ file: String) -> Bool {
        guard let problem = FileArguments.problem(file) else { return true }
        fail(file, problem, status: .noInput)
        return false
    }

    /// Records a status without printing (e.g. "absent", which is not an error).
    mutating func record(_ status: ExitStatus) {
        if status > worst { worst = status }
    }

    /// Throws the worst status as an `ExitCode` unless everything succeeded.
    func finish() throws {
        if worst != .success { throw worst.exitCode }
    }

    /// Writes one line to standard error.
    static func printError(_ line: String) {
        var text = line
        if !text.hasSuffix("\n") { text += "\n" }
        // Records a walk has gathered go first: they were found before this line.
        StandardOutput.flush()
        // write(2) rather than stdio's `stderr`, which Swift 6 treats as shared mutable state;
        // a failed write to standard error cannot be reported anywhere, so it is ignored.
        try? SystemCall.writeAll(2, Array(text.utf8))
    }
}
