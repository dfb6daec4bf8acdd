import XDSSystem

/// Standard output written with write(2), one call per result, so each file's result leaves
/// the process as soon as it is known and a failed write is seen (Swift's `print` buffers and
/// drops errors, so `xds show f > /dev/full` used to exit 0).
///
/// A closed pipe: with SIGPIPE at its default the process ends on the signal, quietly, as
/// other Unix tools do (`xds show … | head -1`). When SIGPIPE is ignored the write fails with
/// EPIPE, which is reported like any other failed write (SPEC §5: status 74).
enum StandardOutput {
    /// Writes `text` to standard output in full, or throws the errno of the failed write.
    static func write(_ text: String) throws(Errno) {
        try SystemCall.writeAll(1, Array(text.utf8))
    }
}

extension Diagnostics {
    /// Reports a failed write to standard output: `xds: standard output: <words>`, status 74.
    mutating func failedOutput(_ error: Errno) {
        fail("standard output", error.words, status: .ioError)
    }

    /// Writes `text` to standard output in one call; false (reported) when that failed.
    mutating func write(_ text: String) -> Bool {
        do throws(Errno) {
            try StandardOutput.write(text)
            return true
        } catch {
            failedOutput(error)
            return false
        }
    }
}
