import XDocSource

/// Drawing a small PNG inline in the terminal, for `xds show --icon`.
///
/// Only two protocols are spoken, and only where the terminal says it speaks them: the kitty
/// graphics protocol (kitty sets `KITTY_WINDOW_ID` and `TERM=xterm-kitty`) and iTerm2's inline
/// images (`TERM_PROGRAM=iTerm.app`; WezTerm reads them too). Anything else, including a
/// terminal multiplexer (tmux and screen swallow or garble the sequences), a dumb terminal, or
/// standard output that is not a terminal (a file, a pipe), gets no escape sequence at all.
enum TerminalImage: Equatable {
    /// `ESC _ G … ESC \`, the PNG sent in base64 chunks of at most 4096 bytes.
    case kitty
    /// `ESC ] 1337 ; File=… : base64 BEL`.
    case iTerm2

    /// The protocol the terminal on standard output speaks, or nil (say nothing).
    /// - Parameters:
    ///   - environment: the process environment.
    ///   - outputIsTerminal: whether standard output is a terminal (isatty(1)).
    static func detect(environment: [String: String], outputIsTerminal: Bool) -> TerminalImage? {
        guard outputIsTerminal else { return nil }
        let term = environment["TERM"] ?? ""
        if term.isEmpty || term == "dumb" { return nil }
        if !(environment["TMUX"] ?? "").isEmpty || term.hasPrefix("screen") || term.hasPrefix("tmux") { return nil }
        if let window = environment["KITTY_WINDOW_ID"], !window.isEmpty { return .kitty }
        if term == "xterm-kitty" { return .kitty }
        switch environment["TERM_PROGRAM"] {
        case "iTerm.app", "WezTerm": return .iTerm2
        default: return nil
        }
    }

    /// The cells the icon takes: 4 columns by 2 rows, about a file manager's small icon.
    static let columns = 4
    static let rows = 2

    /// The escape sequence that draws `png` at the cursor, followed by a newline, so the text
    /// that comes next starts under the image.
    func sequence(for png: [UInt8]) -> String {
        let data = Base64.encode(png)
        switch self {
        case .kitty:
            // a=T transmit and display, f=100 PNG, c/r the cells; q=2 asks the terminal not to
            // answer (an answer would arrive on standard input as if typed).
            var text = ""
            var rest = Substring(data)
            var first = true
            repeat {
                let chunk = rest.prefix(4096)
                rest = rest.dropFirst(chunk.count)
                let more = rest.isEmpty ? 0 : 1
                let control = first ? "a=T,f=100,q=2,c=\(Self.columns),r=\(Self.rows),m=\(more)" : "m=\(more)"
                text += "\u{1B}_G" + control + ";" + chunk + "\u{1B}\\"
                first = false
            } while !rest.isEmpty
            return text + "\n"
        case .iTerm2:
            return "\u{1B}]1337;File=inline=1;size=\(png.count);width=\(Self.columns);height=\(Self.rows);"
                + "preserveAspectRatio=1:" + data + "\u{07}" + "\n"
        }
    }
}
