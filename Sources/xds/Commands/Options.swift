import ArgumentParser

/// `--no-follow`, shared by `set`, `show` and `remove`.
struct FollowOptions: ParsableArguments {
    @Flag(name: .customLong("no-follow"),
          help: "Act on a symbolic link itself, not its target (on Linux, links cannot carry user attributes).")
    var noFollow = false

    /// Whether to act on a symbolic link's target (the default).
    var followSymlinks: Bool { !noFollow }
}
