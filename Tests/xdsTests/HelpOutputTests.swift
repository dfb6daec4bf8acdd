import Foundation
import Testing
import XDSTestSupport

/// What ArgumentParser prints (help, version, completion scripts) goes through xds's own
/// output: a failed write is status 74, as for every other result (SPEC §5).
@Suite("Help, version and completions: printed in full or reported")
struct HelpOutputTests {
    static let printing = ["--help", "show --help", "help set", "--version", "--generate-completion-script bash"]

    @Test("xds --help, a command's --help, --version and a completion script to /dev/full: 74 in words",
          arguments: printing)
    func fullDisk(_ arguments: String) async throws {
        let result = try await sh("'\(xdsPath)' \(arguments) > /dev/full")
        #expect(result.status == 74, "\(result)")
        #expect(result.stderr == "xds: standard output: no space left on the device\n", "\(result)")
    }

    @Test("The same to a pipe: status 0 and the text")
    func whole() async throws {
        let help = try await xds("--help")
        #expect(help.status == 0)
        #expect(help.stdout.contains("EXIT STATUS"), "the root help lists the exit statuses")
        #expect(help.stdout.contains("SUBCOMMANDS"))
        let bash = try await xds("--generate-completion-script", "bash")
        #expect(bash.status == 0)
        #expect(bash.stdout.contains("_xds()"))
        // bash-completion sources the script, nothing runs it (lintian: bash-completion-with-hashbang).
        #expect(!bash.stdout.hasPrefix("#!"), "the bash completion script begins with a #! line")
    }

    @Test("--version names the version and the commit it was built from, on its first line (the libraries follow)")
    func version() async throws {
        let result = try await xds("--version")
        #expect(result.status == 0)
        let line = result.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(line.range(of: #"^\d+\.\d+\.\d+ \(commit ([0-9a-f]{12}(-dirty)?|unknown)\)$"#, options: .regularExpression) != nil,
                "\(line)")
    }

    @Test("Usage errors still go to standard error with 64")
    func usage() async throws {
        let result = try await xds("show", "--no-such-flag", "x")
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("--no-such-flag"))
    }
}
