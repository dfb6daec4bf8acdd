/// Words quoted for a POSIX shell, so a printed command can be pasted as it is.
enum ShellQuote {
    /// `word` as is when it holds only characters no shell treats specially, else in single
    /// quotes (a `'` inside written `'\''`).
    static func word(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_./:@%+=,".unicodeScalars.contains(scalar))
        }
        if plain { return word }
        var quoted = "'"
        for character in word { quoted += character == "'" ? "'\\''" : String(character) }
        return quoted + "'"
    }
}
