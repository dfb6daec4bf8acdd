import ArgumentParser
import IconMask
import Testing
@testable import xds

/// `xds` decides how to handle a command line in one place (``XDS/Route``): a fast path, a
/// usage error of its own, the long-file-list split, or ArgumentParser. The decision as a table.
@Suite("the route a command line takes")
struct RouteTests {
    static let commands = "set, show, remove, where, strip, check, icon, mask, appinfo"
    /// More files than ``FileArguments/splitThreshold`` allows before the split.
    static let many = (0..<200).map { "f\($0)" }

    @Test("argument lists and their routes", arguments: [
        // Usage errors of xds's own.
        ([], .usageProblem("Give a command: \(commands).")),
        (["xds"], .usageProblem("Give a command: \(commands).")),
        (["xds", "help", "nosuch"], .usageProblem("There is no command 'nosuch'; the commands are \(commands).")),
        (["xds", "help", "show", "nosuch"], .usageProblem("There is no command 'nosuch'; the commands are \(commands).")),
        (["xds", "help"], .parser), (["xds", "help", "show"], .parser), (["xds", "--version"], .parser),
        (["xds", "-h"], .parser), (["xds", "nosuch"], .parser), (["xds", "appinfo", "x.app"], .parser),
        // show: files, --json and --no-follow only.
        (["xds", "show", "a.txt"], .fastShow(ShowCommandLine(files: ["a.txt"]))),
        (["xds", "show", "--json", "a", "--no-follow", "b"],
         .fastShow(ShowCommandLine(files: ["a", "b"], json: true, noFollow: true))),
        (["xds", "show"], .parser), (["xds", "show", "-r", "a"], .parser), (["xds", "show", "--", "a"], .parser),
        (["xds", "show", "help"], .parser), (["xds", "show", "a", "-h"], .parser), (["xds", "show", "a", "--icon"], .parser),
        (["xds", "set", "a", "--id", "x"], .parser), (["xds", "remove", "a"], .parser),
        // mask and icon: plainly given flags whose values pass the commands' validate().
        (["xds", "mask", "in.png", "-o", "out.png", "--size", "58"],
         .fastMask(MaskCommandLine(input: "in.png", options: MaskOptions(sizePoints: 58), output: "out.png"))),
        (["xds", "mask", "-", "--shape", "none", "--no-stroke", "--output", "o.png"],
         .fastMask(MaskCommandLine(input: "-", options: MaskOptions(shape: .none, stroke: false), output: "o.png"))),
        (["xds", "mask", "in.png", "--size=58", "-o", "out.png"], .parser),
        (["xds", "mask", "in.png", "--scale", "4", "-o", "out.png"], .parser),
        (["xds", "mask", "-o", "out.png"], .parser),
        (["xds", "icon", "doc.txt", "-o", "i.png", "--offline", "--scale", "2"],
         .fastIcon(IconCommandLine(file: "doc.txt", options: MaskOptions(scale: 2), output: "i.png", offline: true))),
        (["xds", "icon", "--app-info", "appInfo.json", "--cache-dir", "c", "--allow-http", "-o", "i.png"],
         .fastIcon(IconCommandLine(appInfo: "appInfo.json", output: "i.png", cacheDirectory: "c", allowHTTP: true))),
        (["xds", "icon", "--offline", "--no-cache", "-o", "i.png"], .parser),
        (["xds", "icon", "--cache-dir", "", "-o", "i.png"], .parser),
        (["xds", "icon", "-o", ""], .parser),
        // Long file lists: set, show and remove beside ArgumentParser; the fast path first.
        (["xds", "set", "--id", "x"] + many,
         .longList(FileArguments.Split(arguments: ["set", "--id", "x", "--", "f0"], files: many))),
        (["xds", "show", "-rj", "2"] + many,
         .longList(FileArguments.Split(arguments: ["show", "-rj", "2", "--", "f0"], files: many))),
        (["xds", "remove", "-n", "--"] + many,
         .longList(FileArguments.Split(arguments: ["remove", "-n", "--", "f0"], files: many))),
        (["xds", "show"] + many, .fastShow(ShowCommandLine(files: many))),
        (["xds", "remove", "-n"] + many.prefix(FileArguments.splitThreshold - 3), .parser),  // 128 arguments
        (["xds", "remove", "help"] + many, .parser),
        (["xds", "icon", "--offline"] + many, .parser),
    ] as [([String], XDS.Route)])
    func route(arguments: [String], expected: XDS.Route) {
        #expect(XDS.Route(arguments) == expected)
    }

    /// A command joins the long-list route by being in ``XDS/fileCommands``: every command in it
    /// takes that route, no other does.
    @Test func longListCommandsAreOneList() {
        let listed = XDS.fileCommands.compactMap { $0.configuration.commandName }
        #expect(listed == ["set", "show", "remove", "where", "strip", "check"])
        for command in XDS.configuration.subcommands {
            let name = command.configuration.commandName ?? ""
            let route = XDS.Route(["xds", name, "--no-follow", "--"] + Self.many)
            if listed.contains(name) {
                #expect(route == .longList(FileArguments.Split(arguments: [name, "--no-follow", "--", "f0"], files: Self.many)),
                        "\(name)")
            } else {
                #expect(route == .parser, "\(name)")
            }
        }
    }
}
