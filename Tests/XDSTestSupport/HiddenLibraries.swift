import Foundation

/// Runs a command on a system where some shared libraries are not installed: in a private mount
/// namespace (root only: `unshare --mount`), each library folder holding one of them gets an
/// overlay whose whiteouts remove those files from view, so that dlopen finds no such file — as
/// on a system without the package — while every other library stays where it is.
public enum HiddenLibraries {
    /// Runs `command` with `/bin/sh -c` where no file whose name starts with one of `prefixes`
    /// ("libcurl.so", "libplist-2.0.so") is in the system's library folders.
    public static func run(hiding prefixes: [String], _ command: String, in folder: String? = nil,
                           environment: [String: String] = [:]) async throws -> Run {
        let names = prefixes.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let hide = """
            set -e
            scratch=$(mktemp -d)
            mount -t tmpfs tmpfs "$scratch"
            n=0
            for dir in /usr/lib/*-linux-gnu /usr/lib /usr/local/lib; do
                [ -d "$dir" ] || continue
                found=
                for p in \(names); do for f in "$dir/$p"*; do
                    if [ -e "$f" ] || [ -L "$f" ]; then found=1; fi
                done; done
                [ -n "$found" ] || continue
                n=$((n + 1))
                mkdir "$scratch/u$n" "$scratch/w$n"
                for p in \(names); do for f in "$dir/$p"*; do
                    if [ -e "$f" ] || [ -L "$f" ]; then mknod "$scratch/u$n/${f##*/}" c 0 0; fi
                done; done
                mount -t overlay overlay -o "lowerdir=$dir,upperdir=$scratch/u$n,workdir=$scratch/w$n" "$dir"
            done
            set +e
            """
        return try await ProcessRunner.run("/usr/bin/unshare", ["--mount", "/bin/sh", "-c", hide + "\n" + command],
                                     in: folder, environment: environment)
    }

    /// Whether libraries can be hidden here: root, `unshare --mount` and overlay mounts work.
    /// For a test's `.enabled { await HiddenLibraries.isSupported }`.
    public static var isSupported: Bool {
        get async { await probe.value }
    }

    private static let probe = Task<Bool, Never> {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let probe = try? await run(hiding: ["libc.so.6-no-such-library"], "true")
        guard probe?.status == 0 else { return false }
        // A real hide: the overlay must mount (containers may refuse it).
        let hidden = try? await run(hiding: ["libz.so"], "for f in /usr/lib/*-linux-gnu/libz.so*; do [ -e \"$f\" ] && exit 1; done; exit 0")
        return hidden?.status == 0
    }

    /// `arguments` quoted for the shell command line of ``run(hiding:_:in:environment:)``.
    public static func quoted(_ arguments: [String]) -> String {
        arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    }
}
